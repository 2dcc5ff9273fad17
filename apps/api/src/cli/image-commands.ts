/**
 * Operator commands for images (issue 23 item 2): which images each region's pools hold (the host monitor finds them:
 * a provider's `images` map names a base volume, `providers set <p> images.<name>=<volume>`, and the built guest
 * serves `guestImages`), and which a reseller offers (decision 0014: a withdrawal is kept by name per reseller and
 * region, the same rows the reseller area's catalog writes):
 *   images list [<reseller #id|name>]                     region, image, and for a reseller offered or withdrawn
 *   images withdraw|offer <reseller> <region> <image>     as the reseller's own catalog screen does, audited
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { imageWithdrawals, images, regions, resellers } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { NothingChanged } from './hosts-commands.ts';
import { ProviderInputError } from './provider-commands.ts';

export const IMAGE_USAGE =
  'images list [<reseller #id|name>] | images withdraw|offer <reseller #id|name> <region #id|name> <image>';

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
    return (
      rows
        .map(
          (r) =>
            `${r.region}\t${r.image}${withdrawn ? `\t${withdrawn.has(`${r.regionId}\n${r.image}`) ? 'withdrawn' : 'offered'} by ${reseller!.name}` : ''}`,
        )
        .join('\n') || 'No images in any region yet (the host monitor lists the images its hosts\u2019 pools hold).'
    );
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
