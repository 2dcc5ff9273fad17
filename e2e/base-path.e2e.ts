/**
 * The portal under a base path (BASE_PATH=/cloud): sign-in, screens loaded on demand, a deep link reloaded,
 * and the API where the portal expects it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal({ basePath: '/cloud' });
});
afterAll(async () => {
  await portal?.stop();
});

describe('base path', () => {
  it('serves every screen and its code under /cloud', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    // Signed in, nothing the portal asks for may fail (before it, /auth/check answers 401 by design).
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    expect(new URL(page.url()).pathname).toMatch(/^\/cloud\/?$/);
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Virtual Machines' }).click();
    await page.waitForURL(/\/cloud\/virtualMachines$/);
    await expect.poll(() => page.getByText('No virtual machines found').isVisible()).toBe(true);

    // A deep link, reloaded: the server answers the SPA under the base path and the screen's chunk loads.
    await page.goto(`${portal.url}/createVirtualMachine`);
    await expect.poll(() => page.getByRole('heading', { name: 'Create Virtual Machine' }).isVisible()).toBe(true);
    await page.goto(`${portal.url}/users`);
    await expect.poll(() => page.getByRole('row', { name: /Ada Admin/ }).isVisible()).toBe(true);
    await screenshot(page, 'base-path-users');
    expect(failed).toEqual([]);
    await context.close();
  });
});
