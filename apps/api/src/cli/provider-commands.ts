/**
 * Operator commands for providers' settings (issue 23 item 2: every setting a newcomer needs without SQL):
 *   providers list                                   every provider: id, name, driver, owner, enabled
 *   providers show <#id|name>                        its settings as stored (JSON), and the driver's defaults beside them
 *   providers set <#id|name> <key>=<value>...        changes settings; <key> may be dotted (publicNetwork.name=public,
 *        images.Ubuntu 24.04=ubuntu-24.04.qcow2); <value> is JSON when it parses (2, true, {"name":"x"}), else a string
 *   providers unset <#id|name> <key>...              removes settings (the driver's default applies again)
 * The whole result is checked with the driver's own schema (the one the portal parses it with) before anything is
 * written: a bad value is refused naming the setting and the rule, and nothing changes. A running portal on the same
 * PostgreSQL applies a change at its next use of the provider, without a restart (the registry compares each row's
 * settings with its driver's: registry.ts); on an on-disk PGlite the command is refused while a portal runs on it.
 * The simulator's settings apply at the next start (its machines live in its driver).
 */
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { providers, resellers } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { libvirtSettingsSchema } from '../providers/libvirt/libvirt.ts';
import { simulatorSettingsSchema } from '../providers/simulator/simulator.ts';
import { NothingChanged } from './hosts-commands.ts';

export const PROVIDER_USAGE =
  'providers list | providers show <#id|name> | providers set <#id|name> <key>=<value>... | providers unset <#id|name> <key>...';

const SCHEMAS: Record<string, z.ZodType> = { libvirt: libvirtSettingsSchema, simulator: simulatorSettingsSchema };

/**
 * Settings a driver no longer has, and why. The libvirt caps and scales went with issue 23 item 3: a guest gets
 * exactly its configuration's size. Stored ones are ignored by the driver (its schema drops unknown keys); `set`
 * refuses them by name, and the next set or unset drops those still stored, saying so.
 */
const RETIRED: Record<string, { keys: string[]; why: string }> = {
  libvirt: {
    keys: ['maxCpus', 'maxRamMb', 'maxDiskGb', 'vcpusPerCpu', 'ramMbPerGb'],
    why: 'a guest gets exactly its configuration\'s vCPUs, memory and disk, and a host too small for a size is refused it at placement (docs/operator-guide.md, "Sizes")',
  },
};

const retiredIn = (driver: string, settings: Settings) =>
  (RETIRED[driver]?.keys ?? []).filter((k) => Object.hasOwn(settings, k));

export class ProviderInputError extends Error {
  override name = 'ProviderInputError';
}

type Settings = Record<string, unknown>;

async function findProvider(db: Db, ref: string) {
  const rows = await db
    .select({
      id: providers.id,
      name: providers.name,
      driver: providers.driver,
      settings: providers.settings,
      enabled: providers.enabled,
      reseller: resellers.name,
    })
    .from(providers)
    .leftJoin(resellers, eq(resellers.id, providers.resellerId))
    .where(/^#\d+$/.test(ref) ? eq(providers.id, Number(ref.slice(1))) : undefined)
    .orderBy(asc(providers.id));
  const found = /^#\d+$/.test(ref) ? rows : rows.filter((r) => r.name.toLowerCase() === ref.toLowerCase());
  if (found.length === 0) throw new NothingChanged(`No provider ${ref}. See: providers list`);
  if (found.length > 1)
    throw new ProviderInputError(
      `${found.length} providers are called "${ref}" (${found.map((r) => `#${r.id} of ${r.reseller ?? 'the platform'}`).join(', ')}): name one by #id.`,
    );
  return found[0]!;
}

/** "a.b.c" → ['a','b','c']; the images map's keys hold spaces and dots ("Ubuntu 24.04"): images.<rest> is one key. */
function keyPath(key: string): string[] {
  if (!/^[A-Za-z][A-Za-z0-9]*(\..+)?$/.test(key))
    throw new ProviderInputError(`"${key}" is not a setting name (letters and digits, dotted for a nested one).`);
  const [first, ...rest] = key.split('.');
  if (rest.length === 0) return [first!];
  return first === 'images' ? [first, rest.join('.')] : [first!, ...rest];
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function setPath(obj: Settings, pathParts: string[], value: unknown): void {
  let at = obj;
  for (const part of pathParts.slice(0, -1)) {
    const next = at[part];
    at[part] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Settings) } : {};
    at = at[part] as Settings;
  }
  const last = pathParts.at(-1)!;
  if (value === undefined) delete at[last];
  else at[last] = value;
}

function check(driver: string, settings: Settings): void {
  const schema = SCHEMAS[driver];
  if (!schema) return;
  // Unknown keys would be dropped silently by the driver: a typo must not look like a change.
  const known = schema instanceof z.ZodObject ? Object.keys(schema.shape) : null;
  const unknown = known ? Object.keys(settings).filter((k) => !known.includes(k)) : [];
  if (unknown.length)
    throw new ProviderInputError(
      `${driver} has no setting ${unknown.map((k) => `"${k}"`).join(', ')}. Its settings: ${known!.join(', ')}.`,
    );
  const parsed = schema.safeParse(settings);
  if (!parsed.success)
    throw new ProviderInputError(
      `Not changed: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; ')}.`,
    );
}

