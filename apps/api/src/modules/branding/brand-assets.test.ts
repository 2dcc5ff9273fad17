/**
 * Uploaded logos and tab icons, and the accent colour (issue 25 item 8; docs/branding.md): the type is read from
 * the bytes (a PNG named .svg and sent as image/svg+xml is a PNG; HTML, SVG, empty, oversize and absurdly sized
 * files are refused with a clear message), another reseller cannot replace yours, the image is served publicly
 * with its type, nosniff, an ETag, a cache lifetime and the API's `default-src 'none'`, and it becomes the brand
 * of signed-in users (GET /auth/check) and of the reseller's domain (GET /resellers/brand) at once.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import {
  BRAND_ASSET_PATH,
  BRANDING_TEXT,
  uploadTooLargeText,
  type BrandingForm,
} from '@portal/contract/reseller-branding';
import { auditLog, companies, resellerDomains, resellers, distributors } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { pngOf } from '../../../test/png.ts';
import { brandIndexHtml } from '../../plugins/static-web.ts';

const r = routes.resellerBranding;
let t: TestApp;
let northwindId: number;
let owner: TestClient;
let support: TestClient;
let otherOwner: TestClient;
let customer: TestClient;

async function staffOf(resellerId: number, email: string, role: 'owner' | 'support') {
  let [company] = (await t.db.select().from(companies).where(eq(companies.resellerId, resellerId))).filter(
    (c) => c.kind === 'staff',
  );
  company ??= (await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning())[0]!;
  return createUser(t, company.id, email, { staffRole: role });
}

const upload = (client: TestClient, kind: string, bytes: Buffer | string, extra: Record<string, string> = {}) =>
  client.call(r.uploadAsset, {
    params: { kind: kind as 'logo' },
    body: { data: Buffer.isBuffer(bytes) ? bytes.toString('base64') : bytes, ...extra },
  });

/** The asset at the brand's (relative) address, as a browser fetches it. */
const fetchAsset = (path: string, headers: Record<string, string> = {}) =>
  t.portal.app.inject({ method: 'GET', url: path, headers });

const formOf = (b: { name: string; logoUrl: string | null; tabLogoUrl: string | null }): BrandingForm => ({
  name: b.name,
  logoUrl: b.logoUrl ?? '',
  tabLogoUrl: b.tabLogoUrl ?? '',
  email: '',
  supportEmail: '',
});

beforeAll(async () => {
  t = await createTestApp({ env: { SESSION_CACHE: 'true' } });
  const [northwind] = await t.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
  northwindId = northwind!.id;
  await staffOf(northwindId, 'owner@assets.example', 'owner');
  await staffOf(northwindId, 'support@assets.example', 'support');
  const [d] = await t.db.insert(distributors).values({ name: 'Other Distributor' }).returning();
  const [other] = await t.db.insert(resellers).values({ distributorId: d!.id, name: 'Globex Cloud' }).returning();
  await staffOf(other!.id, 'owner@globex-assets.example', 'owner');
  [owner, support, otherOwner, customer] = await Promise.all([
    signIn(t, 'owner@assets.example', PASSWORD),
    signIn(t, 'support@assets.example', PASSWORD),
    signIn(t, 'owner@globex-assets.example', PASSWORD),
    signIn(t),
  ]);
});
afterAll(async () => {
  await t?.close();
});

