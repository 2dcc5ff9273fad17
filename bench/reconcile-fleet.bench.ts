/**
 * The engine over a fleet (issue 22 point 4), behind the real virsh client and libvirt's own test driver: each host
 * is a `test:///<file>` node holding its domains (no daemon; the connection is made inside virsh, so the figures
 * leave out the network: over qemu+ssh each process also pays the connect, bench:virsh measures it).
 *  - Status gathering: per machine (`virsh domstate` for each, as before issue 22) vs per host (`domstats --state`
 *    once, statusAll), each with a process per call and with the host's long-lived virsh session (virsh-session.ts).
 *  - A whole reconcile pass through the reconciler itself (createReconciler with the database: the fleet's VMs as
 *    rows, read host by host, each host asked once, drift followed), on in-process PGlite, or with FLEET_PG=1 on a
 *    fresh database of the benchmark's PostgreSQL cluster (its CPU measured too).
 *  - The host monitor's CPU per minute (its checks of every host, at its default interval of 10 s).
 *  - With FLEET_PG=1 and FLEET_LIVE=1 (root: a private libvirtd, apps/api/test/libvirt-daemon.ts): the portal as
 *    its own process (bench/targets/portal.ts) on that database with the fleet and one real host, which holds a
 *    cheap domain (type qemu, no disk: it sits in the BIOS). The time from `virsh destroy`/`virsh start` run from
 *    outside to the new status on the portal's live stream (SSE /virtualMachines/events), and the VM list's p99
 *    (wrk, its own process) with the engine idle (no pass during the run) and busy (passes at the default 15 s, and
 *    back to back).
 * Calls per pass are counted at the binary (a wrapper: a process each, and every line fed to a session through tee);
 * virsh CPU is that of every child of this process, reaped or still running (sessions), from /proc. Saves
 * bench/results/reconcile-fleet-<date>.json. The machine is shared: quote medians and say so.
 *   node --import tsx bench/reconcile-fleet.bench.ts
 *   FLEET_HOSTS=100 FLEET_DOMAINS=100 (defaults 20 × 100); PER_VM_SAMPLE=300: per-machine calls measured, the
 *   pass extrapolated from them (a real per-machine pass over 10,000 domains takes minutes); FLEET_PG=1;
 *   FLEET_EXTRA_VMS=1000000: that many other (never provisioned) VM rows in the reconciler's database; FLEET_METRICS=0:
 *   the passes without the metrics sample (states only);
 *   FLEET_LIVE=1; FLEET_WRK_SECONDS (20), FLEET_REPEATS (3), FLEET_EVENT_ROUNDS (5); FLEET_PG_KEY, FLEET_PG_PORT;
 *   FLEET_DB_SLOTS, FLEET_HOST_CONCURRENCY (the reconciler's statement slots and hosts at once); FLEET_PROFILE=<dir>
 *   (CPU profiles of the first and the steady passes: first.cpuprofile, steady.cpuprofile).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import readline from 'node:readline';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase } from '../apps/api/src/db/client.ts';
import {
  companies,
  configurations,
  hosts as hostsTable,
  providers,
  regions,
  virtualMachines,
} from '../apps/api/src/db/schema.ts';
import { createAudit } from '../apps/api/src/lib/audit.ts';
import { createHostMonitor } from '../apps/api/src/engine/host-monitor.ts';
import { createEngineMetrics } from '../apps/api/src/engine/metrics/metrics.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { createReconciler } from '../apps/api/src/engine/reconciler.ts';
import { keyedHash } from '../apps/api/src/lib/crypto.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';
import { createVmEvents } from '../apps/api/src/engine/vm-events.ts';
import { createLibvirtDriver, type LibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { refForKey } from '../apps/api/src/providers/libvirt/names.ts';
import { sharedSpawner } from '../apps/api/src/providers/libvirt/spawner.ts';
import { createProviderRegistry } from '../apps/api/src/providers/registry.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { startBenchCluster } from './lib/bench-cluster.ts';
import { postgresCpuDeltaUs, postgresCpuUs, processCpuUs } from './lib/proc-cpu.ts';
import { treeCpuMs } from './lib/tree-cpu.ts';
import { wrk } from './lib/wrk.ts';

const HOSTS = Number(process.env.FLEET_HOSTS ?? 20);
const DOMAINS = Number(process.env.FLEET_DOMAINS ?? 100);
/** VM rows added to the reconciler pass's database besides the fleet's (FLEET_EXTRA_VMS=1000000). */
const EXTRA_VMS = Number(process.env.FLEET_EXTRA_VMS ?? 0);
/** The reconciler passes store each host's metrics sample (FLEET_METRICS=0: states only, as before issue 22 item 3). */
const WITH_METRICS = process.env.FLEET_METRICS !== '0';
const PER_VM_SAMPLE = Math.min(Number(process.env.PER_VM_SAMPLE ?? 300), HOSTS * DOMAINS);
/** The reconciler's default: hosts asked at once. */
const CONCURRENCY = 8;
const LIVE = process.env.FLEET_LIVE === '1';
const WRK_SECONDS = Number(process.env.FLEET_WRK_SECONDS ?? 20);
const REPEATS = Number(process.env.FLEET_REPEATS ?? 3);
const EVENT_ROUNDS = Number(process.env.FLEET_EVENT_ROUNDS ?? 5);
/** The host monitor's default interval (VM_HOST_CHECK_INTERVAL_MS). */
const MONITOR_INTERVAL_MS = 10_000;
const SECRET = 'bench-secret-that-is-long-enough-0123456';
const API = '/irontech/api/v1';

