/**
 * Issue 25 item 6 in Chromium (docs/failure-states.md): the offline banner and the refresh when the network is
 * back, a server that gives no answer (retried with backoff, then refreshed once it answers), a read that takes
 * too long (a message with Try again, never an endless spinner), a write that fails on the network (says so and
 * keeps the form's input), and a deploy that replaced the chunks a running page knows (one automatic reload onto
 * the new build; a chunk missing for good shows Reload, no loop).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { renderIndexHtml } from '../apps/api/src/plugins/static-web.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, PHONE, signedInPage, type ColorScheme } from './support/looks.ts';

const WAIT = { timeout: 30_000 };
const OFFLINE_TEXT = 'You are offline. The portal will reconnect and refresh this page when the network is back.';
const UNREACHABLE_TEXT = 'The server cannot be reached. Retrying…';
const TIMEOUT_TEXT = 'The server took too long to answer. Try again.';
const NO_ANSWER_TEXT = 'Cannot reach the server. Check your connection and try again.';

let portal: Portal;
let apiPath: string;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'failure-states-'));

beforeAll(async () => {
  portal = await startPortal();
  apiPath = new URL(portal.apiUrl).pathname;
});
afterAll(async () => {
  await portal?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const signedIn = (viewport = DESKTOP, colorScheme: ColorScheme = 'light') =>
  signedInPage(portal, viewport, colorScheme);

async function shot(page: Page, name: string) {
  // axe measures the page at rest (support/axe.ts waits for transitions, e.g. a list's refresh dimming).
  await page.screenshot({ path: `${SCREENSHOTS}failure-${name}.png`, fullPage: true });
  expect(await axeViolations(page), `${name}: axe violations`).toEqual([]);
}

const banner = (page: Page) => page.getByTestId('network-banner');
const usersList = (url: URL) => url.pathname === `${apiPath}/users/list`;

describe('network loss', () => {
  it('offline: the banner says so; back online it goes and the list refreshes without a click', async () => {
    const { context, page } = await signedIn(PHONE, 'dark');
    await page.goto(`${portal.url}/users`);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);

    await context.setOffline(true);
    await banner(page).getByText(OFFLINE_TEXT).waitFor(WAIT);
    expect(await banner(page).getAttribute('role')).toBe('status');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const failed = page.getByRole('alert').filter({ hasText: 'Error fetching users' });
    await failed.waitFor(WAIT);
    await shot(page, 'offline-phone-dark');

    await context.setOffline(false);
    await banner(page).waitFor({ state: 'detached', ...WAIT });
    // The failed list came back on its own (the reconnect refreshes what is shown).
    await failed.waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);
    await context.close();
  });

  it('a server that gives no answer (or a proxy 502 page): retried with backoff, the banner says so, and it recovers on its own', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${portal.url}/users`);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);
    let refused = 0;
    const refuse = (route: Route) => {
      refused++;
      return route.abort('connectionrefused');
    };
    const api = (url: URL) => url.pathname.startsWith(`${apiPath}/`);
    await context.route(api, refuse);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await banner(page).getByText(UNREACHABLE_TEXT).waitFor(WAIT);
    await shot(page, 'unreachable-desktop');
    // The list's read was tried again (1 s, 2 s, 4 s) before it says it failed: four tries at least.
    await page.getByRole('alert').filter({ hasText: 'Error fetching users' }).waitFor(WAIT);
    expect(refused).toBeGreaterThanOrEqual(4);

    await context.unroute(api, refuse);
    // The watch probes the server with backoff; once it answers, the banner goes and the list is read again.
    await banner(page).waitFor({ state: 'detached', ...WAIT });
    await page
      .getByRole('alert')
      .filter({ hasText: 'Error fetching users' })
      .waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);

    // Behind a reverse proxy a stopped portal is the proxy's own 502 page: the same as no answer.
    const gateway = (route: Route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html><body>502 Bad Gateway</body></html>' });
    await context.route(api, gateway);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await banner(page).getByText(UNREACHABLE_TEXT).waitFor(WAIT);
    await context.unroute(api, gateway);
    await banner(page).waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);
    await context.close();
  });

  it('a read that takes too long ends in a message with Try again, which works', async () => {
    const { context, page } = await signedIn();
    let held = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      held++;
      // Far beyond the portal's 15 s (the browser gives up first): answered only once the test is done with it.
      await released;
      await route.continue().catch(() => {});
    };
    await page.route(usersList, hold);
    const started = Date.now();
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByText(TIMEOUT_TEXT).waitFor({ timeout: 45_000 });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(14_000);
    // A timeout is not retried on its own (it already waited), and it is not "offline".
    expect(held).toBe(1);
    expect(await banner(page).count()).toBe(0);
    await shot(page, 'timeout-desktop');
    await page.unroute(usersList, hold);
    release();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor(WAIT);
    await page.getByText(TIMEOUT_TEXT).waitFor({ state: 'detached', ...WAIT });
    await context.close();
  });

  it('a write that fails on the network says so and keeps what was typed', async () => {
    const { context, page } = await signedIn(PHONE);
    await page.goto(`${portal.url}/support`);
    await page.getByRole('button', { name: 'Get In Touch' }).click();
    const message = 'My VM web-1 does not boot since this morning.';
    await page.getByLabel('Message').fill(message);
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByRole('alert').filter({ hasText: NO_ANSWER_TEXT }).waitFor(WAIT);
    expect(await page.getByLabel('Message').inputValue()).toBe(message);
    await shot(page, 'write-offline-phone');
    await context.setOffline(false);
    await banner(page).waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('button', { name: 'Send Message' }).click();
    await page.getByRole('button', { name: 'Message sent!' }).waitFor(WAIT);

    await page.goto(`${portal.url}/createUser`);
    await page.getByLabel('Email').fill('kept@example.com');
    await page.getByLabel('Role').selectOption({ label: 'Viewer' });
    await context.setOffline(true);
    await page.getByRole('button', { name: 'Send Invite Email' }).click();
    await page.getByText(NO_ANSWER_TEXT).first().waitFor(WAIT);
    expect(await page.getByLabel('Email').inputValue()).toBe('kept@example.com');
    await context.setOffline(false);
    await context.close();
  });
});

/**
 * The portal's front end served from a copy of the build that the test can replace, as a deploy replaces the files
 * on the server: every request for the portal's pages and assets is answered from `current.dir` (the API passes
 * through to the real server). Each "deploy" is the real build with every hashed file renamed (new names, like a
 * rebuild with changed hashes) and the references in the other files rewritten.
 */
