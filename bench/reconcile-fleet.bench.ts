/**
 * The reconciler's status gathering over a fleet, per machine (`virsh domstate` for each, as before issue 22) vs
 * per host (`virsh domstats --state` once, statusAll), behind the real virsh client and libvirt's own test driver:
 * each host is a `test:///<file>` node holding its domains (no daemon; the connection is made inside virsh, so the
 * figures leave out the network: over qemu+ssh each process also pays the connect, ~355 ms in decision 0005).
 * Prints wall time, virsh processes, and CPU of the portal and of virsh (the children's CPU from /proc) for one
 * pass; then a whole reconcile pass through the reconciler itself (createReconciler with the database: the fleet's
 * VMs as rows, read host by host, each host asked once, drift followed), on in-process PGlite, or with FLEET_PG=1 on
 * a fresh database of the benchmark's PostgreSQL cluster (its CPU measured too); saves
 * bench/results/reconcile-fleet-<date>.json.
 *   node --import tsx bench/reconcile-fleet.bench.ts
 *   FLEET_HOSTS=100 FLEET_DOMAINS=100 (defaults 20 × 100); PER_VM_SAMPLE=300: per-machine calls measured, the
 *   pass extrapolated from them (a real per-machine pass over 10,000 domains takes minutes); FLEET_PG=1;
 *   FLEET_EXTRA_VMS=1000000: that many other (never provisioned) VM rows in the reconciler's database.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { createReconciler } from '../apps/api/src/engine/reconciler.ts';
import { createVmEvents } from '../apps/api/src/engine/vm-events.ts';
import { createLibvirtDriver, type LibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { refForKey } from '../apps/api/src/providers/libvirt/names.ts';
import { createProviderRegistry } from '../apps/api/src/providers/registry.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { startBenchCluster } from './lib/bench-cluster.ts';
import { postgresCpuDeltaUs, postgresCpuUs } from './lib/proc-cpu.ts';

const HOSTS = Number(process.env.FLEET_HOSTS ?? 20);
const DOMAINS = Number(process.env.FLEET_DOMAINS ?? 100);
/** VM rows added to the reconciler pass's database besides the fleet's (FLEET_EXTRA_VMS=1000000). */
const EXTRA_VMS = Number(process.env.FLEET_EXTRA_VMS ?? 0);
const PER_VM_SAMPLE = Math.min(Number(process.env.PER_VM_SAMPLE ?? 300), HOSTS * DOMAINS);
/** The reconciler's default: hosts asked at once. */
const CONCURRENCY = 8;

/** CPU of this process and of its reaped children (virsh), in ms. */
function cpuMs() {
  const f = readFileSync('/proc/self/stat', 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  const tick = 1000 / 100;
  return {
    portal: (Number(fields[11]) + Number(fields[12])) * tick,
    virsh: (Number(fields[13]) + Number(fields[14])) * tick,
  };
}

async function measure(run: () => Promise<void>) {
  const cpu0 = cpuMs();
  const t0 = process.hrtime.bigint();
  await run();
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu1 = cpuMs();
  return { wallMs, portalCpuMs: cpu1.portal - cpu0.portal, virshCpuMs: cpu1.virsh - cpu0.virsh };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'reconcile-fleet-'));
