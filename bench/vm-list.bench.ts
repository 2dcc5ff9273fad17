/**
 * VM list under load: seeds 1,000,000 VMs, 100,000 users and 20,000 teams into a throwaway PostgreSQL
 * cluster (or DATABASE_URL), then loads the VM list call (search + sort, 10 rows) and a bare Fastify JSON
 * route in the same run with autocannon. Prints requests/s, p50, p99 and the ratio; saves bench/results/*.json.
 *   npm run bench            (BENCH_VMS, BENCH_USERS, BENCH_TEAMS, BENCH_SECONDS, BENCH_CONNECTIONS to change the size)
 * It also reports CPU time per request of this process and of PostgreSQL, to show where the time goes.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { startPostgresCluster } from '../apps/api/test/postgres-cluster.ts';
import { startSmtpCatcher, codeFrom } from '../apps/api/test/smtp-catcher.ts';

const VMS = Number(process.env.BENCH_VMS ?? 1_000_000);
const USERS = Number(process.env.BENCH_USERS ?? 100_000);
const TEAMS = Number(process.env.BENCH_TEAMS ?? 20_000);
const COMPANIES = 100;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);

const cluster = process.env.DATABASE_URL ? null : startPostgresCluster();
const url = process.env.DATABASE_URL ?? cluster!.url;
const smtp = await startSmtpCatcher();
const database = await openDatabase({ databaseUrl: url, poolSize: 20 });
await seedReferenceData(database.db);
await seedDemoTenant(database.db, { adminEmail: 'admin@example.com', adminPassword: 'Bench-Password-1!' });

const client = new pg.Client({ connectionString: url });
await client.connect();
const t0 = Date.now();
await client.query(
  `insert into companies (reseller_id, name) select 1, 'Company ' || g from generate_series(2, ${COMPANIES}) g`,
);
await client.query(
  `insert into users (company_id, email, first_name, last_name) select 1 + (g % ${COMPANIES}), 'user' || g || '@bench.example', 'User', 'N' || g from generate_series(1, ${USERS}) g`,
);
await client.query(
  `insert into teams (company_id, name) select 1 + (g % ${COMPANIES}), 'Team ' || g from generate_series(1, ${TEAMS}) g`,
);
await client.query(
  `insert into team_members (team_id, user_id, role_id) select t.id, u.id, 2 from teams t join users u on u.company_id = t.company_id and u.id % 50 = t.id % 50 where t.id % 5 = 0 limit 200000`,
);
await client.query(`
  insert into virtual_machines (company_id, team_id, name, status, configuration_id, region_id, image, provider_id, created_at)
  select 1 + (g % ${COMPANIES}), null, 'vm-' || g, (array['Running','Stopped','Error']::vm_status[])[1 + g % 3], 1 + g % 6, 1, 'Debian 12', 1, now() - (g % 300) * interval '1 day'
  from generate_series(1, ${VMS}) g`);
// As autovacuum would have done on a live table: fresh statistics and a visibility map for index-only scans.
await client.query('vacuum analyze');
const seedSeconds = (Date.now() - t0) / 1000;
console.log(`seeded ${VMS} VMs, ${USERS} users, ${TEAMS} teams in ${seedSeconds.toFixed(1)} s`);
await client.end();

const portal = await buildApp({
  config: loadConfig({
    DATABASE_URL: url,
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
  }),
  database,
  secret: 'bench-secret-that-is-long-enough-0123456',
  logger: false,
  webDistDir: '/nonexistent',
});
await portal.app.listen({ port: 0, host: '127.0.0.1' });
portal.mailer.start();
const base = `http://127.0.0.1:${(portal.app.server.address() as { port: number }).port}/irontech/api/v1`;

// Sign in for real (password + mailed code) to get a session cookie.
const csrf = 'benchcsrf0123456789abcdef';
let cookie = `csrf_token=${csrf}`;
const post = async (path: string, body: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const sid = res.headers.getSetCookie().find((c) => c.startsWith('sid='));
  if (sid) cookie = `csrf_token=${csrf}; ${sid.split(';')[0]}`;
  return res;
};
await post('/auth/login', { email: 'admin@example.com', password: 'Bench-Password-1!' });
await post('/auth/mfa', { code: codeFrom(await smtp.waitFor('admin@example.com')) });

const bare = Fastify();
bare.get('/bare', async () => ({ message: 'OK', data: { hello: 'world' } }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/bare`;

const listUrl = `${base}/virtualMachines/list?page=1&rowsPerPage=10&search=vm-12&sortColumn=name&sortDescending=false`;
const check = await fetch(listUrl, { headers: { cookie } });
if (check.status !== 200) throw new Error(`list answered ${check.status}`);
console.log('sample:', JSON.stringify((await check.json()).data.data.slice(0, 2)));

/** CPU seconds used so far by every PostgreSQL process on this machine (from /proc), to see where the time goes. */
function postgresCpuSeconds(): number {
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      // The process ended between listing and reading.
    }
  }
  return total;
}

async function load(target: string, headers: Record<string, string> = {}) {
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuSeconds();
  const r = await autocannon({ url: target, connections: CONNECTIONS, duration: SECONDS, headers });
  const cpu = process.cpuUsage(cpu0);
  const requests = r.requests.total;
  return {
    requestsPerSecond: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    // Per request, in microseconds: this process (server and load generator together) and PostgreSQL.
    nodeCpuUsPerRequest: Math.round((cpu.user + cpu.system) / requests),
    postgresCpuUsPerRequest: Math.round(((postgresCpuSeconds() - pg0) * 1e6) / requests),
  };
}
const bareResult = await load(bareUrl);
const listResult = await load(listUrl, { cookie });
const result = {
  date: new Date().toISOString(),
  data: { vms: VMS, users: USERS, teams: TEAMS, companies: COMPANIES, seedSeconds },
  connections: CONNECTIONS,
  seconds: SECONDS,
  bare: bareResult,
  vmList: listResult,
  ratio: listResult.requestsPerSecond / bareResult.requestsPerSecond,
  goals: { ratio: 0.5, p99Ms: 25 },
};
console.log(
  `bare route : ${bareResult.requestsPerSecond.toFixed(0)} req/s, p50 ${bareResult.p50Ms} ms, p99 ${bareResult.p99Ms} ms`,
);
console.log(
  `VM list    : ${listResult.requestsPerSecond.toFixed(0)} req/s, p50 ${listResult.p50Ms} ms, p99 ${listResult.p99Ms} ms (non-2xx ${listResult.non2xx})`,
);
console.log(
  `CPU/request: bare ${bareResult.nodeCpuUsPerRequest} µs node; VM list ${listResult.nodeCpuUsPerRequest} µs node + ${listResult.postgresCpuUsPerRequest} µs PostgreSQL`,
);
console.log(`ratio      : ${result.ratio.toFixed(2)} (goal ≥ 0.5; p99 goal ≤ 25 ms)`);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(new URL(`./results/vm-list-${Date.now()}.json`, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);

await bare.close();
await portal.close();
await database.close();
await smtp.close();
cluster?.stop();