const current = { dir: '' };
const DIST = path.resolve(import.meta.dirname, '../apps/web/dist');
const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** A copy of the build, taken under the build's lock (engineers share apps/web/dist; a rebuild empties it first). */
function copyBuild(name: string): string {
  const dir = path.join(tmp, name);
  try {
    execFileSync('flock', [`${os.tmpdir()}/webbuild.lock`, 'cp', '-r', DIST, dir]);
  } catch {
    cpSync(DIST, dir, { recursive: true });
  }
  const entry = /src="\.\/assets\/([^"]+)"/.exec(readFileSync(path.join(dir, 'index.html'), 'utf8'))?.[1];
  expect(entry && existsSync(path.join(dir, 'assets', entry)), 'a whole build copied').toBe(true);
  for (const file of readdirSync(path.join(dir, 'assets')))
    if (/\.(map|br|gz)$/.test(file)) rmSync(path.join(dir, 'assets', file));
  return dir;
}

/** A "new build": every hashed asset renamed with `suffix` added to its hash, references rewritten. */
function redeploy(from: string, name: string, suffix: string): string {
  const dir = path.join(tmp, name);
  cpSync(from, dir, { recursive: true });
  const assets = path.join(dir, 'assets');
  const renames: [string, string][] = [];
  for (const file of readdirSync(assets)) {
    const m = /^(.+-[A-Za-z0-9_-]{6,})(\.[a-z0-9]+)$/.exec(file);
    if (!m) continue;
    renames.push([`${m[1]}${m[2]}`, `${m[1]}${suffix}${m[2]}`]);
  }
  for (const [from, to] of renames) renameSync(path.join(assets, from), path.join(assets, to));
  const texts = [path.join(dir, 'index.html'), ...readdirSync(assets).map((f) => path.join(assets, f))].filter((f) =>
    /\.(html|js|css)$/.test(f),
  );
  for (const file of texts) {
    let text = readFileSync(file, 'utf8');
    for (const [from, to] of renames) text = text.split(from).join(to);
    writeFileSync(file, text);
  }
  return dir;
}

