/**
 * Where a new VM runs, for providers with registered hosts (docs/virtual-machines.md, "Hosts and placement").
 *
 * The rule: among the provider's hosts in the VM's region that are enabled, not draining and answering (the
 * host monitor saw them and recorded no error), keep those where the VM fits within capacity × overcommit for
 * vCPUs, memory and disk (counting the configurations of the live VMs placed there); then take the one whose
 * most allocated resource would be the smallest fraction afterwards (spread), lowest id on a tie. The hosts are
 * locked (FOR UPDATE) for the transaction, so two creates at once do not both take the last room.
 * A provider with no hosts places nothing (its settings name the one libvirt URI, or it is the simulator); a libvirt
 * provider without that URI (every reseller's) has no room there, like a full region.
 */
import type { Tx } from '../db/client.ts';
import { BadRequestError } from '../lib/errors.ts';
import { hostLoadsForUpdate, type HostLoad, type HostRow } from './hosts/hosts.repository.ts';

export type { HostLoad, HostRow } from './hosts/hosts.repository.ts';

const NO_HOST_TEXT = 'No host in this region can take this virtual machine now';
export interface Size {
  cpu: number;
  ram: number;
  disk: number;
}

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

/**
 * The host a new VM goes to: null when the provider has no hosts in the region (nothing to place), else the
 * chosen host; with hosts but none able to take it, a 400 that says why.
 */
export async function placeVm(
  tx: Tx,
  providerId: number,
  regionId: number,
  size: Size,
  pending: Map<number, Size> = new Map(),
  /** The provider runs nothing without a host (a libvirt provider without a URI of the operator's): no host is full. */
  needsHost = false,
): Promise<HostRow | null> {
  const loads = await hostLoads(tx, providerId, regionId);
  if (loads.length === 0) {
    if (needsHost) throw new BadRequestError(NO_HOST_TEXT);
    return null;
  }
  // VMs placed earlier in the same request (numberOfInstances > 1) count too.
  for (const load of loads) {
    const extra = pending.get(load.host.id);
    if (extra)
      load.used = { cpu: load.used.cpu + extra.cpu, ram: load.used.ram + extra.ram, disk: load.used.disk + extra.disk };
  }
  const host = chooseHost(loads, size);
  if (!host) {
    const why = loads.map(({ host: h }) => `${h.name}: ${unavailableReason(h) ?? 'full'}`).join(', ');
    throw new BadRequestError(`${NO_HOST_TEXT} (${why})`);
  }
  return host;
}
