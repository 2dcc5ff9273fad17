/**
 * Issue 25's screens sweep: every screen of the router (its paths are read from apps/web/src/app/router.tsx, so a
 * new screen without a line here fails), for the customer (a company administrator) and the reseller's owner, at
 * 1440x900 and 390x844 in light and dark: nothing wider than the viewport, axe-core with no violations of any
 * impact, a screenshot of each (test-results/screenshots/sweep-*). One browser, one sign-in per role; each screen is
 * loaded once and the viewport and colour scheme change under it (the portal follows the system scheme live).
 * Issue #12's sweep (once ux.e2e.ts's) is part of it: a VM that does not exist, a Viewer's user page, a VM list long
 * enough to page; the VM's Stop confirmation and the reseller's "New provider" open in every look; the phone's
 * navigation drawer open, light and dark (the reseller's closing when one of its links is followed); and the first
 * load following the scheme the browser starts in (the customer's dark, the reseller's light).
 */
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { companies } from '../apps/api/src/db/schema.ts';
import { createTeam, createUser, insertVm, PASSWORD } from '../apps/api/test/fixtures.ts';
import { TEXT } from '@portal/contract/messages';
import { OPERATOR_ROLE_ID, VIEWER_ROLE_ID } from '@portal/contract/permissions';
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
/** The phone's looks: the navigation drawer is there only. */
const PHONE_COMBOS = COMBOS.filter((c) => c.viewport.width < 768);
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
  /** Why a signed-in screen has no title (the others' is awaited). */
  untitled?: string;
}
const WAIT = { timeout: 30_000 };

let portal: Portal;
let vmId = 0;
/** A machine the simulator really runs (created through the API): the console needs one, a row alone has none. */
let machineId = 0;
let teamId = 0;
let userId = 0;
let viewerId = 0;

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
    untitled: 'the console fills the window',
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
  '/virtualMachines': {
    role: 'customer',
    url: () => '/virtualMachines',
    // More machines than a page holds (17): the pagination is part of the screen.
    ready: async (page) => {
      const table = page.getByRole('region', { name: 'Virtual Machines' });
      await expect.poll(() => table.getByText('Page 1 of 2').isVisible(), WAIT).toBe(true);
    },
  },
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

/** Screens beyond one per route: other states of routes swept above. */
const MORE: (Screen & { name: string })[] = [
  {
    name: 'vm-not-found',
    role: 'customer',
    url: () => '/virtualMachineDetails/999999',
    ready: async (page) => {
      await expect.poll(() => page.getByText(TEXT.vmNotFound).isVisible(), WAIT).toBe(true);
    },
  },
  { name: 'user-viewer', role: 'customer', url: () => `/user?id=${viewerId}` },
];

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
  const viewer = await createUser(portal, 1, 'viewer@example.com', { firstName: 'Vera', lastName: 'Viewer' });
  userId = member.id;
  viewerId = viewer.id;
  teamId = (
    await createTeam(portal, 1, 'Ops', [
      { userId: member.id, roleId: OPERATOR_ROLE_ID },
      { userId: viewer.id, roleId: VIEWER_ROLE_ID },
    ])
  ).id;
  vmId = (await insertVm(portal, { companyId: 1, teamId, name: 'web-1', status: 'Running' })).id;
  for (let i = 0; i < 3; i++)
    await insertVm(portal, { companyId: 1, teamId, name: `batch-${i + 1}`, status: 'Stopped' });
  // Enough machines for the lists to page (10 a page): 17 in all.
  for (let i = 0; i < 12; i++)
    await insertVm(portal, { companyId: 1, teamId, name: `list-vm-${String(i).padStart(2, '0')}`, status: 'Stopped' });
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

const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains('dark'));

/**
 * The page as it is, checked in `combos` (all four unless told) switched in place, the portal following each scheme;
 * `open` (a dialog, the drawer) still shown in each. The problems found, as readable lines.
 */
async function inLooks(
  page: Page,
  name: string,
  { combos = COMBOS, open }: { combos?: readonly (typeof COMBOS)[number][]; open?: Locator } = {},
): Promise<string[]> {
  const problems: string[] = [];
  for (const combo of combos) {
    await page.setViewportSize(combo.viewport);
    await page.emulateMedia({ colorScheme: combo.scheme });
    await expect.poll(() => isDark(page), WAIT).toBe(combo.scheme === 'dark');
    await settled(page);
    if (open) expect(await open.isVisible(), `${name}-${combo.tag}: still open`).toBe(true);
    const tag = `${name}-${combo.tag}`;
    await page.screenshot({ path: `${SCREENSHOTS}sweep-${tag}.png`, fullPage: true });
    for (const o of await overflowing(page)) problems.push(`${tag}: wider than the viewport: ${o}`);
    for (const v of await axeViolations(page)) problems.push(`${tag}: axe ${v}`);
  }
  return problems;
}

