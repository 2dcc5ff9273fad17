/**
 * Issue 25's screens sweep: every screen of the router (its paths are read from apps/web/src/app/router.tsx, so a
 * new screen without a line here fails), for the customer (a company administrator) and the reseller's owner, at
 * 1440x900 and 390x844 in light and dark: nothing wider than the viewport, axe-core with no violations of any
 * impact, a screenshot of each (test-results/screenshots/sweep-*). One browser, one sign-in per role; each screen is
 * loaded once and the viewport and colour scheme change under it (the portal follows the system scheme live).
 */
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { companies } from '../apps/api/src/db/schema.ts';
import { createTeam, createUser, insertVm, PASSWORD } from '../apps/api/test/fixtures.ts';
import { TEXT } from '@portal/contract/messages';
import { OPERATOR_ROLE_ID } from '@portal/contract/permissions';
import { routes as api } from '@portal/contract/routes';
import { signIn } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { axeViolations } from './support/axe.ts';
import { ADMIN, SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const COMBOS = [
  { tag: 'desktop-light', viewport: { width: 1440, height: 900 }, scheme: 'light' },
  { tag: 'desktop-dark', viewport: { width: 1440, height: 900 }, scheme: 'dark' },
  { tag: 'phone-light', viewport: { width: 390, height: 844 }, scheme: 'light' },
  { tag: 'phone-dark', viewport: { width: 390, height: 844 }, scheme: 'dark' },
] as const;
const OWNER_EMAIL = 'owner@sweep.example';

/** The router's paths; the reseller area's children are relative to /reseller. */
function routerPaths(): string[] {
  const source = readFileSync(new URL('../apps/web/src/app/router.tsx', import.meta.url), 'utf8');
  return [...source.matchAll(/path:\s*'([^']+)'/g)].map(([, p]) =>
    p!.startsWith('/') || p === '*' ? p! : `/reseller/${p}`,
  );
}

type Role = 'public' | 'customer' | 'reseller';
interface Screen {
  role: Role;
  /** The address to open (ids filled in once the fixtures exist). */
  url: () => string;
  /** What the screen shows once it is ready, awaited before the first screenshot (a live console's connection). */
  ready?: (page: Page) => Promise<void>;
}

let portal: Portal;
let vmId = 0;
/** A machine the simulator really runs (created through the API): the console needs one, a row alone has none. */
let machineId = 0;
let teamId = 0;
let userId = 0;