describe('logo and tab icon uploads', () => {
  it('stores a PNG by its bytes (whatever its name and claimed type) and makes it the brand, served with the right headers', async () => {
    const png = pngOf(240, 64, '#0f766e');
    const res = await upload(owner, 'logo', png, { fileName: 'logo.svg', contentType: 'image/svg+xml' });
    expect([res.status, res.message]).toEqual([200, BRANDING_TEXT.logoUploaded]);
    const logoUrl = res.data.branding.logoUrl!;
    expect(logoUrl).toMatch(BRAND_ASSET_PATH);
    expect(logoUrl).toBe(`${t.config.API_BASE_PATH}/resellers/${northwindId}/brand/logo?v=${logoUrl.slice(-16)}`);

    const served = await fetchAsset(logoUrl);
    expect(served.statusCode).toBe(200);
    expect(served.rawPayload.equals(png)).toBe(true);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toContain("default-src 'none'");
    expect(served.headers['cache-control']).toBe('public, max-age=86400');
    const etag = served.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(etag.slice(1, 17)).toBe(logoUrl.slice(-16));
    // The browser's revalidation: unchanged bytes answer 304 without a body.
    const again = await fetchAsset(logoUrl, { 'if-none-match': etag });
    expect([again.statusCode, again.body]).toEqual([304, '']);

    // Signed-in users of the reseller see it at once (the session cache was cleared), and so does its domain.
    const check = await customer.call(routes.auth.check);
    expect(check.data.user.logoUrl).toBe(logoUrl);
    // The brand form saves the uploaded address back unchanged (its schema accepts the asset path).
    const resave = await owner.call(r.update, { body: formOf(res.data.branding) });
    expect([resave.status, resave.data.branding.logoUrl]).toEqual([200, logoUrl]);

    const audit = await t.db.select().from(auditLog).where(eq(auditLog.action, 'reseller.branding.upload'));
    expect(audit.at(-1)?.after).toMatchObject({ logoUrl, upload: { kind: 'logo', type: 'image/png' } });
  });

  it('takes a tab icon the same way, and a new upload is a new address', async () => {
    await t.db.insert(resellerDomains).values({
      host: 'assets.example.test',
      resellerId: northwindId,
      verifiedAt: new Date(),
    });
    const first = await upload(owner, 'icon', pngOf(32, 32, '#dc2626'));
    expect([first.status, first.message]).toEqual([200, BRANDING_TEXT.iconUploaded]);
    const second = await upload(owner, 'icon', pngOf(32, 32, '#16a34a'));
    const url = second.data.branding.tabLogoUrl!;
    expect(url).not.toBe(first.data.branding.tabLogoUrl);
    expect((await fetchAsset(url)).rawPayload.equals(pngOf(32, 32, '#16a34a'))).toBe(true);
    const brand = await t.client().call(r.publicBrand, { headers: { host: 'assets.example.test' } });
    expect(brand.data.tabLogoUrl).toBe(url);
  });

  it('refuses what is not a PNG, JPEG or WebP image, by its bytes, with a clear message (400)', async () => {
    const before = (await owner.call(r.get)).data.branding;
    const cases: [string, Buffer | string, string][] = [
      ['HTML named .png', Buffer.from('<!doctype html><script>alert(1)</script>'), BRANDING_TEXT.uploadNotImage],
      [
        'SVG',
        Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        BRANDING_TEXT.uploadSvg,
      ],
      ['empty', Buffer.alloc(0), BRANDING_TEXT.uploadEmpty],
      ['not base64', '<html>', BRANDING_TEXT.uploadNotImage],
      ['a PNG cut after its signature', pngOf(64, 64).subarray(0, 12), BRANDING_TEXT.uploadNotImage],
      ['one pixel', pngOf(1, 1), BRANDING_TEXT.uploadDimensions],
      ['too wide', pngOf(5000, 16), BRANDING_TEXT.uploadDimensions],
    ];
    for (const [what, bytes, message] of cases) {
      const res = await upload(owner, 'logo', bytes, { fileName: 'logo.png', contentType: 'image/png' });
      expect([what, res.status, res.message]).toEqual([what, 400, message]);
    }
    // Over the size limits: the logo's 512 KB, the icon's 128 KB.
    const big = pngOf(400, 200, '#000000', true);
    expect(big.length).toBeGreaterThan(128 * 1024);
    const icon = await upload(owner, 'icon', big);
    expect([icon.status, icon.message]).toEqual([400, uploadTooLargeText('icon')]);
    expect(uploadTooLargeText('icon')).toBe('The tab icon may be at most 128 KB');
    const huge = pngOf(600, 320, '#000000', true);
    expect(huge.length).toBeGreaterThan(512 * 1024);
    const logo = await upload(owner, 'logo', huge);
    expect([logo.status, logo.message]).toEqual([400, 'The logo may be at most 512 KB']);
    // An unknown kind is the envelope's 400 too, never a 500.
    expect((await upload(owner, 'banner', pngOf(32, 32))).status).toBe(400);
    // Nothing changed.
    expect((await owner.call(r.get)).data.branding).toEqual(before);
  });

  it('lets only owners upload, each to their own reseller only', async () => {
    const mine = (await owner.call(r.get)).data.branding.logoUrl!;
    const mineBytes = (await fetchAsset(mine)).rawPayload;
    expect((await upload(support, 'logo', pngOf(64, 64))).status).toBe(403);
    expect((await upload(customer, 'logo', pngOf(64, 64))).status).toBe(403);
    expect((await t.client().call(r.uploadAsset, { params: { kind: 'logo' }, body: { data: '' } })).status).toBe(401);
    // Another reseller's owner uploads to their own reseller: ours is untouched.
    const theirs = await upload(otherOwner, 'logo', pngOf(64, 64, '#facc15'));
    expect(theirs.status).toBe(200);
    expect(theirs.data.branding.logoUrl).not.toContain(`/resellers/${northwindId}/`);
    expect((await fetchAsset(mine)).rawPayload.equals(mineBytes)).toBe(true);
    expect((await owner.call(r.get)).data.branding.logoUrl).toBe(mine);
    // An asset nobody uploaded is a 404 in the envelope; a bad id a 400.
    const missing = await t.client().raw('GET', `${t.config.API_BASE_PATH}/resellers/999999/brand/logo`);
    expect(missing.status).toBe(404);
    const bad = await t.client().raw('GET', `${t.config.API_BASE_PATH}/resellers/x/brand/logo`);
    expect(bad.status).toBe(400);
  });
});

