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
import { buildRoute } from '../../apps/api/test/route-call.ts';
import { routes } from '@portal/contract/routes';

export { ADMIN };

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = new URL('../../test-results/screenshots/', import.meta.url).pathname;

export interface Portal extends TestApp {
  url: string;
  apiUrl: string;
  browser: Browser;
  newPage(): Promise<{ context: BrowserContext; page: Page }>;
  /**
   * Signs the page's context in and lands on the dashboard. By default through the API from inside the context (its
   * cookies, its user agent: a session of its own, as the screens make): password, then the mailed code. With
   * `screens: true` through the login form, the mailed code and the MFA form, for the files about signing in.
   */
  signIn(
    page: Page,
    email?: string,
    password?: string,
    opts?: { rememberMe?: boolean; screens?: boolean },
  ): Promise<void>;
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
    async signIn(page, email = ADMIN.email, password = ADMIN.password, signInOpts = {}) {
      const before = t.smtp.messages.length;
      if (!signInOpts.screens) {
        // What the login and MFA forms send, sent by the page's own context (`context.request` shares its cookie
        // store and user agent): the server makes a session of its own for this context, as the forms do. A fresh
        // context rendering the two forms costs ~1.6 s of Chromium CPU on the 2-core machine (docs/testing.md); the
        // forms are tested by the files that pass `screens: true` and auth.e2e.
        const request = page.context().request;
        const api = (route: Parameters<typeof buildRoute>[0]) => `${portal.apiUrl}${buildRoute(route).url}`;
        await request.get(api(routes.auth.check)); // any API answer sets the CSRF cookie the writes echo
        const csrf = (await page.context().cookies(portal.apiUrl)).find((c) => c.name === 'csrf_token')?.value;
        const headers = { 'x-csrf-token': csrf ?? '', origin };
        const rememberMe = signInOpts.rememberMe ?? false;
        const login = await request.post(api(routes.auth.login), { data: { email, password, rememberMe }, headers });
        if (!login.ok()) throw new Error(`sign-in of ${email} refused: ${login.status()} ${await login.text()}`);
        const mail = await t.smtp.waitFor(
          email,
          (m) => t.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
        );
        const mfa = await request.post(api(routes.auth.mfa), { data: { code: codeFrom(mail) }, headers });
        if (!mfa.ok()) throw new Error(`the code of ${email} was refused: ${mfa.status()} ${await mfa.text()}`);
        await page.goto(url);
        await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname));
        return;
      }
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
function watchRequests(page: Page) {
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
async function pageState(page: Page, requests: { pending: string[]; failed: string[] }): Promise<string> {
  const shown = await page
    .evaluate(() => `${document.readyState}; "${document.body?.innerText.replace(/\s+/g, ' ').slice(0, 300) ?? ''}"`)
    .catch((e: unknown) => `(not readable: ${String(e)})`);
  return `at ${page.url()}, ${shown}; requests pending: ${requests.pending.join(', ') || 'none'}; failed: ${requests.failed.join(', ') || 'none'}`;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

export { expect };
