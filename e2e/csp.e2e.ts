/** The portal runs under its Content Security Policy without a single violation (issue 9 item 6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

describe('content security policy', () => {
  it('reports no violation on the login screen, through sign-in and on the dashboard', async () => {
    const { context, page } = await portal.newPage();
    const violations: string[] = [];
    await page.exposeFunction('reportCspViolation', (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        (window as unknown as { reportCspViolation(v: string): void }).reportCspViolation(
          `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
        );
      });
    });
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${portal.url}/login`);
    await expect.poll(() => page.getByRole('heading', { name: /welcome/i }).isVisible()).toBe(true);
    await portal.signIn(page);
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    await page.goto(`${portal.url}/teams`);
    await expect.poll(() => page.getByRole('heading', { name: 'Teams' }).first().isVisible()).toBe(true);
    expect(violations).toEqual([]);
    await context.close();
  });

  it('does not serve source maps publicly', async () => {
    const index = await (await fetch(`${portal.url}/`)).text();
    const script = /src="\.?\/?(assets\/[^"]+\.js)"/.exec(index)?.[1];
    expect(script).toBeTruthy();
    const js = await fetch(`${portal.url}/${script}`);
    expect(js.status).toBe(200);
    expect((await fetch(`${portal.url}/${script}.map`)).status).toBe(404);
  });
});
