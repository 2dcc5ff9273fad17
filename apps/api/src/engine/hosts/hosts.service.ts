/**
 * The operator's hosts (libvirt hosts of a provider in a region) and public address pools: registered from
 * the operator CLI (cli/hosts-commands.ts) and the imports API. Every change says what it changed; a change
 * that changes nothing says so (`changed: false`) so the CLI can exit non-zero.
 */
import { z } from 'zod';
import { backupConcurrencySchema } from '@portal/contract/reseller-catalog';
import type { Db } from '../../db/client.ts';
import { hostErrorForTenant, type HostAccess } from '../../providers/libvirt/host-connection.ts';
import { HostUriError, parseHostUri, policyFor } from '../../providers/libvirt/host-uri.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { createHostsRepository, type HostRow } from './hosts.repository.ts';

export type { HostRow } from './hosts.repository.ts';

/** A refusal with a message meant for the operator (unknown provider or region, unreadable host, bad address). */
export class HostInputError extends Error {
  override name = 'HostInputError';
}
export interface Change {
  changed: boolean;
  message: string;
}

export const hostInputSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, dot, dash, underscore'),
    uri: z.string().regex(/^[a-z0-9+]+:\/\/[^\s]*$/, 'a libvirt URI such as qemu+ssh://root@host/system'),
    /** Provider by id or name (a libvirt provider). */
    provider: z.union([z.number().int().positive(), z.string().min(1).max(200)]),
    /** Region by id or name. */
    region: z.union([z.number().int().positive(), z.string().min(1).max(200)]),
    cpus: z.number().int().min(1).max(100_000).optional(),
    ramGb: z.number().positive().max(1_000_000).optional(),
    diskGb: z.number().positive().max(100_000_000).optional(),
    cpuOvercommit: z.number().positive().max(64).optional(),
    ramOvercommit: z.number().positive().max(64).optional(),
    diskOvercommit: z.number().positive().max(64).optional(),
  })
  .strict();
export type HostInput = z.input<typeof hostInputSchema>;

/** A change to a registered host (the reseller area, and whatever else edits one): only the fields given change. */
export const hostPatchSchema = hostInputSchema
  .pick({ cpus: true, ramGb: true, diskGb: true, cpuOvercommit: true, ramOvercommit: true, diskOvercommit: true })
  .extend({
    enabled: z.boolean().optional(),
    draining: z.boolean().optional(),
    /** Backup takes at once on the host, null: the portal's BACKUP_CONCURRENCY_PER_HOST (decision 0027). */
    backupConcurrency: backupConcurrencySchema.optional(),
  })
  .strict();
export type HostPatch = z.input<typeof hostPatchSchema>;

