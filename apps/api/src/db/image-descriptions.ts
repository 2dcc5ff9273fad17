/**
 * Image descriptions as the catalog, the VM module and the operator command read and write them
 * (docs/decisions/0018-image-descriptions.md). By image name: the platform's row (reseller_id null) and a
 * reseller's own; what a reseller's customers see is its own, else the platform's.
 */
import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { ImageDescription } from '@portal/contract/images';
import type { Db, Tx } from './client.ts';
import { imageDescriptions } from './schema.ts';

type Reader = Db | Tx;
export interface DescriptionRow extends ImageDescription {
  resellerId: number | null;
  image: string;
}

const fields = {
  resellerId: imageDescriptions.resellerId,
  image: imageDescriptions.image,
  osFamily: imageDescriptions.osFamily,
  version: imageDescriptions.version,
  defaultUser: imageDescriptions.defaultUser,
  minDiskGb: imageDescriptions.minDiskGb,
};
const only = (r: DescriptionRow): ImageDescription => ({
  osFamily: r.osFamily,
  version: r.version,
  defaultUser: r.defaultUser,
  minDiskGb: r.minDiskGb,
});

/** The platform's and the reseller's own rows for these names (null reseller: the platform's only). */
export async function descriptionRows(db: Reader, resellerId: number | null, names: string[]) {
  if (names.length === 0) return [];
  const whose =
    resellerId === null
      ? isNull(imageDescriptions.resellerId)
      : or(isNull(imageDescriptions.resellerId), eq(imageDescriptions.resellerId, resellerId));
  return (await db
    .select(fields)
    .from(imageDescriptions)
    .where(and(inArray(imageDescriptions.image, [...new Set(names)]), whose))) as DescriptionRow[];
}

/** Each name's platform and own description, for the reseller's catalog screen. */
export async function descriptionsFor(db: Reader, resellerId: number, names: string[]) {
  const rows = await descriptionRows(db, resellerId, names);
  return [...new Set(names)].map((image) => {
    const platform = rows.find((r) => r.image === image && r.resellerId === null);
    const own = rows.find((r) => r.image === image && r.resellerId === resellerId);
    return { image, platform: platform ? only(platform) : null, own: own ? only(own) : null };
  });
}

/** What the reseller's customers see of each name: its own description, else the platform's, else null. */
export async function effectiveDescriptions(
  db: Reader,
  resellerId: number,
  names: string[],
): Promise<Map<string, ImageDescription | null>> {
  const rows = await descriptionRows(db, resellerId, names);
  return new Map(
    names.map((image) => {
      const row =
        rows.find((r) => r.image === image && r.resellerId === resellerId) ??
        rows.find((r) => r.image === image && r.resellerId === null);
      return [image, row ? only(row) : null];
    }),
  );
}

/** Writes (or, with null, deletes) one description; the row before, for the audit log. */
export async function saveDescription(
  tx: Reader,
  resellerId: number | null,
  image: string,
  description: ImageDescription | null,
): Promise<{ before: ImageDescription | null }> {
  const key = and(
    eq(imageDescriptions.image, image),
    resellerId === null ? isNull(imageDescriptions.resellerId) : eq(imageDescriptions.resellerId, resellerId),
  );
  const [existing] = (await tx.select(fields).from(imageDescriptions).where(key).for('update')) as DescriptionRow[];
  if (!description) {
    if (existing) await tx.delete(imageDescriptions).where(key);
  } else if (existing) {
    await tx
      .update(imageDescriptions)
      .set({ ...description, updatedAt: sql`now()` })
      .where(key);
  } else {
    // Two first saves at once: the partial unique index keeps one row; the later one updates it.
    await tx
      .insert(imageDescriptions)
      .values({ resellerId, image, ...description })
      .onConflictDoNothing();
    await tx
      .update(imageDescriptions)
      .set({ ...description, updatedAt: sql`now()` })
      .where(key);
  }
  return { before: existing ? only(existing) : null };
}

/** The platform's descriptions, every one (the operator's `images list`). */
export async function platformDescriptions(db: Reader): Promise<DescriptionRow[]> {
  return (await db
    .select(fields)
    .from(imageDescriptions)
    .where(isNull(imageDescriptions.resellerId))) as DescriptionRow[];
}
