/**
 * The registry follows a provider's settings without a restart (issue 23 item 2): a changed setting gives a new
 * driver and closes the one it replaces; the same settings (in any key order, as jsonb returns them) keep it.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderDriver } from './provider.ts';
import { createProviderRegistry, settingsFingerprint, type DriverFactory } from './registry.ts';

/** A libvirt stand-in that records what it was made from and whether it was closed (no virsh needed). */
function recordingFactory() {
  const made: { settings: Record<string, unknown>; closed: number; driver: ProviderDriver }[] = [];
  const factory: DriverFactory = (settings) => {
    const entry = {
      settings: settings as Record<string, unknown>,
      closed: 0,
      driver: null as unknown as ProviderDriver,
    };
    entry.driver = {
      kind: 'libvirt',
      close: () => void entry.closed++,
    } as unknown as ProviderDriver;
    made.push(entry);
    return entry.driver;
  };
  return { made, factory };
}

const host = { id: 7, uri: 'qemu+ssh://root@203.0.113.5/system' };

describe('provider registry and changed settings', () => {
  it('makes a new driver when a provider setting changes, and closes the replaced one', () => {
    const { made, factory } = recordingFactory();
    const registry = createProviderRegistry({ libvirt: factory });
    const row = { id: 3, driver: 'libvirt', settings: { publicNat: true, pool: { name: 'irontech' } } };
    const first = registry.driverFor(row, host);
    // The same settings, their keys in another order (jsonb's): the same instance, nothing closed.
    expect(registry.driverFor({ ...row, settings: { pool: { name: 'irontech' }, publicNat: true } }, host)).toBe(first);
    expect(made).toHaveLength(1);

    const second = registry.driverFor(
      { ...row, settings: { ...row.settings, images: { 'Ubuntu 24.04': 'u.qcow2' } } },
      host,
    );
    expect(second).not.toBe(first);
    expect(made).toHaveLength(2);
    expect(made[0]!.closed).toBe(1);
    expect(made[1]!.closed).toBe(0);
    // The new one was made from the new settings, with the host's URI over them.
    expect(made[1]!.settings).toMatchObject({ images: { 'Ubuntu 24.04': 'u.qcow2' }, uri: host.uri });
    // And it stays while the settings do.
    expect(
      registry.driverFor({ ...row, settings: { ...row.settings, images: { 'Ubuntu 24.04': 'u.qcow2' } } }, host),
    ).toBe(second);

    // Each host of the provider follows on its own: another host's driver is made from the current settings.
    const other = registry.driverFor(
      { ...row, settings: { publicNat: false } },
      { id: 8, uri: 'qemu+ssh://root@203.0.113.6/system' },
    );
    expect(made).toHaveLength(3);
    expect(made[2]!.settings).toMatchObject({ publicNat: false });
    expect(other).not.toBe(second);

    registry.close();
    expect(made.map((m) => m.closed)).toEqual([1, 1, 1]);
  });

  it('keeps the simulator: its machines live in its driver object', () => {
    const registry = createProviderRegistry({}, { simulatorStepMs: 0 });
    const row = { id: 1, driver: 'simulator', settings: { site: 'a' } };
    const sim = registry.driverFor(row);
    expect(registry.driverFor({ ...row, settings: { site: 'b', stepMs: 5 } })).toBe(sim);
    registry.close();
  });

  it('the real libvirt factory: a changed setting gives a driver of its own', () => {
    const registry = createProviderRegistry();
    const row = { id: 2, driver: 'libvirt', settings: { uri: 'qemu:///system', session: false } };
    const a = registry.driverFor(row);
    expect(registry.driverFor({ ...row, settings: { session: false, uri: 'qemu:///system' } })).toBe(a);
    const b = registry.driverFor({ ...row, settings: { ...row.settings, network: { name: 'other' } } });
    expect(b).not.toBe(a);
    registry.close();
  });

  it('fingerprints settings by content, not key order', () => {
    expect(settingsFingerprint({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(
      settingsFingerprint({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }),
    );
    expect(settingsFingerprint({ a: 1 })).not.toBe(settingsFingerprint({ a: 2 }));
    expect(settingsFingerprint(null)).toBe(settingsFingerprint({}));
  });
});
