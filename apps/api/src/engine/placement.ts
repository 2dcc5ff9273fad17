/**
 * Where a new VM runs, for providers with registered hosts (docs/virtual-machines.md, "Hosts and placement").
 *
 * The rule: among the provider's hosts in the VM's region that are enabled, not draining and answering (the
 * host monitor saw them and recorded no error), keep those where the VM fits within capacity × overcommit for
 * vCPUs, memory and disk (counting the configurations of the live VMs placed there); then take the one whose
 * most allocated resource would be the smallest fraction afterwards (spread), lowest id on a tie. The hosts are
 * locked (FOR UPDATE) for the transaction, so two creates at once do not both take the last room.
 * A guest gets exactly its configuration's size (issue 23 item 3): a size no host can take is refused here, in words a
 * customer can act on (contract SIZE_TEXT: no room now, or larger than any host of the region can ever hold), and an
 * upgrade checks what the larger size adds on the VM's own host (refuseGrowthWithoutRoom).
 * A provider with no hosts places nothing (its settings name the one libvirt URI, or it is the simulator); a libvirt
 * provider without that URI (every reseller's) has no room there, like a full region.
 */
import { SIZE_TEXT } from '@portal/contract/messages';
import type { Tx } from '../db/client.ts';
import { BadRequestError } from '../lib/errors.ts';
import { hostLoadsByProvider, hostLoadsForUpdate, type HostLoad, type HostRow } from './hosts/hosts.repository.ts';

export type { HostLoad, HostRow } from './hosts/hosts.repository.ts';

export interface Size {
  cpu: number;
  ram: number;
  disk: number;
}
/** A configuration: its size and the name the messages give it. */
export interface NamedSize extends Size {
  name: string;
}

const EMPTY: Size = { cpu: 0, ram: 0, disk: 0 };

/** Why a host takes no new VM, or null when it may (room aside). */
export function unavailableReason(host: HostRow): string | null {
  if (!host.enabled) return 'disabled';
  if (host.draining) return 'draining';
  if (host.lastError) return 'unreachable';
  if (!host.lastSeenAt) return 'not seen yet';
  return null;
}

/** The fraction of the host's fullest resource once `size` is added; above 1 it does not fit. */
export function allocatedFraction({ host, used }: HostLoad, size: Size): number {
  return Math.max(
    (used.cpu + size.cpu) / (host.cpus * host.cpuOvercommit),
    (used.ram + size.ram) / (host.ramGb * host.ramOvercommit),
    (used.disk + size.disk) / (host.diskGb * host.diskOvercommit),
  );
}

/** Whether the host could hold `size` at all: alone on it, within capacity × overcommit. */
export function couldEverHold(host: HostRow, size: Size): boolean {
  return allocatedFraction({ host, used: EMPTY }, size) <= 1;
}

/**
 * Why no host among `loads` takes `size` in `region` (pure): larger than any of them could hold, or no room now with
 * the hosts counted by reason (unavailable ones by unavailableReason, the others full or too small for it).
 */