type LibvirtParsed = z.output<typeof libvirtSettingsSchema>;
/**
 * The settings a reseller's owners change in the reseller area (Catalog, Providers, Settings), as the keys `set`
 * takes: the same fields both ways (GET/PUT /reseller/providers/:id/settings and /images).
 */
function resellerManaged(s: LibvirtParsed): string[] {
  const images = Object.entries(s.images);
  return [
    `Also in the reseller area (Catalog, Providers, Settings): pool.name=${s.pool.name} network.name=${s.network.name} publicNetwork.name=${s.publicNetwork?.name ?? '(none)'} publicNat=${s.publicNat}`,
    images.length
      ? `  images: ${images.map(([name, volume]) => `${name} -> ${volume}`).join(', ')}`
      : '  images: none mapped (the built guest serves guestImages)',
  ];
}

/** null: not a providers command. */
export async function runProviderCommand(argv: string[], db: Db): Promise<string | null> {
  const [area, verb, ref, ...rest] = argv;
  if (area !== 'providers') return null;
  if (verb === 'list' && ref === undefined) {
    const rows = await db
      .select({
        id: providers.id,
        name: providers.name,
        driver: providers.driver,
        enabled: providers.enabled,
        reseller: resellers.name,
      })
      .from(providers)
      .leftJoin(resellers, eq(resellers.id, providers.resellerId))
      .orderBy(asc(providers.id));
    return (
      rows
        .map(
          (r) =>
            `#${r.id}\t${r.name}\t${r.driver}\t${r.reseller ? `reseller ${r.reseller}` : 'platform'}\t${r.enabled ? 'enabled' : 'disabled'}`,
        )
        .join('\n') || 'No providers.'
    );
  }
  if (verb === 'show' && ref && rest.length === 0) {
    const p = await findProvider(db, ref);
    const schema = SCHEMAS[p.driver];
    const effective = schema?.safeParse(p.settings ?? {});
    return [
      `#${p.id} ${p.name} (${p.driver}, ${p.reseller ? `reseller ${p.reseller}` : 'platform'}, ${p.enabled ? 'enabled' : 'disabled'})`,
      `Settings:`,
      JSON.stringify(p.settings ?? {}, null, 2),
      ...(effective?.success ? [`With the driver's defaults:`, JSON.stringify(effective.data, null, 2)] : []),
      ...(retiredIn(p.driver, (p.settings ?? {}) as Settings).length
        ? [
            `Retired and ignored: ${retiredIn(p.driver, (p.settings ?? {}) as Settings).join(', ')} (${RETIRED[p.driver]!.why}); the next set or unset drops them.`,
          ]
        : []),
      // Last: what comes before is read as JSON by scripts (and tests) between its headings.
      ...(p.driver === 'libvirt' && effective?.success ? resellerManaged(effective.data as LibvirtParsed) : []),
    ].join('\n');
  }
  if ((verb === 'set' || verb === 'unset') && ref && rest.length > 0) {
    const p = await findProvider(db, ref);
    const before = (p.settings ?? {}) as Settings;
    const after: Settings = structuredClone(before);
    for (const arg of rest) {
      if (verb === 'set') {
        const eqAt = arg.indexOf('=');
        if (eqAt <= 0) throw new ProviderInputError(`"${arg}" is not <key>=<value> (e.g. bootTimeoutMs=300000).`);
        const key = keyPath(arg.slice(0, eqAt));
        if (RETIRED[p.driver]?.keys.includes(key[0]!))
          throw new ProviderInputError(
            `"${key[0]}" is no longer a setting: ${RETIRED[p.driver]!.why}. Nothing changed.`,
          );
        setPath(after, key, parseValue(arg.slice(eqAt + 1)));
      } else setPath(after, keyPath(arg), undefined);
    }
    // Retired settings still stored go with this change (the driver ignores them anyway).
    const dropped = retiredIn(p.driver, after);
    for (const key of dropped) delete after[key];
    check(p.driver, after);
    if (JSON.stringify(after) === JSON.stringify(before))
      throw new NothingChanged(`Provider #${p.id} ${p.name}: the settings are already so; nothing changed.`);
    await db.update(providers).set({ settings: after }).where(eq(providers.id, p.id));
    await createAudit(db).record({
      companyId: null,
      actorUserId: null,
      action: 'provider.settings.update',
      targetType: 'provider',
      targetId: p.id,
      before,
      after: { ...after, by: 'operator command' },
    });
    const changedKeys = rest.map((a) => (verb === 'set' ? a.slice(0, a.indexOf('=')) : a));
    const droppedNote = dropped.length ? ` Dropped the retired ${dropped.join(', ')}: ${RETIRED[p.driver]!.why}.` : '';
    return `Provider #${p.id} ${p.name}: ${verb === 'set' ? 'set' : 'unset'} ${changedKeys.join(', ')}.${droppedNote} ${p.driver === 'simulator' ? 'A running portal applies it when it restarts.' : 'A running portal applies it at its next use of the provider, without a restart.'}`;
  }
  throw new ProviderInputError(`Usage: ${PROVIDER_USAGE}`);
}