export function createHostsService(deps: {
  db: Db;
  registry: ProviderRegistry;
  /** How reseller hosts are reached (egress, TCP allowed); without it a reseller's provider takes no host. */
  access?: Pick<HostAccess, 'egress' | 'allowTcp'> | null;
  log?: { warn?(obj: object, msg: string): void };
}) {
  const { registry } = deps;
  const repo = createHostsRepository(deps.db);

  async function providerOf(ref: number | string) {
    const row = await repo.provider(ref);
    if (!row) throw new HostInputError(`No provider ${JSON.stringify(ref)}`);
    if (row.driver !== 'libvirt')
      throw new HostInputError(
        `Provider "${row.name}" uses the ${row.driver} driver; hosts belong to libvirt providers`,
      );
    return row;
  }
  async function regionOf(ref: number | string) {
    const row = await repo.region(ref);
    if (!row) throw new HostInputError(`No region ${JSON.stringify(ref)}`);
    return row;
  }
  const byName = (name: string) => repo.byName(name);

  return {
    /**
     * Registers a host, or updates the one of that name. Capacity not given is read from the host (which
     * must then answer); a host that answers is marked seen, so it takes VMs at once.
     */
    async add(input: HostInput, pin: { hostKey?: string | null } = {}): Promise<Change & { host: HostRow }> {
      const data = hostInputSchema.parse(input);
      const provider = await providerOf(data.provider);
      const region = await regionOf(data.region);
      // The URI is data: parsed by its owner's policy, and a reseller's host checked by the egress rule, before any
      // driver exists (issue 21). Refusals say what to fix, never what the server found.
      const tenant = provider.resellerId !== null;
      try {
        const parsed = parseHostUri(data.uri, policyFor(provider, deps.access?.allowTcp ?? false));
        if (tenant) {
          if (!deps.access) throw new HostInputError('Hosts of resellers are not enabled on this portal');
          await deps.access.egress.resolveAllowed(parsed.host!);
        }
      } catch (err) {
        if (err instanceof HostUriError) throw new HostInputError(err.message);
        throw err;
      }
      let seen: { at: Date | null; error: string | null };
      let capacity = { cpus: data.cpus, ramGb: data.ramGb, diskGb: data.diskGb };
      const driver = registry.driverFor(provider, { id: 0, uri: data.uri, hostKey: pin.hostKey ?? null });
      try {
        if (!driver.capacity) throw new HostInputError('the driver cannot read a host capacity');
        const read = await driver.capacity();
        capacity = {
          cpus: capacity.cpus ?? read.cpus,
          ramGb: capacity.ramGb ?? read.ramGb,
          diskGb: capacity.diskGb ?? read.diskGb,
        };
        seen = { at: new Date(), error: null };
      } catch (err) {
        // A tenant sees what to check, never virsh's or ssh's words (they told open ports from closed ones).
        const message = tenant ? hostErrorForTenant(err, data.uri) : (err as Error).message;
        if (tenant) deps.log?.warn?.({ err, host: data.name }, 'reseller host registration: no answer');
        if (capacity.cpus === undefined || capacity.ramGb === undefined || capacity.diskGb === undefined) {
          throw new HostInputError(
            tenant
              ? `${message}; or give the CPUs, RAM and disk`
              : `Could not read the capacity of ${data.uri} (${message}); give --cpus, --ram-gb and --disk-gb`,
          );
        }
        seen = { at: null, error: message };
      }
      const values = {
        name: data.name,
        uri: data.uri,
        providerId: provider.id,
        regionId: region.id,
        cpus: capacity.cpus!,
        ramGb: capacity.ramGb!,
        diskGb: capacity.diskGb!,
        ...(data.cpuOvercommit !== undefined && { cpuOvercommit: data.cpuOvercommit }),
        ...(data.ramOvercommit !== undefined && { ramOvercommit: data.ramOvercommit }),
        ...(data.diskOvercommit !== undefined && { diskOvercommit: data.diskOvercommit }),
        lastSeenAt: seen.at,
        lastError: seen.error,
        hostKey: pin.hostKey ?? null,
      };
      const existing = await byName(data.name);
      if (existing) {
        const host = await repo.update(existing.id, values);
        const same = (
          [
            'uri',
            'providerId',
            'regionId',
            'cpus',
            'ramGb',
            'diskGb',
            'cpuOvercommit',
            'ramOvercommit',
            'diskOvercommit',
            'hostKey',
          ] as const
        ).every((k) => existing[k] === host![k]);
        return {
          changed: !same,
          host: host!,
          message: same ? `Host ${data.name} is already registered as given.` : `Updated host ${data.name}.`,
        };
      }
      const host = await repo.insert(values);
      return {
        changed: true,
        host: host!,
        message: `Added host ${host!.name} (${host!.uri}) in ${region.name} for ${provider.name}: ${host!.cpus} CPUs, ${host!.ramGb} GB RAM, ${host!.diskGb} GB disk${seen.error ? `; not reachable now: ${seen.error}` : ''}.`,
      };
    },

    list: () => repo.list(),

    /** Changes a host's capacity, overcommit, enabled or draining; null when there is no such host. */
    async update(id: number, patch: HostPatch): Promise<{ before: HostRow; after: HostRow } | null> {
      const data = hostPatchSchema.parse(patch);
      const before = await repo.byId(id);
      if (!before) return null;
      if (Object.keys(data).length === 0) return { before, after: before };
      return { before, after: await repo.update(id, data) };
    },

    /**
     * The operator's `host backups <name> <1..16|default>` (decision 0027): how many backup takes run at once on the
     * host; null gives it back the portal's BACKUP_CONCURRENCY_PER_HOST. The runner reads it at each claim.
     */
    async setBackupConcurrency(name: string, value: number | null): Promise<Change> {
      const limit = backupConcurrencySchema.safeParse(value);
      if (!limit.success) throw new HostInputError(limit.error.issues[0]!.message);
      const host = await byName(name);
      if (!host) return { changed: false, message: `No host ${name}.` };
      const says = (v: number | null) => (v === null ? "the portal's default" : String(v));
      if (host.backupConcurrency === limit.data)
        return { changed: false, message: `Host ${name} already takes ${says(limit.data)} backups at once.` };
      await repo.update(host.id, { backupConcurrency: limit.data });
      return {
        changed: true,
        message: `Host ${name} now takes ${says(limit.data)} backups at once (was ${says(host.backupConcurrency)}).`,
      };
    },

    async setDraining(name: string, draining: boolean): Promise<Change> {
      const host = await byName(name);
      if (!host) return { changed: false, message: `No host ${name}.` };
      if (host.draining === draining && host.enabled)
        return { changed: false, message: `Host ${name} is already ${draining ? 'draining' : 'enabled'}.` };
      await repo.update(host.id, { draining, enabled: true });
      // The engine's drainer moves its VMs off, one at a time (engine/drain, docs/draining.md).
      const left = draining ? await repo.liveVms(host.id) : 0;
      return {
        changed: true,
        message: !draining
          ? `Host ${name} takes new VMs again.`
          : left === 0
            ? `Host ${name} is drained: it takes no new VMs and holds none.`
            : `Host ${name} is draining: it takes no new VMs; its ${left} VM(s) move to other hosts of its region, one at a time.`,
      };
    },

    /**
     * Removes a host unless it still has live VMs (answers their number, and removes nothing, then). The host row is
     * locked first, as placement locks it, so a VM placed meanwhile is counted.
     */
    async removeById(id: number): Promise<{ removed: boolean; liveVms: number }> {
      const { removed, liveVms } = await repo.removeIfEmpty(id);
      return { removed, liveVms };
    },

    async remove(name: string): Promise<Change> {
      const host = await byName(name);
      if (!host) return { changed: false, message: `No host ${name}.` };
      // Under the host row's lock, as placement takes it; deleted VMs keep their history, no longer pointing at it.
      const { removed, liveVms } = await repo.removeIfEmpty(host.id);
      if (!removed && liveVms > 0)
        return { changed: false, message: `Host ${name} still runs ${liveVms} VM(s); drain it and delete them first.` };
      if (!removed) return { changed: false, message: `No host ${name}.` };
      return { changed: true, message: `Removed host ${name}.` };
    },

    /** Adds addresses to a region's public pool; those already there are left as they are. */
    async addPublicAddresses(regionRef: number | string, addresses: string[]): Promise<Change> {
      const region = await regionOf(regionRef);
      const bad = addresses.filter((a) => !isIpv4(a));
      if (bad.length) throw new HostInputError(`Not IPv4 addresses: ${bad.join(', ')}`);
      const added = await repo.addPublicAddresses(region.id, addresses);
      return {
        changed: added.length > 0,
        message: `Added ${added.length} public address(es) to ${region.name}${added.length < addresses.length ? ` (${addresses.length - added.length} already in a pool)` : ''}.`,
      };
    },

    listPublicAddresses: () => repo.listPublicAddresses(),

    /** Takes a free address out of its pool; one held by a VM stays. */
    async removePublicAddress(address: string): Promise<Change> {
      const row = await repo.publicAddress(address);
      if (!row) return { changed: false, message: `No public address ${address}.` };
      if (row.vmId !== null) return { changed: false, message: `${address} is held by VM #${row.vmId}.` };
      await repo.deletePublicAddress(row.id);
      return { changed: true, message: `Removed public address ${address}.` };
    },
  };
}
export type HostsService = ReturnType<typeof createHostsService>;

