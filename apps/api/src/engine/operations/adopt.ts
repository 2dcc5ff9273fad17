/**
 * Drivers that can forget their machines (the simulator, when the portal restarts) take them back
 * before anything acts on them. Shared by the runner (before an action) and the reconciler.
 */
import { OPERATIONS, VM_OFF_STATUSES, type VmStatus } from '@portal/contract/vm-lifecycle';
import type { configurations, virtualMachines } from '../../db/schema.ts';
import type { MachineSpec, ProviderDriver } from '../../providers/provider.ts';

export interface StoredMachine {
  vm: typeof virtualMachines.$inferSelect;
  config: typeof configurations.$inferSelect;
  region: string;
}

/** Statuses whose machine comes back powered off: at rest off, or on its way there. */
const COMES_BACK_OFF: readonly VmStatus[] = [...VM_OFF_STATUSES, OPERATIONS.stop.runningStatus];

export function specOf({ vm, config, region }: StoredMachine): MachineSpec {
  return {
    key: `vm-${vm.id}`,
    name: vm.name,
    image: vm.image,
    cpu: config.cpu,
    ramGb: config.ram,
    diskGb: config.disk,
    region,
    username: vm.sshUsername,
    publicKey: vm.publicKey ?? '',
    // The customer's chosen keys as copied at create (issue 23 item 5).
    authorizedKeys: vm.sshKeys.map((k) => k.publicKey),
    password: '',
    publicIp: vm.publicIp,
  };
}

/** Adopts the VM's machine when the driver no longer knows it and can; true when it did. */
export async function adoptIfMissing(driver: ProviderDriver, stored: StoredMachine): Promise<boolean> {
  const { vm } = stored;
  if (!vm.providerRef || !driver.adopt) return false;
  if ((await driver.status(vm.providerRef)) !== 'missing') return false;
  // Stopped, Shutoff and a stop under way come back powered off; anything else as it was, running.
  const state = COMES_BACK_OFF.includes(vm.status) ? 'stopped' : 'running';
  await driver.adopt(vm.providerRef, specOf(stored), state, { publicIp: vm.publicIp, privateIp: vm.privateIp });
  return true;
}
