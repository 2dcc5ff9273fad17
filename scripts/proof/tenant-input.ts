/**
 * Issue 21's attacks, as a tenant would run them, against the portal as its own process (`npm run proof -- tenant`):
 * a reseller owner types host URIs, webhook URLs and domains meant to make the server run programs or reach its own
 * network, and races the calls whose invariants broke. The portal runs with its production defaults (no EGRESS_ALLOW,
 * no RESELLER_HOST_TCP, a short host-monitor interval so that a stored URI would be run many times).
 *
 * Goals: no marker script ever runs; a trap listening on 127.0.0.9 sees no connection; every such input is refused
 * with 400 and a message that tells nothing of the network; the platform's host cannot be claimed and an unverified
 * domain brands nothing; the anonymous health check stays 200 whatever a tenant creates; the races keep their
 * invariants (one owner left, one provider per name, one secret, one suspension, one pending delivery per
 * company-month); no call answers 5xx.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { routes } from '@portal/contract/routes';
import { openDatabase } from '../../apps/api/src/db/client.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../apps/api/test/fixtures.ts';
import type { TestApp } from '../../apps/api/test/harness.ts';
import { ensureStaffCompany } from '../../apps/api/src/modules/reseller-companies/staff.ts';
import { signIn, type Answer } from './lib/client.ts';
import { sleep, startProofEnv } from './lib/portal.ts';
import { saveResult, type Goal } from './lib/report.ts';

const TRAP_HOST = '127.0.0.9';
const TRAP_PORTS = [16509, 16514, 2222, 8080];
/** Words in an answer that would tell a tenant what the server found on the network. */
const ORACLE =
  /refused|end of file|ECONN|EHOSTUNREACH|timed? ?out|no route|reset by peer|getaddrinfo|ENOTFOUND|keyfile/i;

/** The public brand as a browser at `headers`' host sees it (fetch() may not set Host). */
function brandAt(api: string, headers: Record<string, string>): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const req = request(`${api}/resellers/brand`, { headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve((JSON.parse(body) as { data: { resellerName: string | null } }).data.resellerName));
    });
    req.on('error', reject);
    req.end();
  });
}