/** Every route of the router: how the sweep opens it, or why it does not. */
const SCREENS: Record<string, Screen | { skip: string }> = {
  '/login': { role: 'public', url: () => '/login' },
  '/mfa': { skip: 'checked during the sign-in (a pending sign-in is needed)' },
  '/logout': { skip: 'signs out; it shows nothing of its own' },
  '/resetPassword': { role: 'public', url: () => '/resetPassword?token=t&id=1' },
  '/confirmNewUser': { role: 'public', url: () => '/confirmNewUser?token=t&id=1' },
  '/forgotPassword': { role: 'public', url: () => '/forgotPassword' },
  '/auth/oidc/callback': { role: 'public', url: () => '/auth/oidc/callback?error=access_denied' },
  '/virtualMachineConsole/:virtualMachineId': {
    role: 'customer',
    url: () => `/virtualMachineConsole/${machineId}`,
    // The simulator's machine has a serial console and no display: its text console, connected, never the failure.
    ready: async (page) => {
      await expect
        .poll(() => page.getByTestId('serial-terminal').locator('.xterm-rows').innerText(), { timeout: 30_000 })
        .toContain('console-1 login:');
      await expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 30_000 }).toBe('Connected');
      expect(await page.getByText(TEXT.consoleFailed).count()).toBe(0);
    },
  },
  '/reseller': { skip: 'redirects to /reseller/companies' },
  '/reseller/companies': { role: 'reseller', url: () => '/reseller/companies' },
  '/reseller/branding': { role: 'reseller', url: () => '/reseller/branding' },
  '/reseller/usage': { role: 'reseller', url: () => '/reseller/usage' },
  '/reseller/billing': { role: 'reseller', url: () => '/reseller/billing' },
  '/reseller/activity': { role: 'reseller', url: () => '/reseller/activity' },
  '/reseller/company': { role: 'reseller', url: () => '/reseller/company?id=1' },
  '/reseller/staff': { role: 'reseller', url: () => '/reseller/staff' },
  '/reseller/catalog': { role: 'reseller', url: () => '/reseller/catalog' },
  '/reseller/hosts': { role: 'reseller', url: () => '/reseller/hosts' },
  '/reseller/security': { role: 'reseller', url: () => '/reseller/security' },
  '/': { role: 'customer', url: () => '/' },
  '/createVirtualMachine': { role: 'customer', url: () => '/createVirtualMachine' },
  '/createUser': { role: 'customer', url: () => '/createUser' },
  '/support': { role: 'customer', url: () => '/support' },
  '/virtualMachines': { role: 'customer', url: () => '/virtualMachines' },
  '/backups': { role: 'customer', url: () => '/backups' },
  '/virtualMachineDetails/:virtualMachineId': { role: 'customer', url: () => `/virtualMachineDetails/${vmId}` },
  '/teams': { role: 'customer', url: () => '/teams' },
  '/team': { role: 'customer', url: () => `/team?id=${teamId}` },
  '/createEditTeam': { role: 'customer', url: () => `/createEditTeam?id=${teamId}` },
  '/users': { role: 'customer', url: () => '/users' },
  '/user': { role: 'customer', url: () => `/user?id=${userId}` },
  '/activity': { role: 'customer', url: () => '/activity' },
  '/sshKeys': { role: 'customer', url: () => '/sshKeys' },
  '/apiTokens': { role: 'customer', url: () => '/apiTokens' },
  '/security': { role: 'customer', url: () => '/security' },
  '/account': { role: 'customer', url: () => '/account' },
  '/singleSignOn': { role: 'customer', url: () => '/singleSignOn' },
  '*': { role: 'customer', url: () => '/no/such/page' },
};

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '400', VM_RUNNER_POLL_MS: '50' } });
  // First: the fixture rows below bring catalogue rows of their own (sizes without a provider).
  const admin = await signIn(portal);
  const created = await admin.call(api.vms.create, { body: (await seededCatalog(admin)).createBody('console-1') });
  expect(created.status, created.message).toBe(200);
  machineId = created.data.ids[0]!;
  const deadline = Date.now() + 60_000;
  while ((await admin.call(api.vms.details, { params: { id: machineId } })).data?.status !== 'Running') {
    if (Date.now() > deadline) throw new Error('console-1 did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  const member = await createUser(portal, 1, 'member@example.com', { firstName: 'Mia', lastName: 'Member' });
  userId = member.id;
  teamId = (await createTeam(portal, 1, 'Ops', [{ userId: member.id, roleId: OPERATOR_ROLE_ID }])).id;
  vmId = (await insertVm(portal, { companyId: 1, teamId, name: 'web-1', status: 'Running' })).id;
  for (let i = 0; i < 3; i++)
    await insertVm(portal, { companyId: 1, teamId, name: `batch-${i + 1}`, status: 'Stopped' });
  const [customer] = await portal.db.select().from(companies).where(eq(companies.id, 1));
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: customer!.resellerId, name: 'Sweep staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER_EMAIL, { firstName: 'Olga', lastName: 'Owner', staffRole: 'owner' });
});
afterAll(async () => {
  await portal?.stop();
});

