/**
 * GET <api>/resellers/:resellerId/brand/:kind — an uploaded logo or tab icon, public (the sign-in page and the tab
 * show it before anyone signs in). Only bytes the upload checked are ever served, with their sniffed type,
 * `nosniff` and the API's `default-src 'none'` policy (security-headers.ts), an ETag (the SHA-256) and a cache
 * lifetime: the brand's address carries `?v=<sha>`, so a new upload is a new address.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { BRAND_ASSET_KINDS, BRAND_UPLOAD_MAX_CHARS } from '@portal/contract/reseller-branding';
import { NotFoundError } from '../../lib/errors.ts';
import type { BrandAssets } from './brand-assets.ts';

/** The upload's JSON body: its base64 plus room for the other fields. */
export const BRAND_UPLOAD_BODY_BYTES = BRAND_UPLOAD_MAX_CHARS + 4096;
/** A day: the address changes with the content, so a longer life would be safe; a day bounds a stale proxy. */
export const BRAND_ASSET_MAX_AGE_SECONDS = 86_400;

export function registerBrandAssetRoute(api: FastifyInstance, assets: BrandAssets): void {
  api.get(
    '/resellers/:resellerId/brand/:kind',
    {
      schema: {
        hide: true,
        params: z.object({
          resellerId: z.coerce.number().int().positive().max(2_147_483_647),
          kind: z.enum(BRAND_ASSET_KINDS),
        }),
        querystring: z.object({ v: z.string().max(64).optional() }),
      },
      config: { rateLimit: false },
    },
    async (request, reply) => {
      const { resellerId, kind } = request.params as { resellerId: number; kind: (typeof BRAND_ASSET_KINDS)[number] };
      const asset = await assets.get(resellerId, kind);
      if (!asset) throw new NotFoundError('No such image');
      const etag = `"${asset.sha256}"`;
      reply
        .header('etag', etag)
        .header('cache-control', `public, max-age=${BRAND_ASSET_MAX_AGE_SECONDS}`)
        .header('last-modified', asset.updatedAt.toUTCString())
        // Shown by <img> on the portal's own domains; never rendered as a document.
        .header('content-disposition', 'inline')
        .header('cross-origin-resource-policy', 'same-site');
      const match = request.headers['if-none-match'];
      if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return reply.status(304).send();
      return reply.type(asset.contentType).send(asset.bytes);
    },
  );
}