describe('accent colour', () => {
  it('is saved lower-case, reaches signed-in users and the domain, and is refused when not #rrggbb', async () => {
    const branding = (await owner.call(r.get)).data.branding;
    const saved = await owner.call(r.update, { body: { ...formOf(branding), accentColor: '#0F766E' } });
    expect([saved.status, saved.data.branding.accentColor]).toEqual([200, '#0f766e']);
    const profile = (await customer.call(routes.auth.check)).data.user as { accentColor?: string };
    expect(profile.accentColor).toBe('#0f766e');
    const brand = await t.client().call(r.publicBrand, { headers: { host: 'assets.example.test' } });
    expect(brand.data.accentColor).toBe('#0f766e');

    const bad = await owner.call(r.update, { body: { ...formOf(branding), accentColor: 'teal' } });
    expect([bad.status, bad.message]).toEqual([400, expect.stringContaining(BRANDING_TEXT.accentFormat)]);
    // Left out keeps it; empty clears it (the portal's own blue, and no accentColor in the profile).
    const kept = await owner.call(r.update, { body: formOf(branding) });
    expect(kept.data.branding.accentColor).toBe('#0f766e');
    const cleared = await owner.call(r.update, { body: { ...formOf(branding), accentColor: '' } });
    expect(cleared.data.branding).not.toHaveProperty('accentColor');
    expect((await customer.call(routes.auth.check)).data.user).not.toHaveProperty('accentColor');
  });

  it("is in the domain's index.html before any script (no flash of the portal's blue), and only as a colour", () => {
    const html = '<html><head><link rel="stylesheet" href="a.css"><title>VMP</title></head><body></body></html>';
    const out = brandIndexHtml(html, { resellerName: 'Teal', tabLogoUrl: null, accentColor: '#0f766e' });
    expect(out).toContain('<style>:root{--color-brand-50:');
    expect(out).toContain('--color-brand-600:#0f766e;');
    expect(out.indexOf('<style>')).toBeGreaterThan(out.indexOf('a.css'));
    const odd = brandIndexHtml(html, { resellerName: 'Teal', tabLogoUrl: null, accentColor: 'red}</style><script>' });
    expect(odd).not.toContain('<style>');
    expect(brandIndexHtml(html, { resellerName: 'Teal', tabLogoUrl: null })).not.toContain('<style>');
  });
});
