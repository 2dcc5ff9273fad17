/**
 * Operator commands for hosts and public address pools (docs/virtual-machines.md):
 *   host add <name> <uri> --provider <id|name> --region <id|name> [--cpus N --ram-gb N --disk-gb N]
 *            [--cpu-overcommit X --ram-overcommit X --disk-overcommit X]   capacity not given is read from the host
 *   host list | host drain <name> | host enable <name> | host remove <name>
 *   host backups <name> <1..16|default>   backup takes at once on the host (default: BACKUP_CONCURRENCY_PER_HOST)
 *   public-ip add <region> <a.b.c.d | a.b.c.d-e | a.b.c.d/nn>... | public-ip list | public-ip remove <address>
 * Each change prints what it changed; a command that changes nothing fails (exit status 1) saying why.
 */
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { createProviderRegistry } from '../providers/registry.ts';
import { HostInputError, createHostsService, expandAddresses, type Change } from '../engine/hosts/hosts.service.ts';

export const HOST_USAGE =
  'host add <name> <uri> --provider <p> --region <r> [--cpus N --ram-gb N --disk-gb N] | host list | host drain|enable|remove <name> | host backups <name> <1..16|default> | public-ip add <region> <addresses...> | public-ip list | public-ip remove <address>';

export class NothingChanged extends Error {
  override name = 'NothingChanged';
}

function changed(c: Change): string {
  if (!c.changed) throw new NothingChanged(c.message);
  return c.message;
}

function options(args: string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--')) {
      const value = args[i + 1];
      if (value === undefined) throw new Error(`${a} needs a value`);
      flags[a.slice(2)] = value;
      i++;
    } else positional.push(a);
  }
  return { positional, flags };
}

const numberOrName = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);

const HOST_FLAGS = [
  'provider',
  'region',
  'cpus',
  'ram-gb',
  'disk-gb',
  'cpu-overcommit',
  'ram-overcommit',
  'disk-overcommit',
];

/** A numeric flag, refused with its name when it is not a number (rather than zod's words about NaN). */
function num(flags: Record<string, string>, key: string): number | undefined {
  const v = flags[key];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new HostInputError(`--${key} needs a number, not "${v}"`);
  return n;
}

/** The schema's refusal as one line naming the field (e.g. `name: letters, digits, dot, dash, underscore`). */
function inputError(err: unknown): unknown {
  if (!(err instanceof z.ZodError)) return err;
  return new HostInputError(
    `Invalid host: ${err.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; ')}`,
  );
}

/** Runs a host or public-ip command; null when argv is not one (operator.ts tries its other commands). */
export async function runHostCommand(argv: string[], db: Db): Promise<string | null> {
  const [area, verb, ...rest] = argv;
  if (area !== 'host' && area !== 'public-ip') return null;
  const service = createHostsService({ db, registry: createProviderRegistry() });
  const { positional, flags } = options(rest);
  if (area === 'host' && verb === 'add' && positional.length === 2 && flags.provider && flags.region) {
    const unknown = Object.keys(flags).filter((f) => !HOST_FLAGS.includes(f));
    if (unknown.length) throw new HostInputError(`Unknown option ${unknown.map((f) => `--${f}`).join(', ')}`);
    const res = await service
      .add({
        name: positional[0]!,
        uri: positional[1]!,
        provider: numberOrName(flags.provider),
        region: numberOrName(flags.region),
        cpus: num(flags, 'cpus'),
        ramGb: num(flags, 'ram-gb'),
        diskGb: num(flags, 'disk-gb'),
        cpuOvercommit: num(flags, 'cpu-overcommit'),
        ramOvercommit: num(flags, 'ram-overcommit'),
        diskOvercommit: num(flags, 'disk-overcommit'),
      })
      .catch((err: unknown) => {
        throw inputError(err);
      });
    return changed(res);
  }
  if (area === 'host' && verb === 'list') {
    const rows = await service.list();
    return (
      rows
        .map(({ host: h, region, provider, vms }) => {
          const state = !h.enabled
            ? 'disabled'
            : h.draining
              ? vms === 0
                ? 'drained'
                : `draining (${vms} VM(s) to move)`
              : h.lastError
                ? `unreachable (${h.lastError})`
                : h.lastSeenAt
                  ? 'up'
                  : 'not seen yet';
          // A limit of its own shows after the state (the portal's default shows nothing: the columns stay as they were).
          const backups = h.backupConcurrency === null ? '' : `\t${h.backupConcurrency} backups at once`;
          return `${h.name}\t${h.uri}\t${region}\t${provider}\t${h.cpus} CPU ×${h.cpuOvercommit}, ${h.ramGb} GB ×${h.ramOvercommit}, ${h.diskGb} GB ×${h.diskOvercommit}\t${vms} VM(s)\t${state}${backups}\tlast seen ${h.lastSeenAt?.toISOString() ?? 'never'}`;
        })
        .join('\n') || 'No hosts.'
    );
  }
  if (area === 'host' && (verb === 'drain' || verb === 'enable') && positional.length === 1)
    return changed(await service.setDraining(positional[0]!, verb === 'drain'));
  if (area === 'host' && verb === 'backups' && positional.length === 2) {
    const v = positional[1]!;
    const value = v === 'default' ? null : /^\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isNaN(value))
      throw new HostInputError(`host backups needs a number from 1 to 16 or "default", not "${v}"`);
    return changed(await service.setBackupConcurrency(positional[0]!, value));
  }
  if (area === 'host' && verb === 'remove' && positional.length === 1)
    return changed(await service.remove(positional[0]!));
  if (area === 'public-ip' && verb === 'add' && positional.length >= 2) {
    return changed(
      await service.addPublicAddresses(numberOrName(positional[0]!), positional.slice(1).flatMap(expandAddresses)),
    );
  }
  if (area === 'public-ip' && verb === 'list') {
    const rows = await service.listPublicAddresses();
    return (
      rows.map((r) => `${r.region}\t${r.address}\t${r.vmId === null ? 'free' : `VM #${r.vmId}`}`).join('\n') ||
      'No public addresses.'
    );
  }
  if (area === 'public-ip' && verb === 'remove' && positional.length === 1)
    return changed(await service.removePublicAddress(positional[0]!));
  throw new Error(`Usage: operator ${HOST_USAGE}`);
}