/** Elements reaching past the right edge of the viewport, outside a horizontal scroll container. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    const scrollsX = (el: Element | null): boolean => {
      for (let e = el; e; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if (o === 'auto' || o === 'scroll') return true;
      }
      return false;
    };
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > width + 1 && !scrollsX(el.parentElement) && getComputedStyle(el).position !== 'fixed') {
        out.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.className).slice(0, 60)} right=${Math.round(r.right)}`,
        );
      }
    }
    return out.slice(0, 10);
  });
}

/** No spinner, no "Loading..." title, no transition running. */
async function settled(page: Page) {
  await expect
    .poll(
      () =>
        page
          .locator('[role="status"][aria-label="Loading"], [aria-label="Checking your session"], [aria-busy="true"]')
          .count(),
      { timeout: 30_000 },
    )
    .toBe(0);
  await expect.poll(() => page.getByRole('heading', { name: 'Loading...' }).count(), { timeout: 30_000 }).toBe(0);
  // Colour transitions (the theme's, a list's refresh dimming) finish before axe measures contrast.
  await page.waitForTimeout(250);
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition)), null, {
    timeout: 10_000,
  });
}

/** Opens `path` once and checks it in the four combinations; the problems found, as readable lines. */
async function sweep(page: Page, name: string, path: string, ready?: Screen['ready']): Promise<string[]> {
  const problems: string[] = [];
  await page.goto(`${portal.url}${path}`);
  await page.getByRole('main').first().waitFor({ timeout: 30_000 });
  await ready?.(page);
  for (const combo of COMBOS) {
    await page.setViewportSize(combo.viewport);
    await page.emulateMedia({ colorScheme: combo.scheme });
    await settled(page);
    const tag = `${name}-${combo.tag}`;
    await page.screenshot({ path: `${SCREENSHOTS}sweep-${tag}.png`, fullPage: true });
    for (const o of await overflowing(page)) problems.push(`${tag}: wider than the viewport: ${o}`);
    for (const v of await axeViolations(page)) problems.push(`${tag}: axe ${v}`);
  }
  return problems;
}

const slug = (path: string) =>
  path === '*' ? 'not-found' : path.replace(/^\//, '').replace(/[/?=&:]+/g, '-') || 'dashboard';

describe('issue 25: every screen at both sizes in light and dark', () => {
  it('has a line here for every route of the router (a new screen joins the sweep)', () => {
    const missing = routerPaths().filter((p) => !(p in SCREENS));
    expect(missing, 'routes the sweep does not know: add them to SCREENS').toEqual([]);
  });

  const routes = new Set(routerPaths());
  const screensOf = (role: Role) =>
    Object.entries(SCREENS).filter(
      (e): e is [string, Screen] => routes.has(e[0]) && 'role' in e[1] && e[1].role === role,
    );

  it('the public screens and the second-factor screen', async () => {
    const context = await portal.browser.newContext({ viewport: COMBOS[0].viewport });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const problems: string[] = [];
    for (const [route, screen] of screensOf('public')) problems.push(...(await sweep(page, slug(route), screen.url())));
    // The MFA screen, reached by signing in.
    await page.setViewportSize(COMBOS[0].viewport);
    await page.goto(`${portal.url}/login`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/mfa/);
    for (const combo of COMBOS) {
      await page.setViewportSize(combo.viewport);
      await page.emulateMedia({ colorScheme: combo.scheme });
      await settled(page);
      await page.screenshot({ path: `${SCREENSHOTS}sweep-mfa-${combo.tag}.png`, fullPage: true });
      for (const o of await overflowing(page)) problems.push(`mfa-${combo.tag}: wider than the viewport: ${o}`);
      for (const v of await axeViolations(page)) problems.push(`mfa-${combo.tag}: axe ${v}`);
    }
    await context.close();
    expect(problems).toEqual([]);
  }, 300_000);

  for (const role of ['customer', 'reseller'] as const) {
    it(`the ${role}'s screens`, async () => {
      const context = await portal.browser.newContext({ viewport: COMBOS[0].viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      if (role === 'customer') await portal.signIn(page);
      else await portal.signIn(page, OWNER_EMAIL, PASSWORD);
      const problems: string[] = [];
      for (const [route, screen] of screensOf(role))
        problems.push(...(await sweep(page, `${role}-${slug(route)}`, screen.url(), screen.ready)));
      await context.close();
      expect(problems).toEqual([]);
    }, 600_000);
  }
});
