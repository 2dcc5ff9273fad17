/**
 * A reseller's uploaded logo and tab icon (issue 25 item 8; docs/branding.md "Uploads"): checked by their bytes
 * (image-sniff.ts), kept in reseller_brand_assets, served publicly at `<api>/resellers/:id/brand/:kind?v=<sha>`.
 */
import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import {
  BRAND_ASSET_MAX_BYTES,
  BRANDING_TEXT,
  uploadTooLargeText,
  type BrandAssetKind,
} from '@portal/contract/reseller-branding';
import type { Db, Tx } from '../../db/client.ts';
import { resellerBrandAssets } from '../../db/schema.ts';
import { BadRequestError } from '../../lib/errors.ts';
import { sniffImage, type ImageType } from './image-sniff.ts';

/** Pixel limits: a favicon is 16 px at least; nothing is drawn bigger than a few hundred. */
export const MIN_SIDE = 16;
export const MAX_SIDE = 4096;

export interface CheckedImage {
  bytes: Buffer;
  contentType: ImageType;
  sha256: string;
  width: number;
  height: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The upload's bytes as an accepted image, or a 400 that says what is wrong with it. */
export function checkUpload(kind: BrandAssetKind, base64: string): CheckedImage {
  const data = base64.replace(/\s+/g, '');
  if (!BASE64.test(data) || data.length % 4 === 1) throw new BadRequestError(BRANDING_TEXT.uploadNotImage);
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length === 0) throw new BadRequestError(BRANDING_TEXT.uploadEmpty);
  if (bytes.length > BRAND_ASSET_MAX_BYTES[kind]) throw new BadRequestError(uploadTooLargeText(kind));
  const sniffed = sniffImage(bytes);
  if (sniffed.type === 'svg') throw new BadRequestError(BRANDING_TEXT.uploadSvg);
  if (sniffed.type === null || sniffed.type === 'damaged') throw new BadRequestError(BRANDING_TEXT.uploadNotImage);
  const { width, height } = sniffed;
  if (width < MIN_SIDE || height < MIN_SIDE || width > MAX_SIDE || height > MAX_SIDE)
    throw new BadRequestError(BRANDING_TEXT.uploadDimensions);
  return {
    bytes,
    contentType: sniffed.type,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    width,
    height,
  };
}

/** The address the brand stores: relative, so it serves on every domain of the portal. */
export const assetPath = (apiBasePath: string, resellerId: number, kind: BrandAssetKind, sha256: string) =>
  `${apiBasePath}/resellers/${resellerId}/brand/${kind}?v=${sha256.slice(0, 16)}`;

export function createBrandAssets(db: Db) {
  return {
    async put(tx: Tx, resellerId: number, kind: BrandAssetKind, image: CheckedImage, now: Date): Promise<void> {
      const row = {
        bytes: image.bytes,
        contentType: image.contentType,
        sha256: image.sha256,
        width: image.width,
        height: image.height,
        updatedAt: now,
      };
      await tx
        .insert(resellerBrandAssets)
        .values({ resellerId, kind, ...row })
        .onConflictDoUpdate({ target: [resellerBrandAssets.resellerId, resellerBrandAssets.kind], set: row });
    },
    async get(resellerId: number, kind: BrandAssetKind) {
      const [row] = await db
        .select({
          bytes: resellerBrandAssets.bytes,
          contentType: resellerBrandAssets.contentType,
          sha256: resellerBrandAssets.sha256,
          updatedAt: resellerBrandAssets.updatedAt,
        })
        .from(resellerBrandAssets)
        .where(and(eq(resellerBrandAssets.resellerId, resellerId), eq(resellerBrandAssets.kind, kind)));
      return row ?? null;
    },
  };
}
export type BrandAssets = ReturnType<typeof createBrandAssets>;
