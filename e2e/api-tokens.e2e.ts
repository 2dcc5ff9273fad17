/**
 * Personal API tokens in Chromium (issue 26 item 4; docs/api-tokens.md): the screen reached from the navigation,
 * a token created (the secret shown once, with a copy button), used with `Authorization: Bearer` (no cookie), its
 * last use shown in the list, the company administrators' section, and a revocation confirmed first after which
 * the token is refused. Screenshots at 1440x900 and 390x844, light; axe finds nothing on the screen.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { axeViolations } from './support/axe.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

async function shot(page: Page, name: string) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SCREENSHOTS}api-tokens-${name}.png`, fullPage: true });
  expect(await axeViolations(page, 'main'), `${name}: axe violations`).toEqual([]);
}

/** A call with the bearer token only (Node's fetch: no browser cookies). */
async function bearerStatus(token: string): Promise<number> {
  const res = await fetch(`${portal.apiUrl}/virtualMachines/list`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return res.status;
}

describe('API tokens', () => {
  it('creates a token shown once, lists its last use, and revokes it after a confirmation', async () => {
    const context = await portal.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await portal.signIn(page);
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.waitForURL(/\/apiTokens$/);
    await expect.poll(() => page.getByText('No tokens yet').isVisible()).toBe(true);

    const form = page.getByRole('region', { name: 'Create a token' });
    await form.getByLabel('Name').fill('deploy script');
    await form.getByLabel('Read-only').check();
    await form.getByLabel('Expires in').selectOption({ label: '90 days' });
    await form.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByText(API_TOKEN_TEXT.created).isVisible()).toBe(true);
    const token = (await dialog.getByTestId('new-api-token').innerText()).trim();
    expect(token).toMatch(/^vmp_/);
    expect(await dialog.getByRole('button', { name: 'Copy token' }).isVisible()).toBe(true);
    await shot(page, 'created-desktop');
    await dialog.getByRole('button', { name: 'Done' }).click();

    // The secret is not on the page any more; the list shows its hint and "Never".
    expect(await page.getByText(token).count()).toBe(0);
    await expect.poll(() => page.getByText('Never').first().isVisible()).toBe(true);

    expect(await bearerStatus(token)).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByText('127.0.0.1').first().isVisible()).toBe(true);
    // The company administrator's section lists it with its owner.
    await expect.poll(() => page.getByText("Your company's tokens").isVisible()).toBe(true);
    await shot(page, 'desktop');

    await page.getByRole('button', { name: 'Revoke deploy script' }).first().click();
    const confirm = page.getByRole('dialog');
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByText('Revoked').first().isVisible()).toBe(true);
    expect(await bearerStatus(token)).toBe(401);

    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'phone');
    await context.close();
  });
});