/**
 * CPU of this process and of every process it started, reaped or running (virsh, its sessions), in ms; the spawn
 * helper that starts the sessions (spawner.ts) apart: its own CPU is neither the portal's nor virsh's.
 */
function cpuMs() {
  const t = treeCpuMs();
  const helperPid = sharedSpawner().helperPid();
  const helper = helperPid ? processCpuUs(helperPid) / 1000 : 0;
  return { portal: t.self, virsh: t.children - helper, helper };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(run: () => Promise<void>) {
  const cpu0 = cpuMs();
  const t0 = process.hrtime.bigint();
  await run();
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu1 = cpuMs();
  return {
    wallMs,
    portalCpuMs: cpu1.portal - cpu0.portal,
    virshCpuMs: cpu1.virsh - cpu0.virsh,
    helperCpuMs: Math.round(cpu1.helper - cpu0.helper),
  };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'reconcile-fleet-'));
try {
  const calls = path.join(dir, 'calls');
  const fed = path.join(dir, 'session-input');
  const wrapper = path.join(dir, 'virsh');
  const virsh = execFileSync('sh', ['-c', 'command -v virsh'], { encoding: 'utf8' }).trim();
  // A process per call runs virsh with its command; a session is `virsh -q -c <uri>` alone, fed through tee.
  // libvirt's test driver gives no statistics (only states): the wrapper adds to each running domain the counters a
  // QEMU host prints (CPU, vCPUs, memory, one disk, one interface; growing with every domain printed) through a
  // filter that forwards everything else at once (a session's reply ends without a newline), so the pass parses and
  // stores a metrics sample per running VM as on a real host (engine/metrics). The filter's CPU counts as virsh's.
  const filter = path.join(dir, 'stats.pl');
  await writeFile(
    filter,
    `# Adds a QEMU host's counters to each running domain of \`virsh domstats\` output, forwarding everything else at once.
$| = 1;
my ($cur, $st, $n) = ('', '', 0);
while (sysread(STDIN, my $c, 65536)) {
  my @parts = split /(\\n)/, $c, -1;
  my $o = '';
  while (@parts) {
    my $t = shift @parts;
    $o .= $t;
    $cur .= $t;
    next unless @parts;
    shift @parts;
    $o .= "\\n";
    if ($cur =~ /^  state\\.state=/) { $st = $cur }
    elsif ($cur =~ /^  state\\.reason=/ && $st eq '  state.state=1') {
      $n++;
      $o .= sprintf("  cpu.time=%d\\n  vcpu.current=2\\n  balloon.rss=%d\\n  net.count=1\\n  net.0.rx.bytes=%d\\n  net.0.tx.bytes=%d\\n  block.count=1\\n  block.0.rd.bytes=%d\\n  block.0.wr.bytes=%d\\n",
        $n * 10000000, 500000 + $n % 1000, $n * 15000, $n * 5000, $n * 40000, $n * 80000);
    }
    $cur = '';
  }
  syswrite(STDOUT, $o);
}
`,
  );
  await writeFile(
    wrapper,
    `#!/bin/sh\necho "$*" >> '${calls}'\ncase "$*" in *' domstats '*) '${virsh}' "$@" | perl '${filter}'; exit 0;; esac\n[ $# -gt 3 ] && exec '${virsh}' "$@"\ntee -a '${fed}' | '${virsh}' "$@" | perl '${filter}'\n`,
    { mode: 0o700 },
  );
  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  /** virsh processes started since the last reset (event streams left out: they are not calls). */
  const processes = () => lines(calls).filter((l) => !/ event --loop/.test(l)).length;
  /** Calls to the hosts since the last reset: a process with its command, or a command fed to a session. */
  const hostCalls = () =>
    lines(calls).filter((l) => l.split(' ').length > 3 && !/ event --loop/.test(l)).length +
    lines(fed).filter((l) => !/^(echo ')?irontech[0-9a-f]/.test(l)).length;
  const resetCounts = () => {
    writeFileSync(calls, '');
    writeFileSync(fed, '');
  };

  const hosts: { driver: LibvirtDriver; spawning: LibvirtDriver; refs: string[]; uri: string }[] = [];
  for (let h = 0; h < HOSTS; h++) {
    const refs = Array.from({ length: DOMAINS }, (_, i) => refForKey(`fleet-${h}-${i}`));
    const xml = refs
      .map(
        (ref, i) => `<domain type='test' xmlns:test='http://libvirt.org/schemas/domain/test/1.0'><name>${ref}</name>
  <memory>65536</memory><os><type>hvm</type></os><test:runstate>${i % 3 === 0 ? 5 : 1}</test:runstate></domain>`,
      )
      .join('\n');
    const file = path.join(dir, `host-${h}.xml`);
    // The pool and network the driver keeps on every host (defined here: the test driver forgets what a process
    // defines when it ends, and the driver defines them with a process of its own).
    const own = `<network><name>irontech</name><bridge name='irontech0'/><forward mode='nat'/><ip address='10.231.0.1' netmask='255.255.255.0'><dhcp><range start='10.231.0.2' end='10.231.0.254'/></dhcp></ip></network>
  <pool type='dir'><name>irontech</name><target><path>/var/lib/libvirt/irontech</path></target></pool>`;
    await writeFile(file, `<node>${xml}\n${own}</node>`);
    const uri = `test://${file}`;
    hosts.push({
      driver: createLibvirtDriver({ uri, virshBinary: wrapper, uploadGuestImage: false }),
      spawning: createLibvirtDriver({ uri, virshBinary: wrapper, uploadGuestImage: false, session: false }),
      refs,
      uri,
    });
  }
  resetCounts();

  // Per machine, as the reconciler did before issue 22: one after another, a process each.
  const sample = hosts.flatMap((h) => h.refs.map((ref) => ({ driver: h.spawning, ref }))).slice(0, PER_VM_SAMPLE);
  const perVm = await measure(async () => {
    for (const { driver, ref } of sample) await driver.status(ref);
  });
  const perVmProcesses = processes();
  const scale = (HOSTS * DOMAINS) / sample.length;

  const batched = async (concurrency: number, session: boolean) => {
    resetCounts();
    let seen = 0;
    const queue = [...hosts];
    const m = await measure(async () => {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
          for (let h = queue.shift(); h; h = queue.shift()) {
            const states = await (session ? h.driver : h.spawning).statusAll();
            seen += states.size;
          }
        }),
      );
    });
    if (seen !== HOSTS * DOMAINS) throw new Error(`statusAll saw ${seen} domains, expected ${HOSTS * DOMAINS}`);
    return { ...m, processes: processes(), calls: hostCalls() };
  };
  const sequential = await batched(1, false);
  const concurrent = await batched(CONCURRENCY, false);
  // The sessions' first pass opens them (a process each); the next is the steady state.
  const sessionOpening = await batched(CONCURRENCY, true);
  const sessionSteady = await batched(CONCURRENCY, true);
  for (const h of hosts) h.driver.close?.();
  const throughReconciler = await reconcilerPass();

  const round = (n: number) => Math.round(n);
  const result = {
    at: new Date().toISOString(),
    hosts: HOSTS,
    domainsPerHost: DOMAINS,
    machines: HOSTS * DOMAINS,
    cpus: os.cpus().length,
    virsh: execFileSync(virsh, ['--version'], { encoding: 'utf8' }).trim(),
    perVm: {
      sampled: sample.length,
      processes: perVmProcesses,
      msPerCall: perVm.wallMs / sample.length,
      passExtrapolated: {
        wallMs: round(perVm.wallMs * scale),
        portalCpuMs: round(perVm.portalCpuMs * scale),
        virshCpuMs: round(perVm.virshCpuMs * scale),
        processes: HOSTS * DOMAINS,
      },
    },
    batchedSequential: { ...sequential, wallMs: round(sequential.wallMs) },
    batchedConcurrent: { concurrency: CONCURRENCY, ...concurrent, wallMs: round(concurrent.wallMs) },
    sessionOpening: { concurrency: CONCURRENCY, ...sessionOpening, wallMs: round(sessionOpening.wallMs) },
    sessionSteady: { concurrency: CONCURRENCY, ...sessionSteady, wallMs: round(sessionSteady.wallMs) },
    reconciler: throughReconciler,
    note: 'shared 2-core machine (about six people at once): single runs are noisy, quote medians',
    reconcilerSettings: {
      dbSlots: process.env.FLEET_DB_SLOTS ?? 'default',
      hostConcurrency: process.env.FLEET_HOST_CONCURRENCY ?? 'default',
    },
  };
  console.log(
    `Reconcile status gathering: ${HOSTS} hosts × ${DOMAINS} domains (${HOSTS * DOMAINS} machines), virsh ${result.virsh}`,
  );
  const row = (
    name: string,
    r: {
      wallMs: number;
      portalCpuMs: number;
      virshCpuMs: number;
      helperCpuMs?: number;
      processes: number;
      calls?: number;
    },
    more = '',
  ) =>
    console.log(
      `  ${name.padEnd(46)} wall ${String(round(r.wallMs)).padStart(8)} ms   portal CPU ${String(round(r.portalCpuMs)).padStart(7)} ms   virsh CPU ${String(round(r.virshCpuMs)).padStart(8)} ms   processes ${String(r.processes).padStart(5)}   calls ${r.calls ?? r.processes}${r.helperCpuMs ? `   spawn helper CPU ${r.helperCpuMs} ms` : ''}${more}`,
    );
  row(`per VM, process each (×${scale.toFixed(1)} from ${sample.length})`, result.perVm.passExtrapolated);
  row('per host, process each, one at a time', sequential);
  row(`per host, process each, ${CONCURRENCY} at a time`, concurrent);
  row(`per host, session, ${CONCURRENCY} at a time (opening)`, sessionOpening);
  row(`per host, session, ${CONCURRENCY} at a time (steady)`, sessionSteady);
  for (const [name, r] of [
    ['first', throughReconciler.first],
    ['steady', throughReconciler.steady],
    ...throughReconciler.more.map((p, i) => [`steady ${i + 2}`, p] as const),
  ] as const)
    row(
      `reconcileOnce, ${name} pass (${throughReconciler.engine})`,
      r,
      r.postgresCpuMs === null ? '' : `   PostgreSQL CPU ${r.postgresCpuMs} ms`,
    );
  console.log(
    `  first pass followed ${throughReconciler.first.changed} drifted VMs (expected ${throughReconciler.drifted}); steady pass ${throughReconciler.steady.changed}`,
  );
  const mon = throughReconciler.monitor;
  console.log(
    `  host monitor: ${mon.checks} checks of ${HOSTS} hosts, per check (median) wall ${mon.wallMs} ms, portal CPU ${mon.portalCpuMs} ms, virsh CPU ${mon.virshCpuMs} ms, calls ${mon.calls}, processes ${mon.processes}; per minute at ${MONITOR_INTERVAL_MS / 1000} s: portal CPU ${mon.perMinute.portalCpuMs} ms, virsh CPU ${mon.perMinute.virshCpuMs} ms`,
  );
  const st = throughReconciler.startup;
  console.log(
    `  engine start (cold hosts: the monitor's first check with its watches and the first pass at once): warm after ${st.wallMs} ms (check ${st.firstCheckMs} ms, pass ${st.firstPassMs} ms); portal CPU ${st.portalCpuMs} ms, virsh CPU ${Math.round(st.virshCpuMs)} ms, spawn helper CPU ${st.helperCpuMs} ms; sessions ${st.processes}, watches ${st.watches}`,
  );
  const live = throughReconciler.live;
  if (live?.events) {
    console.log(
      `  live stream: libvirt's event → status on the portal's stream, median ${live.events.medianMs} ms (destroy ${live.events.stop.join(', ')} ms; start ${live.events.start.join(', ')} ms); from the virsh command run outside: median ${live.events.medianFromCommandMs} ms`,
    );
  }
  if (live) {
    for (const [name, r] of Object.entries(live.list))
      console.log(
        `  VM list, engine ${name.padEnd(14)} p99 ${String(r.p99Ms).padStart(7)} ms   p50 ${String(r.p50Ms).padStart(6)} ms   ${String(r.requestsPerSecond).padStart(6)} req/s   (p99 of runs: ${r.runs.map((x) => x.p99Ms).join(', ')}; passes during the runs: ${r.runs.map((x) => x.passes).join(', ')})`,
      );
    console.log(
      `  list p99 busy / idle: ${live.p99Ratio.default} at the default interval, ${live.p99Ratio.backToBack} with passes back to back`,
    );
  }
  const results = new URL('./results/', import.meta.url).pathname;
  mkdirSync(results, { recursive: true });
  const out = path.join(results, `reconcile-fleet-${result.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`saved ${out}`);

  /**
   * A whole pass of the real reconciler over the fleet: one libvirt provider whose hosts are the test:// nodes, the
   * domains as VM rows (shut-off ones Shutoff, the others Running, except one per host stored Shutoff though running:
   * drift the first pass follows). The portal CPU includes PGlite's (it runs in this process); PostgreSQL's is not.
   */
  async function reconcilerPass() {
    /** The reconciler's log: its warnings (a host that failed) printed, the rest dropped. */
    const warnings = {
      warn: (obj: unknown, msg?: string) => console.warn(msg, obj),
      error: (obj: unknown, msg?: string) => console.error(msg, obj),
      info: () => undefined,
      debug: () => undefined,
    } as unknown as FastifyBaseLogger;
    // FLEET_PG_KEY/FLEET_PG_PORT: a cluster of one's own (a second run on the same machine restarts the first's).
    const cluster =
      process.env.FLEET_PG === '1'
        ? startBenchCluster(process.env.FLEET_PG_KEY ?? 'fleet', Number(process.env.FLEET_PG_PORT ?? 56950))
        : null;
    const dbName = `fleet_${Date.now()}`;
    const admin = cluster ? new pg.Client({ connectionString: cluster.url }) : null;
    await admin?.connect();
    await admin?.query(`create database ${dbName}`);
    const database = await openDatabase(
      cluster ? { databaseUrl: cluster.url.replace(/\/postgres$/, `/${dbName}`) } : { dataDir: 'memory://' },
    );
    try {
      const db = database.db;
      await seedReferenceData(db);
      await seedDemoTenant(db, { adminPassword: 'Bench-Password-1!' });
      const [company] = await db.select().from(companies).limit(1);
      const [region] = await db.select().from(regions).limit(1);
      const [config] = await db.select().from(configurations).limit(1);
      const [provider] = await db
        .insert(providers)
        .values({
          name: `Fleet bench ${Date.now()}`,
          driver: 'libvirt',
          // As the portal process of the live part makes its drivers (the in-process registry below does the same).
          settings: { virshBinary: wrapper, uploadGuestImage: false },
        })
        .returning();
      const hostIds: number[] = [];
      for (const [h, host] of hosts.entries()) {
        const [row] = await db
          .insert(hostsTable)
          .values({
            name: `fleet-bench-${Date.now()}-${h}`,
            uri: host.uri,
            providerId: provider!.id,
            regionId: region!.id,
            cpus: 64,
            ramGb: 256,
            diskGb: 4096,
          })
          .returning();
        hostIds.push(row!.id);
      }
      // Inserted round-robin over the hosts, as placement spreads machines made over time: VMs in id order come from
      // every host in turn (a page of 500 holds 5 of each of 100 hosts).
      let drifted = 0;
      const vms = Array.from({ length: DOMAINS }, (_, i) =>
        hosts.map(({ refs }, h) => {
          const drift = i % 3 !== 0 && i % 50 === 1;
          if (drift) drifted++;
          return {
            companyId: company!.id,
            name: refs[i]!,
            status: i % 3 === 0 || drift ? ('Shutoff' as const) : ('Running' as const),
            configurationId: config!.id,
            regionId: region!.id,
            image: 'Debian 12',
            providerId: provider!.id,
            hostId: hostIds[h]!,
            providerRef: refs[i]!,
          };
        }),
      ).flat();
      for (let i = 0; i < vms.length; i += 1000) await db.insert(virtualMachines).values(vms.slice(i, i + 1000));
      // Other VM rows the pass must not pay for (the issue's million in the database): never provisioned, as in
      // bench:api's seed, so outside the partial index the pass walks.
      if (EXTRA_VMS > 0) {
        // Spread over 100 companies as bench:api's seed spreads its million (the live part's VM list is one company's).
        await db.execute(
          sql`insert into companies (reseller_id, name) select ${company!.resellerId}, 'Fleet company ' || g from generate_series(2, 100) g`,
        );
        await db.execute(sql`
          insert into virtual_machines (company_id, name, status, configuration_id, region_id, image, provider_id)
          select c.id, 'extra-' || g, 'Stopped', ${config!.id}, ${region!.id}, 'Debian 12', ${provider!.id}
          from generate_series(1, ${EXTRA_VMS}) g
          join (select id, (row_number() over (order by id)) - 1 as k from companies) c on c.k = g % 100`);
        await db.execute(sql`analyze virtual_machines`);
      }
      const registry = createProviderRegistry({
        libvirt: (settings) =>
          createLibvirtDriver({
            uri: (settings as { uri: string }).uri,
            virshBinary: wrapper,
            uploadGuestImage: false,
          }),
      });
      const events = createVmEvents();
      // With the engine's metrics: each host's one call also brings its domains' statistics, stored per host.
      // FLEET_METRICS=0: without them (states only, statusAll), to compare in one sitting.
      const metrics = WITH_METRICS ? createEngineMetrics({ db, clock: systemClock, log: warnings }) : undefined;
      const reconciler = createReconciler({
        db,
        registry,
        events,
        log: warnings,
        audit: createAudit(db),
        ...(metrics ? { metrics } : {}),
        // FLEET_DB_SLOTS / FLEET_HOST_CONCURRENCY: the reconciler's statement slots and hosts at once (its defaults
        // otherwise), to compare in one sitting.
        ...(process.env.FLEET_DB_SLOTS ? { dbConcurrency: Number(process.env.FLEET_DB_SLOTS) } : {}),
        ...(process.env.FLEET_HOST_CONCURRENCY ? { hostConcurrency: Number(process.env.FLEET_HOST_CONCURRENCY) } : {}),
      });
      const pass = async () => {
        resetCounts();
        let changed = 0;
        const pg0 = cluster ? postgresCpuUs(cluster.postmasterPid()) : null;
        const m = await measure(async () => {
          changed = await reconciler.reconcileOnce();
        });
        const postgresCpuMs =
          cluster && pg0 ? Math.round(postgresCpuDeltaUs(pg0, postgresCpuUs(cluster.postmasterPid())) / 1000) : null;
        return {
          ...m,
          wallMs: Math.round(m.wallMs),
          postgresCpuMs,
          processes: processes(),
          calls: hostCalls(),
          changed,
        };
      };
      // FLEET_PROFILE=<dir>: the portal's CPU profile of the first pass and of the steady ones, each a .cpuprofile
      // there (the passes alone: not the seeding, the per-machine calls or the host monitor).
      const profiled = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
        const dirOut = process.env.FLEET_PROFILE;
        if (!dirOut) return run();
        const { Session } = await import('node:inspector/promises');
        const session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        try {
          return await run();
        } finally {
          const { profile } = await session.post('Profiler.stop');
          mkdirSync(dirOut, { recursive: true });
          writeFileSync(path.join(dirOut, `${name}.cpuprofile`), JSON.stringify(profile));
          session.disconnect();
        }
      };
      const first = await profiled('first', pass);
      const [steady, more] = await profiled(
        'steady',
        async () => [await pass(), [await pass(), await pass()]] as const,
      );
      // The point of the pass: one call per host (the first also opens each host's session), drift followed once.
      for (const p of [first, steady, ...more])
        if (p.calls !== hosts.length)
          throw new Error(`a pass made ${p.calls} calls to hosts, expected ${hosts.length}`);
      if (first.processes !== hosts.length || [steady, ...more].some((p) => p.processes !== 0))
        throw new Error(
          `passes started ${[first, steady, ...more].map((p) => p.processes).join(', ')} virsh processes`,
        );
      if (first.changed !== drifted || [steady, ...more].some((p) => p.changed !== 0))
        throw new Error(`passes changed ${first.changed} and ${steady.changed} VMs, expected ${drifted} and 0`);
      // Every pass stored a sample of each running VM (the first its counters only, the others a minute point).
      const running = vms.filter((v) => v.status === 'Running').length + drifted;
      const [stored] = (
        await db.execute<{ latest: string; minutes: string; samples: string }>(sql`
          select (select count(*) from vm_metric_latest) as latest, (select count(*) from vm_metric_minutes) as minutes,
            (select coalesce(sum(memory_samples), 0) from vm_metric_minutes) as samples`)
      ).rows;
      const metricsStored = {
        runningVms: running,
        latest: Number(stored!.latest),
        minutePoints: Number(stored!.minutes),
        samples: Number(stored!.samples),
      };
      if (WITH_METRICS && (metricsStored.latest !== running || metricsStored.samples !== running * (1 + more.length)))
        throw new Error(`metrics stored ${JSON.stringify(metricsStored)}, expected ${running} VMs sampled each pass`);
      const steadyMedian = {
        wallMs: median([steady, ...more].map((p) => p.wallMs)),
        portalCpuMs: median([steady, ...more].map((p) => p.portalCpuMs)),
        virshCpuMs: median([steady, ...more].map((p) => p.virshCpuMs)),
        postgresCpuMs: cluster ? median([steady, ...more].map((p) => p.postgresCpuMs ?? 0)) : null,
      };

      // The host monitor over the same hosts (health and images of each, as every VM_HOST_CHECK_INTERVAL_MS).
      const monitor = createHostMonitor({ db, registry, events, log: warnings });
      await monitor.checkOnce(); // the first check defines each host's pool and network (in the test driver)
      const checks: { wallMs: number; portalCpuMs: number; virshCpuMs: number; calls: number; processes: number }[] =
        [];
      for (let i = 0; i < 3; i++) {
        resetCounts();
        const m = await measure(async () => {
          await monitor.checkOnce();
        });
        checks.push({ ...m, calls: hostCalls(), processes: processes() });
      }
      const perCheck = {
        wallMs: Math.round(median(checks.map((c) => c.wallMs))),
        portalCpuMs: Math.round(median(checks.map((c) => c.portalCpuMs))),
        virshCpuMs: Math.round(median(checks.map((c) => c.virshCpuMs))),
        calls: median(checks.map((c) => c.calls)),
        processes: median(checks.map((c) => c.processes)),
      };
      const perMinute = 60_000 / MONITOR_INTERVAL_MS;
      const monitorResult = {
        checks: checks.length,
        intervalMs: MONITOR_INTERVAL_MS,
        ...perCheck,
        perMinute: {
          portalCpuMs: Math.round(perCheck.portalCpuMs * perMinute),
          virshCpuMs: Math.round(perCheck.virshCpuMs * perMinute),
          calls: perCheck.calls * perMinute,
        },
      };
      registry.close();
      const startup = await engineStart(db);

      const live = LIVE && cluster ? await livePart(db, dbName, cluster.url, provider!.id, region!.id) : null;
      return {
        engine: database.kind,
        extraVmRows: EXTRA_VMS,
        drifted,
        first,
        steady,
        more,
        steadyMedian,
        metricsStored,
        monitor: monitorResult,
        startup,
        live,
      };
    } finally {
      await database.close();
      await admin?.query(`drop database ${dbName}`);
      await admin?.end();
      cluster?.stop();
    }
  }

  /**
   * The engine's start-up as engine.start() runs it, on cold hosts (a new registry: no session open): the host
   * monitor's first check (each host's health through its session, which opens it, and its event watch started) and
   * the reconciler's first pass at the same moment, sharing each host's session. Wall until each is done (the engine
   * is warm when both are: sessions open, watches on, the first pass over), and the CPU of the whole.
   */
  async function engineStart(db: Awaited<ReturnType<typeof openDatabase>>['db']) {
    const warnings = {
      warn: (obj: unknown, msg?: string) => console.warn(msg, obj),
      error: (obj: unknown, msg?: string) => console.error(msg, obj),
      info: () => undefined,
      debug: () => undefined,
    } as unknown as FastifyBaseLogger;
    const registry = createProviderRegistry({
      libvirt: (settings) =>
        createLibvirtDriver({ uri: (settings as { uri: string }).uri, virshBinary: wrapper, uploadGuestImage: false }),
    });
    const events = createVmEvents();
    const monitor = createHostMonitor({
      db,
      registry,
      events,
      log: warnings,
      intervalMs: 3_600_000,
      onMachineEvent: () => undefined,
    });
    const reconciler = createReconciler({
      db,
      registry,
      events,
      log: warnings,
      audit: createAudit(db),
      ...(WITH_METRICS ? { metrics: createEngineMetrics({ db, clock: systemClock, log: warnings }) } : {}),
    });
    resetCounts();
    let t0 = 0n;
    const since = () => Math.round(Number(process.hrtime.bigint() - t0) / 1e6);
    let monitorMs = 0;
    let passMs = 0;
    const m = await measure(async () => {
      t0 = process.hrtime.bigint();
      // start() runs the first check at once; pass() joins it.
      monitor.start();
      await Promise.all([
        monitor.pass().then(() => (monitorMs = since())),
        reconciler.reconcileOnce().then(() => (passMs = since())),
      ]);
    });
    const watches = lines(calls).filter((l) => / event --loop/.test(l)).length;
    await monitor.stop();
    registry.close();
    return {
      wallMs: Math.round(m.wallMs),
      firstCheckMs: monitorMs,
      firstPassMs: passMs,
      portalCpuMs: m.portalCpuMs,
      virshCpuMs: m.virshCpuMs,
      helperCpuMs: m.helperCpuMs,
      processes: processes(),
      watches,
    };
  }

  /**
   * The portal as its own process on the fleet's database (bench/targets/portal.ts: its engine runs as in production,
   * with the fleet's 100 test:// hosts and one real host, a private libvirtd on this machine). Measures the VM list's
   * p99 (wrk) with the engine idle and busy, and the time from a state change made outside to the live stream.
   */
  function killGroup(child: ChildProcess) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  async function livePart(
    db: Awaited<ReturnType<typeof openDatabase>>['db'],
    dbName: string,
    clusterUrl: string,
    fleetProviderId: number,
    regionId: number,
  ) {
    void fleetProviderId;
    const daemon = await startLibvirtDaemon();
    const POOL = 'fleetbench';
    const NETWORK = 'fleetbench';
    const ref = refForKey(`fleet-live-${Date.now()}`);
    const children: ChildProcess[] = [];
    try {
      const [liveProvider] = await db
        .insert(providers)
        .values({
          name: `Fleet bench live ${Date.now()}`,
          driver: 'libvirt',
          settings: {
            uploadGuestImage: false,
            pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
            network: { name: NETWORK, bridge: 'fleetbr0', cidr: '10.231.97.0/24' },
          },
        })
        .returning();
      const [liveHost] = await db
        .insert(hostsTable)
        .values({
          name: `fleet-live-${Date.now()}`,
          uri: daemon.socketUri,
          providerId: liveProvider!.id,
          regionId,
          cpus: 2,
          ramGb: 4,
          diskGb: 20,
        })
        .returning();
      // A cheap machine: QEMU under TCG with no disk sits in its BIOS.
      const xmlFile = path.join(dir, 'live.xml');
      await writeFile(
        xmlFile,
        `<domain type='qemu'><name>${ref}</name><memory unit='MiB'>32</memory><vcpu>1</vcpu><os><type arch='x86_64'>hvm</type></os><devices/></domain>`,
      );
      await daemon.virsh(daemon.socketUri, ['define', xmlFile]);
      await daemon.virsh(daemon.socketUri, ['start', ref]);
      const admin = new pg.Client({ connectionString: clusterUrl.replace(/\/postgres$/, `/${dbName}`) });
      await admin.connect();
      const { rows: me } = await admin.query<{ id: number; company_id: number }>(
        `select id, company_id from users where email = 'admin@example.com'`,
      );
      const { rows: cfg } = await admin.query<{ id: number }>('select id from configurations order by id limit 1');
      const { rows: vmRows } = await admin.query<{ id: number }>(
        `insert into virtual_machines (company_id, name, status, configuration_id, region_id, image, provider_id, host_id, provider_ref)
         values ($1, 'fleet-live', 'Running', $2, $3, 'Debian 12', $4, $5, $6) returning id`,
        [me[0]!.company_id, cfg[0]!.id, regionId, liveProvider!.id, liveHost!.id, ref],
      );
      const vmId = vmRows[0]!.id;
      const token = randomBytes(32).toString('base64url');
      await admin.query(
        `insert into sessions (id, user_id, state, remember_me, expires_at) values ($1, $2, 'authenticated', true, now() + interval '1 day')`,
        [keyedHash(SECRET, `session:${token}`), me[0]!.id],
      );
      await admin.end();
      const headers = { cookie: `csrf_token=${'c'.repeat(32)}; sid=${token}` };

      const startPortal = (env: Record<string, string>) =>
        new Promise<{ child: ChildProcess; base: string }>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            ['--import', 'tsx', new URL('./targets/portal.ts', import.meta.url).pathname],
            {
              env: {
                ...process.env,
                DATABASE_URL: clusterUrl.replace(/\/postgres$/, `/${dbName}`),
                BENCH_SECRET: SECRET,
                NODE_ENV: 'production',
                ...env,
              },
              stdio: ['ignore', 'pipe', 'inherit'],
              // A group of its own: ending it ends the event streams it started too.
              detached: true,
            },
          );
          children.push(child);
          child.once('exit', (code) => reject(new Error(`the portal exited (${code})`)));
          child.stdout!.on('data', (d: Buffer) => {
            const m = /READY (\d+)/.exec(d.toString());
            if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` });
          });
        });
      const stopPortal = async (child: ChildProcess) => {
        if (child.exitCode !== null) return;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        killGroup(child);
      };
      /** Waits until the portal's start-up pass and checks are over: its CPU quiet for a second. */
      const settle = async (pid: number) => {
        const until = Date.now() + 120_000;
        let last = processCpuUs(pid);
        while (Date.now() < until) {
          await new Promise((r) => setTimeout(r, 1000));
          const now = processCpuUs(pid);
          if (now - last < 60_000) return;
          last = now;
        }
      };
      const passesSince = () => lines(fed).filter((l) => l.startsWith('domstats')).length / HOSTS;
      const listUrl = (base: string) =>
        `${base}${API}/virtualMachines/list?page=1&rowsPerPage=10&search=extra-12&sortColumn=name&sortDescending=false`;

      const modes = {
        idle: { VM_RECONCILE_INTERVAL_MS: '3600000', VM_HOST_CHECK_INTERVAL_MS: '3600000' },
        'busy (15 s)': { VM_RECONCILE_INTERVAL_MS: '15000', VM_HOST_CHECK_INTERVAL_MS: '10000' },
        'back to back': { VM_RECONCILE_INTERVAL_MS: '100', VM_HOST_CHECK_INTERVAL_MS: '10000' },
      };
      const list: Record<
        string,
        {
          p99Ms: number;
          p50Ms: number;
          requestsPerSecond: number;
          runs: { p99Ms: number; p50Ms: number; requestsPerSecond: number; passes: number; non2xx: number }[];
        }
      > = {};
      let events: Awaited<ReturnType<typeof eventLatency>> | null = null;
      for (const [mode, env] of Object.entries(modes)) {
        const portal = await startPortal(env);
        await settle(portal.child.pid!);
        const first = await fetch(listUrl(portal.base), { headers });
        if (first.status !== 200) throw new Error(`the list answered ${first.status}: ${await first.text()}`);
        if (mode === 'busy (15 s)')
          events = await eventLatency(
            portal.base,
            headers,
            vmId,
            daemon,
            ref,
            clusterUrl.replace(/\/postgres$/, `/${dbName}`),
          );
        // Warm-up (the list's plan and caches, the connections), not measured.
        await wrk(listUrl(portal.base), { seconds: 5, connections: 64, threads: 2, headers });
        const runs = [];
        for (let i = 0; i < REPEATS; i++) {
          resetCounts();
          const r = await wrk(listUrl(portal.base), { seconds: WRK_SECONDS, connections: 64, threads: 2, headers });
          runs.push({
            p99Ms: Math.round(r.p99Us / 100) / 10,
            p50Ms: Math.round(r.p50Us / 100) / 10,
            requestsPerSecond: Math.round(r.requests / (r.durationUs / 1e6)),
            passes: Math.round(passesSince() * 10) / 10,
            non2xx: r.non2xx + r.errors,
          });
        }
        await stopPortal(portal.child);
        list[mode] = {
          p99Ms: median(runs.map((r) => r.p99Ms)),
          p50Ms: median(runs.map((r) => r.p50Ms)),
          requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
          runs,
        };
        console.log(`  (live) ${mode}: list p99 ${list[mode].p99Ms} ms over ${REPEATS} runs`);
      }
      const ratio = (m: string) => Math.round((list[m]!.p99Ms / list.idle!.p99Ms) * 100) / 100;
      return {
        events,
        list,
        p99Ratio: { default: ratio('busy (15 s)'), backToBack: ratio('back to back') },
        wrk: { seconds: WRK_SECONDS, connections: 64, threads: 2, repeats: REPEATS },
      };
    } finally {
      for (const c of children) killGroup(c);
      await daemon.stop({ domainPattern: /^irontech-/, networks: [NETWORK], pools: [POOL] });
    }
  }

  /** From `virsh destroy` / `virsh start` run outside the portal to the new status on its live stream (SSE). */
  async function eventLatency(
    base: string,
    headers: Record<string, string>,
    vmId: number,
    daemon: Awaited<ReturnType<typeof startLibvirtDaemon>>,
    ref: string,
    dbUrl: string,
  ) {
    const waiters: { status: string; resolve: () => void }[] = [];
    const req = httpRequest(`${base}${API}/virtualMachines/events`, { headers });
    await new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`the stream answered ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          buf += d;
          for (let at = buf.indexOf('\n\n'); at >= 0; at = buf.indexOf('\n\n')) {
            const msg = buf.slice(0, at);
            buf = buf.slice(at + 2);
            const data = /^data: (.*)$/m.exec(msg)?.[1];
            if (!data) continue;
            const e = JSON.parse(data) as { id: number; status: string };
            if (e.id !== vmId) continue;
            for (const w of waiters.splice(0))
              if (w.status === e.status) w.resolve();
              else waiters.push(w);
          }
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
    });
    // The moment of the change as libvirt tells any client: a watcher of the bench's own on the host's events.
    const changes: { word: string; resolve: (at: bigint) => void }[] = [];
    const watcher = spawn('virsh', ['-q', '-c', daemon.socketUri, 'event', '--loop', '--event', 'lifecycle'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    readline.createInterface({ input: watcher.stdout }).on('line', (line) => {
      const at = process.hrtime.bigint();
      if (!line.includes(`'${ref}'`)) return;
      for (const c of changes.splice(0))
        if (line.includes(c.word)) c.resolve(at);
        else changes.push(c);
    });
    await new Promise((r) => setTimeout(r, 1000));
    const ms = (a: bigint, b: bigint) => Math.round(Number(b - a) / 1e6);
    const timed = async (status: string, word: string, act: () => Promise<unknown>) => {
      const seen = new Promise<bigint>((resolve) =>
        waiters.push({ status, resolve: () => resolve(process.hrtime.bigint()) }),
      );
      const changed = new Promise<bigint>((resolve) => changes.push({ word, resolve }));
      const t0 = process.hrtime.bigint();
      await act();
      const both = await Promise.race([
        Promise.all([seen, changed]),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 30_000)),
      ]);
      if (!both) {
        // Where it stopped: libvirt's event, the row, or the stream.
        const c = new pg.Client({ connectionString: dbUrl });
        await c.connect();
        const row = (await c.query('select status, error_reason from virtual_machines where id = $1', [vmId])).rows[0];
        const host = (await c.query('select last_error from hosts where uri like $1', [`%${daemon.socketPath}%`]))
          .rows[0];
        await c.end();
        const missed = { status, libvirtEvent: changes.length === 0, row, host };
        console.warn(`  (live) no ${status} on the stream in 30 s: ${JSON.stringify(missed)}`);
        waiters.length = 0;
        changes.length = 0;
        return { fromChange: null, fromCommand: null, command: null, missed };
      }
      const [onStream, atChange] = both;
      return { fromChange: ms(atChange, onStream), fromCommand: ms(t0, onStream), command: ms(t0, atChange) };
    };
    const rounds: ({ status: string } & Awaited<ReturnType<typeof timed>>)[] = [];
    try {
      for (let i = 0; i < EVENT_ROUNDS; i++) {
        rounds.push({
          status: 'Shutoff',
          ...(await timed('Shutoff', 'Stopped', () => daemon.virsh(daemon.socketUri, ['destroy', ref]))),
        });
        await new Promise((r) => setTimeout(r, 1000));
        rounds.push({
          status: 'Running',
          ...(await timed('Running', 'Started', () => daemon.virsh(daemon.socketUri, ['start', ref]))),
        });
        await new Promise((r) => setTimeout(r, 1000));
      }
    } finally {
      req.destroy();
      watcher.kill();
    }
    const got = rounds.filter((r) => r.fromChange !== null);
    const stop = got.filter((r) => r.status === 'Shutoff').map((r) => r.fromChange!);
    const start = got.filter((r) => r.status === 'Running').map((r) => r.fromChange!);
    return {
      stop,
      start,
      missed: rounds.length - got.length,
      medianMs: got.length ? median(got.map((r) => r.fromChange!)) : null,
      medianFromCommandMs: got.length ? median(got.map((r) => r.fromCommand!)) : null,
      rounds,
    };
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
