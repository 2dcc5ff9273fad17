/** Drivers by provider row: each provider names a driver kind and its settings. */
import type { ProviderDriver } from './provider.ts';
import { createLibvirtDriver, libvirtSettingsSchema } from './libvirt/libvirt.ts';
import { createSimulatorDriver, simulatorSettingsSchema } from './simulator/simulator.ts';

/** A registered host a driver runs on (the `hosts` table). */
export interface HostRef {
  id: number;
  uri: string;
}

export type DriverFactory = (settings: unknown) => ProviderDriver;

export interface ProviderRegistry {
  /**
   * The driver of a provider row, or of one of its hosts (libvirt providers with registered hosts): one
   * instance per provider, and per host URI, with the host's URI over the provider's settings.
   */
  driverFor(provider: { id: number; driver: string; settings: unknown }, host?: HostRef | null): ProviderDriver;
  kinds(): string[];
}

export function createProviderRegistry(
  overrides: Record<string, DriverFactory> = {},
  defaults: { simulatorStepMs?: number } = {},
): ProviderRegistry {
  const factories: Record<string, DriverFactory> = {
    simulator: (settings) => {
      const parsed = simulatorSettingsSchema.parse(settings ?? {});
      return createSimulatorDriver({ ...parsed, stepMs: parsed.stepMs ?? defaults.simulatorStepMs ?? 2000 });
    },
    libvirt: (settings) => createLibvirtDriver(libvirtSettingsSchema.parse(settings ?? {})),
    ...overrides,
  };
  const instances = new Map<string, ProviderDriver>();
  return {
    driverFor(provider, host) {
      const onHost = host && provider.driver === 'libvirt' ? host : null;
      const id = onHost ? `${provider.id}@${onHost.uri}` : String(provider.id);
      let driver = instances.get(id);
      if (!driver) {
        const factory = factories[provider.driver];
        if (!factory) throw new Error(`Unknown provider driver "${provider.driver}"`);
        const settings = onHost
          ? { ...((provider.settings ?? {}) as Record<string, unknown>), uri: onHost.uri }
          : provider.settings;
        driver = factory(settings);
        instances.set(id, driver);
      }
      return driver;
    },
    kinds: () => Object.keys(factories),
  };
}
