/**
 * Starts the real portal (API + built web app) for one e2e file on a free port, with a fresh
 * database and a real SMTP peer, and drives Debian's Chromium through playwright-core.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../../apps/api/test/harness.ts';
import { codeFrom } from '../../apps/api/test/smtp-catcher.ts';
import { freePort } from '../../apps/api/test/free-port.ts';

export { ADMIN };

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;

export interface Portal extends TestApp {
  url: string;
  apiUrl: string;
  browser: Browser;
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  /** `newPage`, signed in through the screens (as the admin unless told): a file's shared context (looks.ts signedInOnce). */
  newSignedInPage(email?: string, password?: string): Promise<{ context: BrowserContext; page: Page }>;
  /** Signs in through the screens: login form, mailed code, MFA form. Lands on the dashboard. */
  signIn(page: Page, email?: string, password?: string, opts?: { rememberMe?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The test app listening on a port of its own. The port is free when chosen, but the app's config names it before it
 * listens, and another process may take it meanwhile (the libvirt tests run beside the browser tests, binding ports
 * and opening connections from ephemeral ones: one CI-like run lost a file to EADDRINUSE): then another port.
 */
async function listening(basePath: string, env: Record<string, string> = {}) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const t = await createTestApp({ env: { PORT: String(port), BASE_PATH: basePath, PUBLIC_URL: origin, ...env } });
    try {
      await t.portal.app.listen({ port, host: '127.0.0.1' });
      return { t, origin };
    } catch (err) {
      await t.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
}

export async function startPortal(
  opts: {
    env?: Record<string, string>;
    basePath?: string;
    /** Extra Chromium switches (e.g. --host-resolver-rules to open the portal on a custom domain). */
    browserArgs?: string[];
  } = {},
): Promise<Portal> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const basePath = opts.basePath ?? '/';
  const { t, origin } = await listening(basePath, opts.env);
  t.portal.startWorkers();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // The portal's spinners and pulses stand still (motion-safe): an endless animation repaints every frame.
      '--force-prefers-reduced-motion',
      ...(opts.browserArgs ?? []),
    ],
  });
  mkdirSync(SCREENSHOTS, { recursive: true });
  const url = basePath === '/' ? origin : `${origin}${basePath}`;
  const portal: Portal = {
    ...t,
    url,
    apiUrl: `${origin}${t.config.API_BASE_PATH}`,
    browser,
    async newPage() {
      const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, acceptDownloads: true });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return { context, page };
    },
    async newSignedInPage(email, password) {
      const opened = await portal.newPage();
      await portal.signIn(opened.page, email, password);
      return opened;
    },
    async signIn(page, email = ADMIN.email, password = ADMIN.password, signInOpts = {}) {
      const before = t.smtp.messages.length;
      const requests = watchRequests(page);
      const field = page.getByLabel('Email');
      try {
        for (let attempt = 1; ; attempt++) {
          await page.goto(`${url.replace(/\/$/, '')}/login`);
          try {
            await field.waitFor();
            break;
          } catch (err) {
            // The libvirt tests beside the browser tests make and remove bridges with addresses; Chromium then aborts
            // what it was loading with ERR_NETWORK_CHANGED (a page script lost: nothing renders). As a user on a
            // changing network would, load the page again, once.
            if (attempt === 1 && requests.report().failed.some((f) => f.includes('ERR_NETWORK_CHANGED'))) continue;
            throw new Error(`The sign-in page showed no Email field: ${await pageState(page, requests.report())}`, {
              cause: err,
            });
          }
        }
      } finally {
        requests.stop();
      }
      await field.fill(email);
      await page.getByLabel('Password', { exact: true }).fill(password);
      if (signInOpts.rememberMe) await page.getByLabel('Remember me').check();
      await page.getByRole('button', { name: 'Login' }).click();
      await page.waitForURL(/\/mfa/);
      const mail = await t.smtp.waitFor(
        email,
        (m) => t.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
      );
      await page.getByLabel(/code/i).fill(codeFrom(mail));
      await page.getByRole('button', { name: 'Authenticate' }).click();
      await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname));
    },
    async stop() {
      await browser.close();
      await t.close();
    },
  };
  return portal;
}

/** The page's requests from now on: those not answered yet, and those that failed (for a failure's message). */
export function watchRequests(page: Page) {
  const pending = new Map<Request, number>();
  const failed: string[] = [];
  const started = (r: Request) => pending.set(r, Date.now());
  const finished = (r: Request) => pending.delete(r);
  const lost = (r: Request) => {
    pending.delete(r);
    failed.push(`${r.url()} (${r.failure()?.errorText ?? 'failed'})`);
  };
  page.on('request', started);
  page.on('requestfinished', finished);
  page.on('requestfailed', lost);
  return {
    report: () => ({
      pending: [...pending].map(([r, at]) => `${r.url()} (${Math.round((Date.now() - at) / 1000)} s)`),
      failed,
    }),
    stop() {
      page.off('request', started);
      page.off('requestfinished', finished);
      page.off('requestfailed', lost);
    },
  };
}

/** Where the page is and what it shows, for a failure's message. */
export async function pageState(page: Page, requests: { pending: string[]; failed: string[] }): Promise<string> {
  const shown = await page
    .evaluate(() => `${document.readyState}; "${document.body?.innerText.replace(/\s+/g, ' ').slice(0, 300) ?? ''}"`)
    .catch((e: unknown) => `(not readable: ${String(e)})`);
  return `at ${page.url()}, ${shown}; requests pending: ${requests.pending.join(', ') || 'none'}; failed: ${requests.failed.join(', ') || 'none'}`;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

export { expect };
