/** Branding: an operator import changes the reseller's name, logo and tab icon; the portal shows it on next load. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { createOperatorTokens } from '../apps/api/src/modules/operator/operator-tokens.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

const svg = (fill: string) =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><rect width="120" height="32" fill="${fill}"/></svg>`).toString('base64')}`;

describe('branding', () => {
  it('follows the reseller record: title, tab icon and logo change after an import', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    await expect.poll(() => page.title()).toBe('Northwind Hosting');

    const { token } = await createOperatorTokens({
      db: portal.db,
      secret: 'test-secret-that-is-long-enough-0123456789',
    }).create('branding-test');
    const res = await fetch(`${portal.apiUrl}/imports/reseller`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        rows: [
          {
            externalId: 'demo-reseller',
            distributorExternalId: 'demo-distributor',
            name: 'Contoso Cloud',
            logoUrl: svg('#b91c1c'),
            tabLogoUrl: svg('#15803d'),
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.updated).toBe(1);

    await page.reload();
    await expect.poll(() => page.title()).toBe('Contoso Cloud');
    expect(await page.locator('link[rel~="icon"]').getAttribute('href')).toBe(svg('#15803d'));
    expect(await page.getByAltText(TEXT.companyLogoAlt).getAttribute('src')).toBe(svg('#b91c1c'));
    await screenshot(page, 'branding-contoso');

    // Without a logo the logo is not shown at all.
    await fetch(`${portal.apiUrl}/imports/reseller`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        rows: [
          {
            externalId: 'demo-reseller',
            distributorExternalId: 'demo-distributor',
            name: 'Contoso Cloud',
            logoUrl: null,
            tabLogoUrl: null,
          },
        ],
      }),
    });
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByAltText(TEXT.companyLogoAlt).count()).toBe(0);
    await context.close();
  });
});
