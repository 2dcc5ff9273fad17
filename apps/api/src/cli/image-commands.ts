/**
 * Operator commands for images (issue 23 item 2): which images each region's pools hold (the host monitor finds them:
 * a provider's `images` map names a base volume, `providers set <p> images.<name>=<volume>`, and the built guest
 * serves `guestImages`), and which a reseller offers (decision 0014: a withdrawal is kept by name per reseller and
 * region, the same rows the reseller area's catalog writes):
 *   images list [<reseller #id|name>]                     region, image, its description (OS and version, default
 *                                                          user, minimum disk), and for a reseller offered or withdrawn
 *   images withdraw|offer <reseller> <region> <image>     as the reseller's own catalog screen does, audited
 *   images describe <image> --os <family> --version <v> --user <login> --min-disk <GB>
 *                                                          the platform's description (decision 0018): every reseller's
 *                                                          customers see it unless the reseller describes the image
 *                                                          itself; a new description takes all four, a change any of them
 *   images undescribe <image>                             removes the platform's description (the login is then root)
 * Adding an image is the provider's images map plus a description: `providers set <p> images.<name>=<volume>`, then
 * `images describe <name> ...` (docs/operator-guide.md "Images").
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db, Tx } from '../db/client.ts';
import { imageWithdrawals, images, regions, resellers } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import {
  DEFAULT_IMAGE_USER,
  IMAGE_TEXT,
  OS_FAMILY_LABELS,
  imageDescriptionSchema,
  imageNameSchema,
  type ImageDescription,
} from '@portal/contract/images';
import {
  descriptionRows,
  effectiveDescriptions,
  platformDescriptions,
  saveDescription,
} from '../db/image-descriptions.ts';
import { NothingChanged } from './hosts-commands.ts';
import { ProviderInputError } from './provider-commands.ts';

export const IMAGE_USAGE =
  'images list [<reseller #id|name>] | images withdraw|offer <reseller #id|name> <region #id|name> <image> | ' +
  'images describe <image> --os <family> --version <v> --user <login> --min-disk <GB> | images undescribe <image>';

const FLAGS: Record<string, keyof ImageDescription> = {
  '--os': 'osFamily',
  '--version': 'version',
  '--user': 'defaultUser',
  '--min-disk': 'minDiskGb',
};

/** "debian 12\troot\t2 GB", or dashes for an image nobody described. */
const columns = (d: ImageDescription | null | undefined) =>
  d ? `${d.osFamily} ${d.version}\t${d.defaultUser}\t${d.minDiskGb} GB` : '-\t-\t-';

/** `images describe`'s flags as a description: all four for a new one, any for a change of `current`. */
function describedBy(args: string[], current: ImageDescription | null): ImageDescription {
  const given: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i += 2) {
    const field = FLAGS[args[i]!];
    const value = args[i + 1];
    if (!field || value === undefined) throw new ProviderInputError(`Usage: ${IMAGE_USAGE}`);
    given[field] = field === 'minDiskGb' && /^\d+$/.test(value) ? Number(value) : value;
  }
  if (Object.keys(given).length === 0) throw new ProviderInputError(`Usage: ${IMAGE_USAGE}`);
  const parsed = imageDescriptionSchema.safeParse({ ...current, ...given });
  if (!parsed.success) {
    const missing = Object.entries(FLAGS)
      .filter(([, field]) => current === null && given[field] === undefined)
      .map(([flag]) => flag);
    if (missing.length) throw new ProviderInputError(`Not described: a new description needs ${missing.join(', ')}.`);
    throw new ProviderInputError(`Not described: ${parsed.error.issues.map((i) => i.message).join('; ')}.`);
  }
  return parsed.data;
}

async function byRef<T extends { id: number; name: string }>(rows: T[], ref: string, what: string): Promise<T> {
  const found = /^#\d+$/.test(ref)
    ? rows.filter((r) => r.id === Number(ref.slice(1)))
    : rows.filter((r) => r.name.toLowerCase() === ref.toLowerCase());
  if (found.length === 0) throw new NothingChanged(`No ${what} ${ref}.`);
  if (found.length > 1) throw new ProviderInputError(`${found.length} ${what}s are called "${ref}": name one by #id.`);
  return found[0]!;
}

const resellerRows = (db: Db) => db.select({ id: resellers.id, name: resellers.name }).from(resellers);
const regionRows = (db: Db) => db.select({ id: regions.id, name: regions.name }).from(regions);

/** The audit entry of an operator's change to an image's platform description (`image.describe`, as the reseller area's). */
function auditDescribe(db: Db, tx: Tx, image: string, before: unknown, after: unknown) {
  return createAudit(db).record(
    {
      companyId: null,
      actorUserId: null,
      action: 'image.describe',
      targetType: 'image',
      targetId: image,
      before,
      after,
    },
    tx,
  );
}

