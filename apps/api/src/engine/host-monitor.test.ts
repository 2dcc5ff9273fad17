/**
 * The host monitor's event watches follow the hosts table: a host whose URI changes is watched on its new URI
 * (the old watch ends), one whose provider's settings change is watched through the new driver the registry makes
 * for them, and a host that is disabled is no longer watched. The registry is the real one with a recording
 * stand-in for the libvirt driver (the libvirt tests watch a real libvirtd); the database is the real one.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { openDatabase, type Database } from '../db/client.ts';
import { hosts, providers, regions } from '../db/schema.ts';
import type { ProviderDriver } from '../providers/provider.ts';
import { createProviderRegistry } from '../providers/registry.ts';
import { seedReferenceData } from '../seed/seed.ts';
import { createVmEvents } from './vm-events.ts';
import { createHostMonitor } from './host-monitor.ts';

let database: Database;
beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  await seedReferenceData(database.db);
});
afterAll(async () => database?.close());

describe('host monitor', () => {
  it('watches a host on its current URI and stops watching it when it is disabled', async () => {
    const { db } = database;
    const [region] = await db.select().from(regions).limit(1);
    const [provider] = await db.insert(providers).values({ name: 'watch-test', driver: 'libvirt' }).returning();
    const [host] = await db
      .insert(hosts)
      .values({
        name: 'watch-a',
        uri: 'qemu+tcp://10.0.0.1/system',
        providerId: provider!.id,
        regionId: region!.id,
        cpus: 4,
        ramGb: 8,
        diskGb: 100,
      })
      .returning();

    const watches: { uri: string; stopped: boolean }[] = [];
    const registry = createProviderRegistry({
      libvirt: (settings) =>
        ({
          health: async () => ({ healthy: true, detail: null }),
          watch: () => {
            const w = { uri: (settings as { uri: string }).uri, stopped: false };
            watches.push(w);
            return () => {
              w.stopped = true;
            };
          },
        }) as unknown as ProviderDriver,
    });
    const monitor = createHostMonitor({
      db,
      registry,
      events: createVmEvents(),
      log: pino({ level: 'silent' }),
      intervalMs: 3_600_000,
      onMachineEvent: () => {},
    });
    monitor.start();
    await expect.poll(() => watches.map((w) => [w.uri, w.stopped])).toEqual([['qemu+tcp://10.0.0.1/system', false]]);

    await monitor.checkOnce();
    expect(watches).toHaveLength(1); // same URI: the same watch

    await db.update(hosts).set({ uri: 'qemu+tcp://10.0.0.2/system' }).where(eq(hosts.id, host!.id));
    await monitor.checkOnce();
    expect(watches.map((w) => [w.uri, w.stopped])).toEqual([
      ['qemu+tcp://10.0.0.1/system', true],
      ['qemu+tcp://10.0.0.2/system', false],
    ]);

    // The provider's settings change (providers set, the reseller area): a new driver, watched instead of the old.
    await db
      .update(providers)
      .set({ settings: { network: { name: 'other' } } })
      .where(eq(providers.id, provider!.id));
    await monitor.checkOnce();
    expect(watches.map((w) => [w.uri, w.stopped])).toEqual([
      ['qemu+tcp://10.0.0.1/system', true],
      ['qemu+tcp://10.0.0.2/system', true],
      ['qemu+tcp://10.0.0.2/system', false],
    ]);
    await monitor.checkOnce();
    expect(watches).toHaveLength(3);

    await db.update(hosts).set({ enabled: false }).where(eq(hosts.id, host!.id));
    await monitor.checkOnce();
    expect(watches.every((w) => w.stopped)).toBe(true);
    await monitor.stop();
  });
});
