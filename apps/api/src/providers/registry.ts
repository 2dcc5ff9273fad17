/** Drivers by provider row: each provider names a driver kind and its settings. */
import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { ProviderDriver } from './provider.ts';
import { createLibvirtDriver, libvirtSettingsSchema } from './libvirt/libvirt.ts';
import { HostRefusedError, hostTarget, type HostAccess, type HostTarget } from './libvirt/host-connection.ts';
import { createSimulatorDriver, simulatorSettingsSchema } from './simulator/simulator.ts';

/** A registered host a driver runs on (the `hosts` table). */
export interface HostRef {
  id: number;
  uri: string;
  /** The pinned SSH host key of a reseller's qemu+ssh host. */
  hostKey?: string | null;
}

/** What a driver is made for: the provider row (its owner decides the URI policy). */
export interface ProviderRef {
  id: number;
  driver: string;
  settings: unknown;
  resellerId?: number | null;
}

export type DriverFactory = (settings: unknown, target?: HostTarget) => ProviderDriver;

/** A libvirt provider asked for without a host it may use: it places nothing (never the portal's own libvirt). */
export const NO_USABLE_HOST = 'This provider has no usable host';

/**
 * Drivers whose machines live in the driver object itself (the simulator's are in its memory): a new instance would
 * lose them, so a settings change reaches them at the next start only.
 */
const IN_PROCESS_DRIVERS = new Set(['simulator']);

/** The same settings give the same text whatever the order of their keys (jsonb does not keep it). */
export function settingsFingerprint(settings: unknown): string {
  const canonical = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
        )
      : Array.isArray(v)
        ? v.map(canonical)
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(settings ?? {})))
    .digest('base64url')
    .slice(0, 16);
}

export interface ProviderRegistry {
  /**
   * The driver of a provider row, or of one of its hosts (libvirt providers with registered hosts): one
   * instance per provider, and per host URI, with the host's URI over the provider's settings. A host URI that
   * fails its owner's policy (host-uri.ts), or a libvirt provider without a host and without a URI of the
   * operator's in its settings, throws HostRefusedError before any driver exists: nothing runs.
   * The row's settings are compared with those the instance was made from (settingsFingerprint): changed ones
   * (`providers set`, the reseller area's provider settings) make a new instance at once, no restart, and the old
   * one is closed (calls already running on it finish; close only ends its virsh session). Not for the simulator,
   * whose machines live in its driver object (IN_PROCESS_DRIVERS).
   */
  driverFor(provider: ProviderRef, host?: HostRef | null): ProviderDriver;
  kinds(): string[];
  /** Ends what every driver keeps open to its host (libvirt's virsh sessions); the portal is closing. */
  close(): void;
}

export function createProviderRegistry(
  overrides: Record<string, DriverFactory> = {},
  defaults: { simulatorStepMs?: number; clock?: Clock } = {},
  /** How reseller hosts are reached (egress, keys); without it they are refused. */
  access: HostAccess | null = null,
): ProviderRegistry {
  const factories: Record<string, DriverFactory> = {
    simulator: (settings) => {
      const parsed = simulatorSettingsSchema.parse(settings ?? {});
      return createSimulatorDriver({
        ...parsed,
        stepMs: parsed.stepMs ?? defaults.simulatorStepMs ?? 2000,
        ...(defaults.clock ? { clock: defaults.clock } : {}),
      });
    },
    libvirt: (settings, target) => createLibvirtDriver(libvirtSettingsSchema.parse(settings ?? {}), target),
    ...overrides,
  };
  const instances = new Map<string, { driver: ProviderDriver; settings: string }>();
  return {
    driverFor(provider, host) {
      const libvirt = provider.driver === 'libvirt';
      const onHost = host && libvirt ? host : null;
      const settings = (provider.settings ?? {}) as Record<string, unknown>;
      const id = onHost ? `${provider.id}@${onHost.uri}#${onHost.hostKey ?? ''}` : String(provider.id);
      const fingerprint = IN_PROCESS_DRIVERS.has(provider.driver) ? '' : settingsFingerprint(settings);
      const cached = instances.get(id);
      let driver = cached?.settings === fingerprint ? cached.driver : undefined;
      if (!driver) {
        const factory = factories[provider.driver];
        if (!factory) throw new Error(`Unknown provider driver "${provider.driver}"`);
        let target: HostTarget | undefined;
        if (onHost) target = hostTarget(provider, onHost, access);
        else if (libvirt) {
          // Without a host only an operator's provider that names its URI runs: never the default qemu:///system.
          if (provider.resellerId != null || typeof settings.uri !== 'string')
            throw new HostRefusedError(NO_USABLE_HOST);
          target = hostTarget(provider, { uri: settings.uri }, access);
        }
        driver = factory(onHost ? { ...settings, uri: onHost.uri } : provider.settings, target);
        instances.set(id, { driver, settings: fingerprint });
        // Made from settings that changed since: its session ends; a call still running on it finishes (and a
        // later one would only reopen it).
        cached?.driver.close?.();
      }
      return driver;
    },
    kinds: () => Object.keys(factories),
    close() {
      for (const { driver } of instances.values()) driver.close?.();
    },
  };
}