/** Opens the screen once and checks it in the four combinations (a signed-in one once its title shows). */
async function sweep(page: Page, name: string, screen: Screen): Promise<string[]> {
  await page.goto(`${portal.url}${screen.url()}`);
  await page.getByRole('main').first().waitFor(WAIT);
  if (screen.role !== 'public' && !screen.untitled) await page.getByRole('heading', { level: 1 }).first().waitFor(WAIT);
  await screen.ready?.(page);
  return inLooks(page, name);
}

/** The phone's navigation drawer opened from its menu button, checked light and dark; the drawer, still open. */
async function drawerOpen(page: Page, name: string): Promise<{ drawer: Locator; problems: string[] }> {
  await page.setViewportSize(PHONE_COMBOS[0]!.viewport);
  await page.getByRole('button', { name: TEXT.openNavigation }).click();
  const drawer = page.getByRole('dialog', { name: 'Navigation' });
  await drawer.getByRole('link', { name: 'Activity' }).waitFor(WAIT);
  return { drawer, problems: await inLooks(page, name, { combos: PHONE_COMBOS, open: drawer }) };
}

/** The customer's open states: the VM's Stop confirmation in every look, the drawer on a phone. */
async function customerStates(page: Page): Promise<string[]> {
  await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: TEXT.stopVmTitle });
  await dialog.waitFor(WAIT);
  const problems = await inLooks(page, 'customer-vm-stop-dialog', { open: dialog });
  await page.keyboard.press('Escape');
  await expect.poll(() => dialog.count(), WAIT).toBe(0);
  const { drawer, problems: inDrawer } = await drawerOpen(page, 'customer-drawer-open');
  await page.keyboard.press('Escape');
  await expect.poll(() => drawer.count(), WAIT).toBe(0);
  return [...problems, ...inDrawer];
}

/** The reseller's: "New provider" in every look; the drawer on a phone, closed by following one of its links. */
async function resellerStates(page: Page): Promise<string[]> {
  await page.goto(`${portal.url}/reseller/catalog`);
  await page.getByRole('button', { name: 'New provider' }).click();
  const dialog = page.getByRole('dialog', { name: 'New provider' });
  await dialog.waitFor(WAIT);
  const problems = await inLooks(page, 'reseller-new-provider-dialog', { open: dialog });
  await page.keyboard.press('Escape');
  await expect.poll(() => dialog.count(), WAIT).toBe(0);
  const { drawer, problems: inDrawer } = await drawerOpen(page, 'reseller-drawer-open');
  await drawer.getByRole('link', { name: 'Hosts' }).click();
  await page.waitForURL(/\/reseller\/hosts$/, WAIT);
  await expect.poll(() => drawer.count(), WAIT).toBe(0);
  return [...problems, ...inDrawer];
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
    for (const [route, screen] of screensOf('public')) problems.push(...(await sweep(page, slug(route), screen)));
    // The MFA screen, reached by signing in.
    await page.setViewportSize(COMBOS[0].viewport);
    await page.goto(`${portal.url}/login`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/mfa/);
    problems.push(...(await inLooks(page, 'mfa')));
    await context.close();
    expect(problems).toEqual([]);
  }, 300_000);

  for (const role of ['customer', 'reseller'] as const) {
    it(`the ${role}'s screens`, async () => {
      // The browser starts in a scheme (the customer's dark, the reseller's light) and the first load follows it
      // until the toggle is used; the looks below are then switched in place.
      const scheme = role === 'customer' ? 'dark' : 'light';
      const context = await portal.browser.newContext({ viewport: COMBOS[0].viewport, colorScheme: scheme });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      if (role === 'customer') await portal.signIn(page);
      else await portal.signIn(page, OWNER_EMAIL, PASSWORD);
      expect(await isDark(page), 'the system scheme, followed').toBe(scheme === 'dark');
      const problems: string[] = [];
      for (const [route, screen] of screensOf(role))
        problems.push(...(await sweep(page, `${role}-${slug(route)}`, screen)));
      for (const screen of MORE.filter((s) => s.role === role))
        problems.push(...(await sweep(page, `${role}-${screen.name}`, screen)));
      problems.push(...(await (role === 'customer' ? customerStates(page) : resellerStates(page))));
      await context.close();
      expect(problems).toEqual([]);
    }, 600_000);
  }
});