export function noHostText(loads: HostLoad[], size: NamedSize, region: string): string {
  const named = SIZE_TEXT.size(size);
  if (loads.length > 0 && loads.every((l) => !couldEverHold(l.host, size))) return SIZE_TEXT.tooLarge(region, named);
  const counts = new Map<string, number>();
  for (const { host } of loads) {
    const why = unavailableReason(host) ?? (couldEverHold(host, size) ? 'full' : 'too small');
    counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  const hosts = loads.length === 0 ? 'none registered' : [...counts].map(([why, n]) => `${n} ${why}`).join(', ');
  return SIZE_TEXT.noRoom(region, named, hosts);
}

/** The chosen host among loads (pure: the rule above), or null when none can take it. */
export function chooseHost(loads: HostLoad[], size: Size): HostRow | null {
  let best: { host: HostRow; fraction: number } | null = null;
  for (const load of loads) {
    if (unavailableReason(load.host)) continue;
    const fraction = allocatedFraction(load, size);
    if (fraction > 1) continue;
    if (!best || fraction < best.fraction || (fraction === best.fraction && load.host.id < best.host.id))
      best = { host: load.host, fraction };
  }
  return best?.host ?? null;
}

/** Each of the provider's hosts in the region with what its live VMs take, the hosts locked for this transaction. */
export const hostLoads = hostLoadsForUpdate;

/** The same, for several providers and without locks: a read that only foretells (the create form's size cards). */
export const hostLoadsUnlocked = hostLoadsByProvider;

/**
 * Whether a provider runs machines only on its registered hosts: a libvirt provider does (never the portal's own
 * libvirt, issue 21), unless it is the operator's and its settings name the host's URI. Without a host in the region
 * such a provider is full there.
 */
export function runsOnlyOnHosts(provider: { driver: string; resellerId: number | null; settings: unknown }): boolean {
  return (
    provider.driver === 'libvirt' &&
    (provider.resellerId !== null || typeof (provider.settings as { uri?: unknown } | null)?.uri !== 'string')
  );
}

/**
 * What placeVm would answer now for `size` among the provider's `loads` (pure, no locks; the create decides again
 * under them): null when a host takes it, 'tooLarge' when no host could ever hold it, else 'noRoom'.
 */
export function placementOutlook(loads: HostLoad[], size: Size, needsHost: boolean): null | 'noRoom' | 'tooLarge' {
  if (loads.length === 0) return needsHost ? 'noRoom' : null;
  if (chooseHost(loads, size)) return null;
  return loads.every((l) => !couldEverHold(l.host, size)) ? 'tooLarge' : 'noRoom';
}

/**
 * The host a new VM goes to: null when the provider has no hosts in the region (nothing to place), else the
 * chosen host; with hosts but none able to take it, a 400 that says why (noHostText).
 */
export async function placeVm(
  tx: Tx,
  providerId: number,
  region: { id: number; name: string },
  size: NamedSize,
  pending: Map<number, Size> = new Map(),
  /** The provider runs nothing without a host (a libvirt provider without a URI of the operator's): no host is full. */
  needsHost = false,
): Promise<HostRow | null> {
  const loads = await hostLoads(tx, providerId, region.id);
  if (loads.length === 0) {
    if (needsHost) throw new BadRequestError(noHostText([], size, region.name));
    return null;
  }
  // VMs placed earlier in the same request (numberOfInstances > 1) count too.
  for (const load of loads) {
    const extra = pending.get(load.host.id);
    if (extra)
      load.used = { cpu: load.used.cpu + extra.cpu, ram: load.used.ram + extra.ram, disk: load.used.disk + extra.disk };
  }
  const host = chooseHost(loads, size);
  if (!host) throw new BadRequestError(noHostText(loads, size, region.name));
  return host;
}

/**
 * An upgrade's room (issue 23 item 3): what the larger size adds must fit on the VM's own host, counted with what its
 * VMs hold (and the upgrades already queued there, db/host-usage.ts), under the same host locks as creates. A VM
 * without a host (a provider without hosts) is not checked. Throws a 400 that says which: no room now, or too large
 * for the host ever. Whether the host answers does not matter: the machine stays where it is.
 */
export async function refuseGrowthWithoutRoom(
  tx: Tx,
  vm: { providerId: number; regionId: number; hostId: number | null },
  current: Size,
  target: NamedSize,
): Promise<void> {
  if (vm.hostId === null) return;
  const load = (await hostLoads(tx, vm.providerId, vm.regionId)).find((l) => l.host.id === vm.hostId);
  if (!load) return;
  const growth = {
    cpu: Math.max(0, target.cpu - current.cpu),
    ram: Math.max(0, target.ram - current.ram),
    disk: Math.max(0, target.disk - current.disk),
  };
  if (allocatedFraction(load, growth) <= 1) return;
  const named = SIZE_TEXT.size(target);
  throw new BadRequestError(
    couldEverHold(load.host, target) ? SIZE_TEXT.hostNoRoom(named) : SIZE_TEXT.hostTooSmall(named),
  );
}