/** Expands `a.b.c.d`, `a.b.c.d-e` (last octet range) or `a.b.c.d/nn` (every usable address) into addresses. */
export function expandAddresses(spec: string): string[] {
  const range = /^(\d+\.\d+\.\d+\.)(\d+)-(\d+)$/.exec(spec);
  if (range) {
    const [from, to] = [Number(range[2]), Number(range[3])];
    if (to < from || to > 255) throw new HostInputError(`Bad address range ${spec}`);
    return Array.from({ length: to - from + 1 }, (_, i) => `${range[1]}${from + i}`);
  }
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(spec);
  if (cidr) {
    const bits = Number(cidr[2]);
    if (bits < 22 || bits > 32) throw new HostInputError(`Prefix /${bits} not supported (22–32)`);
    const base = cidr[1]!.split('.').reduce((a, o) => a * 256 + Number(o), 0);
    const size = 2 ** (32 - bits);
    const net = base - (base % size);
    const first = size > 2 ? net + 1 : net;
    const last = size > 2 ? net + size - 2 : net + size - 1;
    return Array.from({ length: last - first + 1 }, (_, i) =>
      [24, 16, 8, 0].map((s) => Math.floor((first + i) / 2 ** s) % 256).join('.'),
    );
  }
  return [spec];
}

function isIpv4(a: string) {
  const parts = a.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}