const assetNamed = (dir: string, prefix: string) =>
  readdirSync(path.join(dir, 'assets')).find((f) => f.startsWith(`${prefix}-`) && f.endsWith('.js'))!;

async function serveFrontEnd(context: BrowserContext, documents: string[]) {
  const origin = new URL(portal.url).origin;
  await context.route(
    (url) => url.origin === origin && !url.pathname.startsWith(`${apiPath}/`),
    async (route) => {
      const url = new URL(route.request().url());
      const file = path.join(current.dir, decodeURIComponent(url.pathname));
      if (url.pathname.startsWith('/assets/')) {
        if (!file.startsWith(current.dir) || !existsSync(file))
          return route.fulfill({ status: 404, body: 'Not found' });
        return route.fulfill({
          status: 200,
          contentType: TYPES[path.extname(file)] ?? 'application/octet-stream',
          body: readFileSync(file),
        });
      }
      documents.push(url.pathname);
      const html = renderIndexHtml(readFileSync(path.join(current.dir, 'index.html'), 'utf8'), {
        basePath: '/',
        apiBasePath: apiPath,
      });
      return route.fulfill({ status: 200, contentType: 'text/html', body: html });
    },
  );
}

describe('a deploy while the portal is open', () => {
  it('a chunk gone after a rebuild reloads once onto the new build; a chunk missing for good shows Reload', async () => {
    const v1 = copyBuild('v1');
    const v2 = redeploy(v1, 'v2', 'v2');
    const v3 = redeploy(v2, 'v3', 'v3');
    // v4: a broken deploy, the users screen's code missing.
    const v4 = redeploy(v3, 'v4', 'v4');
    rmSync(path.join(v4, 'assets', assetNamed(v4, 'UsersPage')));
    current.dir = v1;

    const context = await portal.browser.newContext({ viewport: DESKTOP });
    const documents: string[] = [];
    await serveFrontEnd(context, documents);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const loaded: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/assets/') && r.status() === 200) loaded.push(path.basename(new URL(r.url()).pathname));
    });
    await portal.signIn(page);
    await page.getByRole('link', { name: 'Support' }).waitFor(WAIT);
    expect(loaded).toContain(assetNamed(v1, 'DashboardPage'));

    // The deploy: the running page still knows v1's names, which are gone.
    current.dir = v2;
    documents.length = 0;
    await page.getByRole('link', { name: 'Support' }).click();
    await page.getByRole('heading', { name: 'Support', exact: true }).waitFor(WAIT);
    // One reload, onto the address being opened, and the new build's code.
    expect(documents).toEqual(['/support']);
    expect(loaded).toContain(assetNamed(v2, 'SupportPage'));
    expect(loaded).toContain(assetNamed(v2, 'index'));
    expect(await page.getByText('This page could not be loaded').count()).toBe(0);

    // Another deploy within the guard's minute: no second automatic reload, the Reload page instead.
    current.dir = v3;
    documents.length = 0;
    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByRole('heading', { name: 'This page could not be loaded' }).waitFor(WAIT);
    expect(documents).toEqual([]);
    await shot(page, 'stale-chunk-reload-page');
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'Teams', exact: true, level: 1 }).waitFor(WAIT);
    expect(loaded).toContain(assetNamed(v3, 'TeamsPage'));

    // A chunk missing for good: one reload, then the Reload page; never a loop.
    await page.evaluate(() => sessionStorage.removeItem('chunk-reload-at'));
    current.dir = v4;
    documents.length = 0;
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('heading', { name: 'This page could not be loaded' }).waitFor(WAIT);
    expect(documents).toEqual(['/users']);
    // Still the Reload page a moment later, no further document loads.
    await page.getByRole('button', { name: 'Reload' }).waitFor(WAIT);
    expect(documents).toEqual(['/users']);
    await context.close();
  });
});