async function listen(host: string, port: number, onConnect: () => void): Promise<Server> {
  const server = createServer((socket) => {
    onConnect();
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export async function prove(args: string[]): Promise<boolean> {
  const monitorSeconds = Number(args[args.indexOf('--seconds') + 1]) || 15;
  const work = mkdtempSync(join(tmpdir(), 'portal-proof-tenant-'));
  const marker = join(work, 'ran');
  const script = join(work, 'evil.sh');
  writeFileSync(script, `#!/bin/sh\ntouch ${marker}\n`);
  chmodSync(script, 0o755);

  let trapConnections = 0;
  const traps = await Promise.all(TRAP_PORTS.map((p) => listen(TRAP_HOST, p, () => trapConnections++)));
  const env = await startProofEnv({
    VM_HOST_CHECK_INTERVAL_MS: '300',
    SIMULATOR_STEP_MS: '20',
    VM_RUNNER_POLL_MS: '50',
  });
  const { portal, smtp, cluster } = env;
  const sql = new pg.Client({ connectionString: cluster.url });
  await sql.connect();
  const database = await openDatabase({ databaseUrl: cluster.url, poolSize: 2 });
  const t = { db: database.db } as unknown as TestApp;
  const goals: Goal[] = [];
  const figures: Record<string, unknown> = {};
  const fivexx: string[] = [];
  const leaks: string[] = [];
  const note = (what: string, a: Answer) => {
    if (a.status >= 500 || a.status === 0) fivexx.push(`${what}: ${a.status} ${a.message || a.error}`);
    if (ORACLE.test(a.message)) leaks.push(`${what}: ${a.message}`);
    return a;
  };
  try {
    // People: reseller A (the demo reseller) with two owners, reseller B with one, a customer company of A.
    const companyA = (await sql.query<{ r: number }>('select reseller_id as r from companies where id = 1')).rows[0]!.r;
    const staffA = (await ensureStaffCompany(t.db, companyA))!;
    const other = await createOtherCompany(t);
    const resellerB = (
      await sql.query<{ r: number }>('select reseller_id as r from companies where id = $1', [other.companyId])
    ).rows[0]!.r;
    const staffB = (await ensureStaffCompany(t.db, resellerB))!;
    const ownerA1 = await createUser(t, staffA, 'proof-owner1@a.example', { staffRole: 'owner' });
    const ownerA2 = await createUser(t, staffA, 'proof-owner2@a.example', { staffRole: 'owner' });
    await createUser(t, staffB, 'proof-owner@b.example', { staffRole: 'owner' });
    const [a1, a2, b] = await Promise.all([
      signIn(portal.api, smtp, 'proof-owner1@a.example', PASSWORD),
      signIn(portal.api, smtp, 'proof-owner2@a.example', PASSWORD),
      signIn(portal.api, smtp, 'proof-owner@b.example', PASSWORD),
    ]);
    const cat = routes.resellerCatalog;

    // 1. Host URIs: programs, files, sockets, the portal's own libvirt and its network.
    const provider = note(
      'create provider',
      await a1.call(cat.createProvider, { body: { name: 'Proof cloud', driver: 'libvirt', enabled: true } }),
    );
    const providerId = (provider.data as { id: number }).id;
    const regionId = (await sql.query<{ id: number }>('select id from regions order by id limit 1')).rows[0]!.id;
    const evilUris = [
      `qemu+ext:///system?command=${script}`,
      `qemu+ssh://root@203.0.113.10/system?command=${script}`,
      `qemu+ssh://root@203.0.113.10/system?netcat=${script}`,
      `qemu+ssh://root@203.0.113.10/system?proxy=native&netcat=${script}`,
      `qemu+unix:///system?socket=${work}/sock`,
      `qemu+ssh://root@203.0.113.10/system?keyfile=/etc/shadow`,
      `qemu+ssh://root@203.0.113.10/system?no_verify=1`,
      'qemu:///system',
      'qemu:///session',
      'test:///default',
      `qemu+tcp://${TRAP_HOST}:16509/system`,
      `qemu+tls://${TRAP_HOST}:16514/system`,
      `qemu+ssh://root@${TRAP_HOST}:2222/system`,
      'qemu+ssh://root@169.254.169.254/system',
      'qemu+ssh://root@[::1]:2222/system',
      'qemu+ssh://root@[::ffff:127.0.0.9]:2222/system',
      'qemu+ssh://root@2130706441:2222/system',
      'qemu+ssh://root@0x7f000009:2222/system',
      'qemu+ssh://root@10.0.0.1/system',
      'qemu+ssh://root@localhost:2222/system',
      'qemu+ssh://root@metadata.google.internal/system',
      `qemu+libssh2://root@${TRAP_HOST}:2222/system?known_hosts=/dev/null`,
    ];
    let hostRefused = 0;
    for (const uri of evilUris) {
      const check = note(`check ${uri}`, await a1.call(cat.checkHost, { body: { uri } }));
      const reg = note(
        `register ${uri}`,
        await a1.call(cat.registerHost, {
          body: {
            name: `evil-${hostRefused}`,
            uri,
            providerId,
            regionId,
            cpus: 4,
            ramGb: 8,
            diskGb: 100,
            hostKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
          },
        }),
      );
      if (check.status === 400 && reg.status === 400) hostRefused++;
      else console.log(`  not refused: ${uri} check ${check.status} register ${reg.status}`);
    }
    // URIs stored before the fix: the host monitor must never run them.
    await sql.query(
      `insert into hosts (name, uri, provider_id, region_id, cpus, ram_gb, disk_gb)
       values ('legacy-evil', $1, $2, $3, 4, 8, 100), ('legacy-tcp', $4, $2, $3, 4, 8, 100)`,
      [`qemu+ext:///system?command=${script}`, providerId, regionId, `qemu+tcp://${TRAP_HOST}:16509/system`],
    );
    await sleep(monitorSeconds * 1000);
    figures.hosts = { tried: evilUris.length, refused: hostRefused, monitorSeconds };
    goals.push({
      name: 'every tenant host URI aimed at programs, files or the internal network is refused (check and register)',
      met: hostRefused === evilUris.length,
      value: `${hostRefused}/${evilUris.length}`,
    });

    // 2. The billing webhook aimed inside.
    const evilHooks = [
      `http://${TRAP_HOST}:8080/hook`,
      'http://127.0.0.1:5432/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.9]:8080/',
      'http://2130706441:8080/',
      'http://0x7f000009:8080/',
      'http://127.1:8080/',
      'http://10.1.2.3/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://localhost:8080/',
      'https://metadata.google.internal/',
      'https://203.0.113.10:22/',
    ];
    let hookRefused = 0;
    for (const url of evilHooks) {
      const a = note(`webhook ${url}`, await a1.call(routes.billing.setWebhook, { body: { url, enabled: true } }));
      if (a.status === 400) hookRefused++;
      else console.log(`  not refused: webhook ${url} ${a.status}`);
    }
    goals.push({
      name: 'every webhook URL aimed at the internal network is refused',
      met: hookRefused === evilHooks.length,
      value: `${hookRefused}/${evilHooks.length}`,
    });

    // 3. Domains: the platform's own host, public suffixes, IPs; an unverified domain brands nothing.
    const publicHost = new URL(portal.origin).hostname;
    const badDomains = ['co.uk', 'github.io', 'com', '10.0.0.1', publicHost === '127.0.0.1' ? 'localhost' : publicHost];
    let domainRefused = 0;
    for (const host of badDomains) {
      const a = note(`domain ${host}`, await a1.call(routes.resellerBranding.addDomain, { body: { host } }));
      if (a.status === 400) domainRefused++;
      else console.log(`  not refused: domain ${host} ${a.status}`);
    }
    note(
      'domain pending',
      await a1.call(routes.resellerBranding.addDomain, { body: { host: 'portal.proof-a.example' } }),
    );
    const brandName = await brandAt(portal.api, { host: 'portal.proof-a.example' });
    const resellerName = (await sql.query<{ name: string }>('select name from resellers where id = $1', [companyA]))
      .rows[0]!.name;
    // Verified in the database (as the operator CLI's `domains verify` would): only the forwarded header names it.
    await sql.query(
      "insert into reseller_domains (host, reseller_id, verified_at) values ('verified.proof-a.example', $1, now())",
      [companyA],
    );
    const forwardedName = await brandAt(portal.api, { 'x-forwarded-host': 'verified.proof-a.example' });
    const verifiedName = await brandAt(portal.api, { host: 'verified.proof-a.example' });
    goals.push({
      name: 'platform hosts, public suffixes and IPs cannot be claimed; a pending domain brands nothing',
      met:
        domainRefused === badDomains.length &&
        brandName !== resellerName &&
        forwardedName !== resellerName &&
        verifiedName === resellerName,
      value: `${domainRefused}/${badDomains.length} refused; a pending domain shows ${brandName}, X-Forwarded-Host of a verified one ${forwardedName}, its Host ${verifiedName}`,
    });

    // 4. The health check is the platform's: a tenant's enabled provider and dead host do not take it down.
    const health = await fetch(`${portal.api}/healthCheck/remoteAPI`);
    goals.push({
      name: 'the anonymous health check is unaffected by tenants',
      met: health.status === 200,
      value: String(health.status),
    });

    // 5. Races. The demo owner steps down first, so that the two racing owners are the last two.
    await sql.query(
      "update users set staff_role = 'support' where company_id = $1 and email = 'owner@northwind.example'",
      [staffA],
    );
    const demote = await Promise.all([
      a1.call(routes.resellerStaff.changeRole, { params: { id: ownerA2.id }, body: { role: 'support' } }),
      a2.call(routes.resellerStaff.changeRole, { params: { id: ownerA1.id }, body: { role: 'support' } }),
    ]);
    demote.forEach((a, i) => note(`demote ${i}`, a));
    const owners = (
      await sql.query<{ n: number }>(
        "select count(*)::int as n from users where company_id = $1 and staff_role = 'owner'",
        [staffA],
      )
    ).rows[0]!.n;
    const creates = await Promise.all(
      Array.from({ length: 12 }, () =>
        b.call(cat.createProvider, { body: { name: 'Twelve', driver: 'simulator', enabled: true } }),
      ),
    );
    creates.forEach((a, i) => note(`provider race ${i}`, a));
    const twelve = (
      await sql.query<{ n: number }>(
        "select count(*)::int as n from providers where reseller_id = $1 and name = 'Twelve'",
        [resellerB],
      )
    ).rows[0]!.n;
    const saves = await Promise.all(
      Array.from({ length: 4 }, () =>
        b.call(routes.billing.setWebhook, { body: { url: 'https://93.184.215.14/hook', enabled: true } }),
      ),
    );
    saves.forEach((a, i) => note(`first save ${i}`, a));
    const secrets = new Set(saves.map((a) => (a.data as { secret: string | null } | null)?.secret).filter(Boolean));
    const companyOfB = other.companyId;
    const suspends = await Promise.all(
      [0, 1].map(() =>
        b.call(routes.resellerCompanies.suspend, { params: { id: companyOfB }, body: { reason: 'Proof of one' } }),
      ),
    );
    suspends.forEach((a, i) => note(`suspend ${i}`, a));
    const suspendAudits = (
      await sql.query<{ n: number }>(
        "select count(*)::int as n from audit_log where action = 'company.suspend' and target_id = $1",
        [String(companyOfB)],
      )
    ).rows[0]!.n;
    const month = new Date().toISOString().slice(0, 7);
    for (let i = 0; i < 2; i++) note(`send now ${i}`, await b.call(routes.billing.sendNow, { body: { month } }));
    const pendingTwice = (
      await sql.query<{ n: number }>(
        `select count(*)::int as n from (select company_id from webhook_deliveries where reseller_id = $1 and status = 'pending'
         group by company_id, month having count(*) > 1) d`,
        [resellerB],
      )
    ).rows[0]!.n;
    figures.races = {
      ownersLeft: owners,
      demotions: demote.map((a) => a.status),
      providerRows: twelve,
      providerAnswers: creates.map((a) => a.status),
      secretsReturned: secrets.size,
      suspendAnswers: suspends.map((a) => a.status),
      suspendAudits,
      companyMonthsPendingTwice: pendingTwice,
    };
    goals.push({
      name: 'races keep their invariants',
      met: owners >= 1 && twelve === 1 && secrets.size === 1 && suspendAudits === 1 && pendingTwice === 0,
      value: JSON.stringify(figures.races),
    });

    // 6. What must never have happened, over the whole run.
    await sleep(1000);
    figures.markerRan = existsSync(marker);
    figures.trapConnections = trapConnections;
    figures.fivexx = fivexx;
    figures.oracleMessages = leaks;
    goals.push({ name: 'no marker script ran', met: !existsSync(marker), value: String(existsSync(marker)) });
    goals.push({
      name: `no connection reached ${TRAP_HOST} (registration, host monitor, webhook worker)`,
      met: trapConnections === 0,
      value: String(trapConnections),
    });
    goals.push({ name: 'no 5xx or dropped answer', met: fivexx.length === 0, value: fivexx.join('; ') || 'none' });
    goals.push({
      name: 'no refusal tells what the server found on the network',
      met: leaks.length === 0,
      value: leaks.join('; ') || 'none',
    });
    return saveResult('tenant-input', figures, goals);
  } finally {
    await sql.end();
    await database.close();
    await Promise.all(traps.map((s) => new Promise((r) => s.close(r))));
    rmSync(work, { recursive: true, force: true });
  }
}
