/** Drivers by provider row: each provider names a driver kind and its settings. */
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

export interface ProviderRegistry {
  /**
   * The driver of a provider row, or of one of its hosts (libvirt providers with registered hosts): one
   * instance per provider, and per host URI, with the host's URI over the provider's settings. A host URI that
   * fails its owner's policy (host-uri.ts), or a libvirt provider without a host and without a URI of the
   * operator's in its settings, throws HostRefusedError before any driver exists: nothing runs.
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
  const instances = new Map<string, ProviderDriver>();
  return {
    driverFor(provider, host) {
      const libvirt = provider.driver === 'libvirt';
      const onHost = host && libvirt ? host : null;
      const settings = (provider.settings ?? {}) as Record<string, unknown>;
      const id = onHost ? `${provider.id}@${onHost.uri}#${onHost.hostKey ?? ''}` : String(provider.id);
      let driver = instances.get(id);
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
        instances.set(id, driver);
      }
      return driver;
    },
    kinds: () => Object.keys(factories),
    close() {
      for (const driver of instances.values()) driver.close?.();
    },
  };
}