/** null: not an images command. */
export async function runImageCommand(argv: string[], db: Db): Promise<string | null> {
  const [area, verb, ...args] = argv;
  if (area !== 'images') return null;
  if (verb === 'list' && args.length <= 1) {
    const reseller = args[0] ? await byRef(await resellerRows(db), args[0], 'reseller') : null;
    const rows = await db
      .select({ region: regions.name, regionId: regions.id, image: images.name })
      .from(images)
      .innerJoin(regions, eq(regions.id, images.regionId))
      .orderBy(asc(regions.name), asc(images.name));
    const names = rows.map((r) => r.image);
    // A reseller's customers see its own description, else the platform's; without a reseller, the platform's.
    const platform = await platformDescriptions(db);
    const described: Map<string, ImageDescription | null> = reseller
      ? await effectiveDescriptions(db, reseller.id, names)
      : new Map(platform.map((d) => [d.image, d]));
    const unlisted = reseller
      ? []
      : platform.filter((d) => !names.includes(d.image)).sort((a, b) => (a.image < b.image ? -1 : 1));
    const withdrawn = reseller
      ? new Set(
          (
            await db
              .select({ regionId: imageWithdrawals.regionId, image: imageWithdrawals.image })
              .from(imageWithdrawals)
              .where(eq(imageWithdrawals.resellerId, reseller.id))
          ).map((w) => `${w.regionId}\n${w.image}`),
        )
      : null;
    const lines = [
      ...rows.map(
        (r) =>
          `${r.region}\t${r.image}\t${columns(described.get(r.image))}${withdrawn ? `\t${withdrawn.has(`${r.regionId}\n${r.image}`) ? 'withdrawn' : 'offered'} by ${reseller!.name}` : ''}`,
      ),
      // Described before any pool holds it (or after the last one dropped it).
      ...unlisted.map((d) => `(no region)\t${d.image}\t${columns(d)}`),
    ];
    if (rows.length === 0)
      lines.unshift('No images in any region yet (the host monitor lists the images its hosts\u2019 pools hold).');
    return lines.join('\n');
  }
  if (verb === 'describe' && args.length >= 1) {
    const [image, ...flags] = args as [string, ...string[]];
    const name = imageNameSchema.safeParse(image);
    if (!name.success) throw new ProviderInputError(`Not described: ${IMAGE_TEXT.imageName}.`);
    const [current] = await descriptionRows(db, null, [image]);
    const description = describedBy(
      flags,
      current
        ? {
            osFamily: current.osFamily,
            version: current.version,
            defaultUser: current.defaultUser,
            minDiskGb: current.minDiskGb,
          }
        : null,
    );
    await db.transaction(async (tx) => {
      const { before } = await saveDescription(tx, null, image, description);
      await auditDescribe(db, tx, image, before, { ...description, by: 'operator command' });
    });
    const [listed] = await db.select({ id: images.id }).from(images).where(eq(images.name, image)).limit(1);
    const what = `${image}: ${OS_FAMILY_LABELS[description.osFamily]} ${description.version}, user ${description.defaultUser}, at least ${description.minDiskGb} GB of disk.`;
    return listed
      ? `Described ${what} New machines of it log in as ${description.defaultUser}; a reseller's own description wins for its customers.`
      : `Described ${what} No region lists it yet: the host monitor adds it once a pool holds its volume (providers set <provider> images.${image}=<volume>).`;
  }
  if (verb === 'undescribe' && args.length === 1) {
    const image = args[0]!;
    const before = await db.transaction(async (tx) => {
      const { before } = await saveDescription(tx, null, image, null);
      if (!before) throw new NothingChanged(`${image} has no platform description; nothing changed.`);
      await auditDescribe(db, tx, image, before, { description: null, by: 'operator command' });
      return before;
    });
    return `${image} is no longer described (it was ${OS_FAMILY_LABELS[before.osFamily]} ${before.version}); new machines of it log in as ${DEFAULT_IMAGE_USER} unless a reseller describes it.`;
  }
  if ((verb === 'withdraw' || verb === 'offer') && args.length === 3) {
    const [resellerRef, regionRef, image] = args as [string, string, string];
    const reseller = await byRef(await resellerRows(db), resellerRef, 'reseller');
    const region = await byRef(await regionRows(db), regionRef, 'region');
    const [row] = await db
      .select({ id: images.id })
      .from(images)
      .where(and(eq(images.regionId, region.id), eq(images.name, image)));
    if (!row) throw new NothingChanged(`${region.name} has no image "${image}". See: images list`);
    const withdraw = verb === 'withdraw';
    const key = and(
      eq(imageWithdrawals.resellerId, reseller.id),
      eq(imageWithdrawals.regionId, region.id),
      eq(imageWithdrawals.image, image),
    );
    await db.transaction(async (tx) => {
      const [before] = await tx.select().from(imageWithdrawals).where(key);
      if (!!before === withdraw)
        throw new NothingChanged(
          `${reseller.name} already ${withdraw ? 'withdrew' : 'offers'} ${image} in ${region.name}; nothing changed.`,
        );
      if (withdraw) await tx.insert(imageWithdrawals).values({ resellerId: reseller.id, regionId: region.id, image });
      else await tx.delete(imageWithdrawals).where(key);
      const target = { resellerId: reseller.id, regionId: region.id, image };
      await createAudit(db).record(
        {
          companyId: null,
          actorUserId: null,
          action: 'catalog.image.save',
          targetType: 'image',
          targetId: row.id,
          before: { ...target, offered: withdraw },
          after: { ...target, offered: !withdraw, by: 'operator command' },
        },
        tx,
      );
    });
    return `${reseller.name} ${withdraw ? 'no longer offers' : 'now offers'} ${image} in ${region.name}.`;
  }
  throw new ProviderInputError(`Usage: ${IMAGE_USAGE}`);
}
