/** Drivers by provider row: each provider names a driver kind and its settings. */
import type { ProviderDriver } from './provider.ts';
import { createLibvirtDriver, libvirtSettingsSchema } from './libvirt/libvirt.ts';
import { createSimulatorDriver, simulatorSettingsSchema } from './simulator/simulator.ts';

export type DriverFactory = (settings: unknown) => ProviderDriver;

export interface ProviderRegistry {
  /** The driver of a provider row (one instance per provider id). */
  driverFor(provider: { id: number; driver: string; settings: unknown }): ProviderDriver;
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
  const instances = new Map<number, ProviderDriver>();
  return {
    driverFor(provider) {
      let driver = instances.get(provider.id);
      if (!driver) {
        const factory = factories[provider.driver];
        if (!factory) throw new Error(`Unknown provider driver "${provider.driver}"`);
        driver = factory(provider.settings);
        instances.set(provider.id, driver);
      }
      return driver;
    },
    kinds: () => Object.keys(factories),
  };
}