try {
  const calls = path.join(dir, 'calls');
  const wrapper = path.join(dir, 'virsh');
  const virsh = execFileSync('sh', ['-c', 'command -v virsh'], { encoding: 'utf8' }).trim();
  await writeFile(wrapper, `#!/bin/sh\necho x >> '${calls}'\nexec '${virsh}' "$@"\n`, { mode: 0o700 });
  const processes = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;

  const hosts: { driver: LibvirtDriver; refs: string[]; uri: string }[] = [];
  for (let h = 0; h < HOSTS; h++) {
    const refs = Array.from({ length: DOMAINS }, (_, i) => refForKey(`fleet-${h}-${i}`));
    const xml = refs
      .map(
        (ref, i) => `<domain type='test' xmlns:test='http://libvirt.org/schemas/domain/test/1.0'><name>${ref}</name>
  <memory>65536</memory><os><type>hvm</type></os><test:runstate>${i % 3 === 0 ? 5 : 1}</test:runstate></domain>`,
      )
      .join('\n');
    const file = path.join(dir, `host-${h}.xml`);
    await writeFile(file, `<node>${xml}</node>`);
    const uri = `test://${file}`;
    hosts.push({ driver: createLibvirtDriver({ uri, virshBinary: wrapper }), refs, uri });
  }
  writeFileSync(calls, '');

  // Per machine, as the reconciler did: one after another.
  const sample = hosts.flatMap((h) => h.refs.map((ref) => ({ driver: h.driver, ref }))).slice(0, PER_VM_SAMPLE);
  const perVm = await measure(async () => {
    for (const { driver, ref } of sample) await driver.status(ref);
  });
  const perVmProcesses = processes();
  const scale = (HOSTS * DOMAINS) / sample.length;

  const batched = async (concurrency: number) => {
    writeFileSync(calls, '');
    let seen = 0;
    const queue = [...hosts];
    const m = await measure(async () => {
      await Promise.all(
        Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
          for (let h = queue.shift(); h; h = queue.shift()) {
            const states = await h.driver.statusAll();
            seen += states.size;
          }
        }),
      );
    });
    if (seen !== HOSTS * DOMAINS) throw new Error(`statusAll saw ${seen} domains, expected ${HOSTS * DOMAINS}`);
    return { ...m, processes: processes() };
  };
  const sequential = await batched(1);
  const concurrent = await batched(CONCURRENCY);
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
    reconciler: throughReconciler,
  };
  console.log(
    `Reconcile status gathering: ${HOSTS} hosts × ${DOMAINS} domains (${HOSTS * DOMAINS} machines), virsh ${result.virsh}`,
  );
  const row = (
    name: string,
    r: { wallMs: number; portalCpuMs: number; virshCpuMs: number; processes: number },
    more = '',
  ) =>
    console.log(
      `  ${name.padEnd(40)} wall ${String(round(r.wallMs)).padStart(8)} ms   portal CPU ${String(round(r.portalCpuMs)).padStart(7)} ms   virsh CPU ${String(round(r.virshCpuMs)).padStart(8)} ms   processes ${r.processes}${more}`,
    );
  row(`per VM (×${scale.toFixed(1)} from ${sample.length})`, result.perVm.passExtrapolated);
  row('per host, one at a time', sequential);
  row(`per host, ${CONCURRENCY} at a time (statusAll only)`, concurrent);
  for (const [name, r] of [
    ['first', throughReconciler.first],
    ['steady', throughReconciler.steady],
  ] as const)
    row(
      `reconcileOnce, ${name} pass (${throughReconciler.engine})`,
      r,
      r.postgresCpuMs === null ? '' : `   PostgreSQL CPU ${r.postgresCpuMs} ms`,
    );
  console.log(
    `  first pass followed ${throughReconciler.first.changed} drifted VMs (expected ${throughReconciler.drifted}); steady pass ${throughReconciler.steady.changed}`,
  );
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
    const cluster = process.env.FLEET_PG === '1' ? startBenchCluster('fleet', 56950) : null;
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
        .values({ name: `Fleet bench ${Date.now()}`, driver: 'libvirt', settings: {} })
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
      // Other VM rows the pass must not pay for (the million in the database): never provisioned, as in
      // bench:api's seed, so outside the partial index the pass walks.
      if (EXTRA_VMS > 0) {
        await db.execute(sql`
          insert into virtual_machines (company_id, name, status, configuration_id, region_id, image, provider_id)
          select ${company!.id}, 'extra-' || g, 'Stopped', ${config!.id}, ${region!.id}, 'Debian 12', ${provider!.id}
          from generate_series(1, ${EXTRA_VMS}) g`);
        await db.execute(sql`analyze virtual_machines`);
      }
      const registry = createProviderRegistry({
        libvirt: (settings) => createLibvirtDriver({ uri: (settings as { uri: string }).uri, virshBinary: wrapper }),
      });
      const reconciler = createReconciler({
        db,
        registry,
        events: createVmEvents(),
        log: warnings,
        audit: createAudit(db),
      });
      const pass = async () => {
        writeFileSync(calls, '');
        let changed = 0;
        const pg0 = cluster ? postgresCpuUs(cluster.postmasterPid()) : null;
        const m = await measure(async () => {
          changed = await reconciler.reconcileOnce();
        });
        const postgresCpuMs =
          cluster && pg0 ? Math.round(postgresCpuDeltaUs(pg0, postgresCpuUs(cluster.postmasterPid())) / 1000) : null;
        return { ...m, wallMs: Math.round(m.wallMs), postgresCpuMs, processes: processes(), changed };
      };
      const first = await pass();
      const steady = await pass();
      // The point of the pass: virsh processes equal to the hosts, drift followed once.
      for (const p of [first, steady])
        if (p.processes !== hosts.length) throw new Error(`a pass ran ${p.processes} virsh, expected ${hosts.length}`);
      if (first.changed !== drifted || steady.changed !== 0)
        throw new Error(`passes changed ${first.changed} and ${steady.changed} VMs, expected ${drifted} and 0`);
      return { engine: database.kind, extraVmRows: EXTRA_VMS, drifted, first, steady };
    } finally {
      await database.close();
      await admin?.query(`drop database ${dbName}`);
      await admin?.end();
      cluster?.stop();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
