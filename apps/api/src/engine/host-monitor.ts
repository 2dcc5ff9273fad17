/**
 * Watches the registered hosts: each is asked (the driver's health, bounded by a timeout) on a timer. A host
 * that stops answering is recorded (hosts.last_error), placement stops choosing it, and its VMs keep their
 * last known status with a reason saying the host is unreachable; when it answers again the reason goes.
 * The runner retries actions on its VMs until it answers (runner.ts).
 */
import { and, eq, isNull, like, notInArray, or } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import { images, virtualMachines } from '../db/schema.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { hostErrorForTenant } from '../providers/libvirt/host-connection.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { createHostsRepository, type HostRow } from './hosts/hosts.repository.ts';
import { publishVm, type VmEvents } from './vm-events.ts';
import { createPeriodic, limiter } from './periodic.ts';

/** The reason a VM on an unreachable host shows; it starts the same way for every VM of that host. */
export const hostUnreachableReason = (hostName: string, error: string) =>
  `Host ${hostName} is unreachable; showing the last known status (${error.slice(0, 200)})`;
const reasonPrefix = (hostName: string) => `Host ${hostName} is unreachable%`;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

export function createHostMonitor(opts: {
  db: Db;
  registry: ProviderRegistry;
  events: VmEvents;
  log: FastifyBaseLogger;
  clock?: Clock;
  intervalMs?: number;
  timeoutMs?: number;
  /** The check's writes at once, whatever the number of hosts (default 2). */
  dbConcurrency?: number;
  /** Called when a host's engine reports a machine's state changed (the reconciler looks at once). */
  onMachineEvent?: (ref: string, hostId: number) => void;
}) {
  const { db, registry, events, log } = opts;
  const clock = opts.clock ?? systemClock;
  const hostsRepo = createHostsRepository(db);
  const dbSlot = limiter(opts.dbConcurrency ?? 2);
  /**
   * Event subscriptions by host id, with the driver each watches through: one per enabled host while the monitor
   * runs, made again when the host's driver changes (its URI, or its provider's settings: registry.ts) and ended
   * when the host is disabled or gone.
   */
  type Driver = ReturnType<typeof registry.driverFor>;
  const watching = new Map<number, { driver: Driver; stop: () => void }>();
  function watch(host: HostRow, driver: Driver) {
    if (!loop.started || !opts.onMachineEvent || !driver.watch) return;
    const current = watching.get(host.id);
    if (current?.driver === driver) return;
    current?.stop();
    const onEvent = opts.onMachineEvent;
    watching.set(host.id, { driver, stop: driver.watch((ref) => onEvent(ref, host.id)) });
  }
  function unwatchAllBut(hostIds: Set<number>) {
    for (const [id, { stop }] of watching)
      if (!hostIds.has(id)) {
        stop();
        watching.delete(id);
      }
  }

  async function markVms(host: HostRow, error: string | null) {
    const live = and(eq(virtualMachines.hostId, host.id), isNull(virtualMachines.deletedAt));
    const updated = error
      ? await db
          .update(virtualMachines)
          .set({ errorReason: hostUnreachableReason(host.name, error), updatedAt: clock.now() })
          .where(
            and(
              live,
              or(isNull(virtualMachines.errorReason), like(virtualMachines.errorReason, reasonPrefix(host.name))),
            ),
          )
          .returning()
      : await db
          .update(virtualMachines)
          .set({ errorReason: null, updatedAt: clock.now() })
          .where(and(live, like(virtualMachines.errorReason, reasonPrefix(host.name))))
          .returning();
    for (const vm of updated) publishVm(events, vm);
  }

  /**
   * A region with hosts lists the images that really exist in its hosts' pools: after a round in which every
   * enabled host of the region answered, missing names are added and names no host has are removed. Regions
   * without hosts (simulator providers) keep their seeded catalog.
   */
  async function syncImages(byRegion: Map<number, { complete: boolean; names: Set<string> }>) {
    for (const [regionId, { complete, names }] of byRegion) {
      if (!complete) continue;
      const list = [...names];
      if (list.length)
        await db
          .insert(images)
          .values(list.map((name) => ({ regionId, name })))
          .onConflictDoNothing();
      await db
        .delete(images)
        .where(and(eq(images.regionId, regionId), list.length ? notInArray(images.name, list) : undefined));
    }
  }

  /** Asks every enabled host once; answers how many changed between answering and not. */
  async function checkOnce(): Promise<number> {
    const rows = await hostsRepo.enabledWithProviders();
    let changed = 0;
    const byRegion = new Map<number, { complete: boolean; names: Set<string> }>();
    for (const { host } of rows) byRegion.set(host.regionId, { complete: true, names: new Set() });
    unwatchAllBut(new Set(rows.map(({ host }) => host.id)));
    await Promise.all(
      rows.map(async ({ host, provider }) => {
        let failure: unknown = null;
        try {
          // A stored URI that fails its owner's policy (stored before issue 21) throws here: it is never run.
          const driver = registry.driverFor(provider, host);
          watch(host, driver);
          const { healthy, detail } = await withTimeout(driver.health(), opts.timeoutMs ?? 15_000);
          if (!healthy) failure = new Error(String((detail as { error?: unknown } | null)?.error ?? 'unhealthy'));
          else if (driver.images)
            for (const name of await withTimeout(driver.images(), opts.timeoutMs ?? 15_000))
              byRegion.get(host.regionId)!.names.add(name);
        } catch (err) {
          failure = err;
        }
        let error = failure === null ? null : failure instanceof Error ? failure.message : String(failure);
        // A reseller sees what to check, never what virsh or ssh said (that goes to the log).
        if (failure !== null && provider.resellerId !== null) {
          if (host.lastError === null) log.warn({ host: host.name, err: failure }, `reseller host ${host.name} fails`);
          error = hostErrorForTenant(failure, host.uri);
        }
        if (error) byRegion.get(host.regionId)!.complete = false;
        const wasDown = host.lastError !== null;
        // Every host answers at once, but its writes take turns: the pool's other connections serve requests.
        await dbSlot(() => hostsRepo.recordCheck(host.id, error, clock.now()));
        if (wasDown !== (error !== null)) {
          changed++;
          if (error) log.warn({ host: host.name }, `host ${host.name} is unreachable: ${error}`);
          else log.info({ host: host.name }, `host ${host.name} answers again`);
        }
        // Marked (or cleared) every round: VMs placed meanwhile get the reason too.
        await dbSlot(() => markVms(host, error));
      }),
    );
    await syncImages(byRegion);
    return changed;
  }

  const loop = createPeriodic(checkOnce, { intervalMs: opts.intervalMs ?? 10_000, log, what: 'host monitor' });

  return {
    checkOnce,
    /** A check now, or the one under way (the first after start: the bench's engine start-up waits for it). */
    pass: loop.pass,
    start: loop.start,
    async stop() {
      await loop.stop();
      unwatchAllBut(new Set());
    },
  };
}
