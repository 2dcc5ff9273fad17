/**
 * First-load weight and speed of the portal in headless Chromium on loopback (issue #12 point 9):
 *   - /login: JS bytes transferred (gzip and brotli) and the time until the login form is usable;
 *   - dashboard after sign-in: JS bytes of its first load and the time from the accepted code to its data (the
 *     VM Usage and Teams tables), the median of BENCH_RUNS sign-ins in fresh tabs; and a signed-in tab opening /.
 * Goals: <= 150 KB of JS (gzip) for /login; dashboard data <= 800 ms after the code is accepted (median).
 *   - VM details with 30 days of history (issue 25): a VM with 30 days of hourly points and the last 24 h of
 *     minute points stored (what the engine keeps: minutes 24 h, hours 90 days), the time from opening its page
 *     in a signed-in tab to the CPU graph drawn with its points, then from a click on 24h (1,440 minute points) and
 *     on 30d (720 hourly points) to those drawn. Goal: each within 1 s (opening: the median of BENCH_RUNS fresh
 *     tabs, default 5).
 *   - VM list with 1,000 VMs visible to the user (issue 25): the time from opening /virtualMachines in a signed-in
 *     tab to its first page shown with row checkboxes usable, then from a click on Name to the natural order's
 *     first page (bench-graphs, fleet-1 … fleet-9), from choosing Status = Stopped to the filtered page, and from
 *     "Select all on this page" to the bulk bar. Goal: each within 1 s.
 *   npm run build && node --import tsx bench/web-load.bench.ts      (embedded PGlite, local SMTP catcher)
 * Saves bench/results/web-load-<date>.json (web-load-<date>-<BENCH_TAG>.json when BENCH_TAG is set).
 * BENCH_WEB_DIST=<dir> serves another build of the portal (A/B sittings); BENCH_TRACE=1 prints each measured tab's
 * timeline (requests, first paint, long tasks). docs/performance.md says what was found with them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { codeFrom, startSmtpCatcher } from '../apps/api/test/smtp-catcher.ts';
import { companies, virtualMachines, vmMetricHours, vmMetricMinutes } from '../apps/api/src/db/schema.ts';
import { insertVm } from '../apps/api/test/fixtures.ts';
import type { TestApp } from '../apps/api/test/harness.ts';

const EMAIL = 'admin@example.com';
const PASSWORD = 'Bench-Password-1!';
const GOAL_LOGIN_JS_KB = 150;
const GOAL_DASHBOARD_MS = 800;
const GOAL_GRAPHS_MS = 1000;
const GOAL_VM_LIST_MS = 1000;

const smtp = await startSmtpCatcher();
const database = await openDatabase({ dataDir: 'memory://' });
await seedReferenceData(database.db);
await seedDemoTenant(database.db, { adminEmail: EMAIL, adminPassword: PASSWORD });
const portal = await buildApp({
  config: loadConfig({
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    PUBLIC_URL: 'http://127.0.0.1',
  }),
  database,
  secret: 'bench-secret-that-is-long-enough-0123456',
  logger: false,
  // BENCH_WEB_DIST: another build of the portal (e.g. `vite build --outDir /tmp/before/dist`), for A/B sittings.
  ...(process.env.BENCH_WEB_DIST ? { webDistDir: process.env.BENCH_WEB_DIST } : {}),
});
await portal.app.listen({ port: 0, host: '127.0.0.1' });
const address = portal.app.server.address();
const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});

/**
 * Sums the encoded (on-the-wire) body bytes of the JS responses a page loads, once no script has started or
 * finished loading for a second. (Not 'networkidle': a signed-in page keeps its live-status stream open.)
 */
function countJs(page: Page): () => Promise<number> {
  const pending: Promise<number>[] = [];
  let lastActivity = Date.now();
  page.on('request', (request) => {
    if (request.resourceType() === 'script') lastActivity = Date.now();
  });
  // The SharedWorker's script is requested here but reports no end: a quiet second is the signal, not a count.
  page.on('requestfinished', (request) => {
    if (request.resourceType() !== 'script') return;
    lastActivity = Date.now();
    pending.push(request.sizes().then((s) => s.responseBodySize));
  });
  return async () => {
    while (Date.now() - lastActivity < 1000) await new Promise((r) => setTimeout(r, 100));
    return (await Promise.all(pending)).reduce((a, b) => a + b, 0);
  };
}

const TRACE = !!process.env.BENCH_TRACE;

async function newContext(encoding: 'gzip' | 'br', storageState?: Awaited<ReturnType<BrowserContext['storageState']>>) {
  const context = await browser.newContext({
    extraHTTPHeaders: { 'accept-encoding': encoding === 'gzip' ? 'gzip' : 'br, gzip' },
    ...(storageState ? { storageState } : {}),
  });
  // BENCH_TRACE: the main thread's long tasks (parse, compile, render: over 50 ms each), for printTrace.
  if (TRACE)
    await context.addInitScript(() => {
      const tasks: [number, number][] = [];
      (window as unknown as { __longTasks: typeof tasks }).__longTasks = tasks;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]);
      }).observe({ type: 'longtask', buffered: true });
      // When what each measurement waits for first appears in the page (the bench sees it a poll later).
      const shown: Record<string, number> = {};
      (window as unknown as { __shown: typeof shown }).__shown = shown;
      const wanted = [
        '[aria-label="VM Usage"] table',
        'input[aria-label^="Select fleet-"]',
        '[data-graph="cpu"] canvas',
      ];
      new MutationObserver(() => {
        for (const selector of wanted)
          if (!(selector in shown) && document.querySelector(selector)) shown[selector] = performance.now();
      }).observe(document, { childList: true, subtree: true });
    });
  return context;
}

/**
 * BENCH_TRACE=1: a tab's timeline in ms after `from`'s request started (or after navigation start): each request's
 * start, its wait for a connection (q), first byte and end; the first paint; the main thread's long tasks (parse,
 * compile, render). What waits on what, and where the time goes.
 */
async function printTrace(page: Page, label: string, from?: RegExp) {
  if (!TRACE) return;
  // Raw entries from the page, formatted here (a named helper inside evaluate would need tsx's __name there).
  const seen = await page.evaluate(() => ({
    now: performance.now(),
    resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => ({
      name: r.name,
      startTime: r.startTime,
      requestStart: r.requestStart,
      responseStart: r.responseStart,
      responseEnd: r.responseEnd,
    })),
    paints: performance.getEntriesByType('paint').map((p) => ({ name: p.name, startTime: p.startTime })),
    tasks: (window as unknown as { __longTasks?: [number, number][] }).__longTasks ?? [],
    shown: (window as unknown as { __shown?: Record<string, number> }).__shown ?? {},
  }));
  const path = (name: string) => name.replace(/^https?:\/\/[^/]+/, '');
  const zero = from ? (seen.resources.find((r) => from.test(path(r.name).split('?')[0]!))?.startTime ?? 0) : 0;
  const ms = (t: number) =>
    Math.round(t - zero)
      .toString()
      .padStart(5);
  const rows: [number, string][] = [];
  for (const r of seen.resources) {
    if (r.startTime < zero) continue;
    const queued = r.requestStart ? Math.round(r.requestStart - r.startTime) : 0;
    const name = path(r.name).replace(/-[\w-]{8}\.(js|css)$/, '.$1');
    rows.push([
      r.startTime,
      `${ms(r.startTime)} ${queued > 5 ? `q${queued}`.padStart(5) : '     '} ${ms(r.responseStart)} ${ms(r.responseEnd)}  ${name}`,
    ]);
  }
  for (const p of seen.paints)
    if (p.startTime >= zero) rows.push([p.startTime, `${ms(p.startTime)}                    (${p.name})`]);
  for (const [start, duration] of seen.tasks)
    if (start >= zero)
      rows.push([start, `${ms(start)}       ${ms(start + duration)}  (long task ${Math.round(duration)} ms)`]);
  for (const [selector, at] of Object.entries(seen.shown))
    rows.push([at, `${ms(at)}                    (shown: ${selector})`]);
  rows.push([seen.now, `${ms(seen.now)}                    (trace read)`]);
  const text = rows
    .sort((a, b) => a[0] - b[0])
    .map((r) => r[1])
    .join('\n');
  console.log(`---- ${label}: start  queued  first byte  end (ms)\n${text}`);
}

/**
 * Waits for what the user sees, checked in the page at every animation frame (before that frame is painted).
 * Playwright's own waits (locator.waitFor) look after 0, 20, 50, 100 and 100 ms, then every 500 ms, so a time read
 * from them snaps to ~270, ~770, ~1,270 ms…: the dashboard's "bimodal" 602/1,181 ms was that, not the page. Each
 * timed wait below is followed by the locator's own (untimed) wait, which holds the meaning (roles, names).
 */
async function seen<A extends string | null>(page: Page, predicate: (arg: A) => boolean, arg: A): Promise<void> {
  try {
    await page.waitForFunction(predicate as (arg: unknown) => boolean, arg, { polling: 'raf', timeout: 30_000 });
  } catch (err) {
    // What the tab showed instead (twice at load ~8-18 a tab never showed its data: keep the evidence).
    const shot = `/tmp/web-load-timeout-${Date.now()}.png`;
    await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
    const text = await page.evaluate(() => document.body.innerText.slice(0, 400)).catch(() => '');
    console.error(`not seen within 30 s at ${page.url()} (screenshot ${shot}); the page said: ${text}`);
    throw err;
  }
}
const LOGIN_FORM = () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Login');
/** The dashboard's data: the VM Usage table and the Teams table (or its empty message). */
const DASHBOARD_DATA = () =>
  !!document.querySelector('section[aria-label="VM Usage"] table') &&
  !!(
    document.querySelector('section[aria-label="Teams"] table') ||
    document.querySelector('section[aria-label="Teams"]')?.textContent?.includes('No teams found')
  );
const HEADING = (name: string) => [...document.querySelectorAll('h1')].some((h) => h.textContent?.trim() === name);
/** The VM list's first page with its row checkboxes. */
const LIST_ROWS = () => !!document.querySelector('input[type="checkbox"][aria-label^="Select fleet-"]');

async function waitForDashboardData(page: Page) {
  await seen(page, DASHBOARD_DATA, null);
  return async () => {
    await page.getByRole('region', { name: 'VM Usage' }).getByRole('table').waitFor();
    await page.getByRole('region', { name: 'Teams' }).locator('table, :text("No teams found")').first().waitFor();
  };
}

async function loginLoad(encoding: 'gzip' | 'br') {
  const context = await newContext(encoding);
  const page = await context.newPage();
  const js = countJs(page);
  const t0 = Date.now();
  await page.goto(`${origin}/login`);
  await seen(page, LOGIN_FORM, null);
  const formMs = Date.now() - t0;
  await page.getByRole('button', { name: 'Login' }).waitFor();
  return { context, page, formMs, jsBytes: await js() };
}

async function signInAndTimeDashboard(page: Page) {
  const before = smtp.messages.length;
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/mfa/);
  const mail = await smtp.waitFor(
    EMAIL,
    (m) => smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
  );
  await page.getByLabel(/code/i).fill(codeFrom(mail));
  const t0 = Date.now();
  await page.getByRole('button', { name: 'Authenticate' }).click();
  const check = await waitForDashboardData(page);
  const ms = Date.now() - t0;
  await check();
  return ms;
}

/** Each timed opening is repeated in BENCH_RUNS fresh tabs (default 5) and judged on the median. */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : Math.round((s[s.length / 2 - 1]! + s[s.length / 2]!) / 2);
};

// Sign-in to the dashboard's data in RUNS fresh tabs (each its own /login, password and emailed code): one sample
// swung between ~600 and ~1,200 ms, so the goal is judged on the median, as the list's and the details' are.
const gzipLogin = await loginLoad('gzip');
const dashboardRuns = [await signInAndTimeDashboard(gzipLogin.page)];
await printTrace(gzipLogin.page, 'dashboard after the code', /\/auth\/mfa$/);
const state = await gzipLogin.context.storageState();
await gzipLogin.context.close();
for (let run = 1; run < RUNS; run++) {
  const login = await loginLoad('gzip');
  dashboardRuns.push(await signInAndTimeDashboard(login.page));
  await login.context.close();
}
const dashboardMs = median(dashboardRuns);
const brLogin = await loginLoad('br');
await brLogin.context.close();
console.log(
  `dashboard  data after the code: median ${dashboardMs} ms of ${dashboardRuns.length} (${dashboardRuns.join(', ')})`,
);

// The dashboard's own first load (fresh tabs of a signed-in browser; the first also counts its JS).
const dashboardColdRuns: number[] = [];
let dashboardJsBytes = 0;
for (let run = 0; run < RUNS; run++) {
  const dashContext = await newContext('gzip', state);
  const dashPage = await dashContext.newPage();
  const dashJs = run === 0 ? countJs(dashPage) : null;
  const d0 = Date.now();
  await dashPage.goto(`${origin}/`);
  const check = await waitForDashboardData(dashPage);
  dashboardColdRuns.push(Date.now() - d0);
  await check();
  if (dashJs) {
    dashboardJsBytes = await dashJs();
    await printTrace(dashPage, 'dashboard opened in a signed-in tab');
  }
  await dashContext.close();
}
const dashboardColdMs = median(dashboardColdRuns);
console.log(
  `dashboard  signed-in tab opened to data: median ${dashboardColdMs} ms of ${dashboardColdRuns.length} (${dashboardColdRuns.join(', ')})`,
);

// ---- VM details with 30 days of history (issue 25's Benchmark) ----
const MINUTE = 60_000;
const HOUR = 3_600_000;
const [company] = await database.db.select({ id: companies.id }).from(companies).limit(1);
const graphVm = await insertVm({ db: database.db } as TestApp, {
  companyId: company!.id,
  teamId: null,
  name: 'bench-graphs',
});
const bucketOf = (at: number, seconds: number) => {
  const cpu = 0.45 + 0.35 * Math.sin(at / (6 * HOUR));
  return {
    vmId: graphVm.id,
    seconds,
    cpuNs: Math.round(seconds * 2e9 * cpu),
    cpuCapacityNs: seconds * 2e9,
    memorySamples: 1,
    memoryBytesSum: Math.round((1.5 + 0.5 * cpu) * 1024 ** 3),
    diskReadBytes: seconds * 400_000,
    diskWriteBytes: seconds * 900_000,
    netRxBytes: seconds * 150_000,
    netTxBytes: seconds * 60_000,
  };
};
const nowMs = Date.now();
const hourRows = [];
for (let t = Math.floor(nowMs / HOUR) * HOUR - 30 * 24 * HOUR; t < nowMs - HOUR; t += HOUR) {
  hourRows.push({ ...bucketOf(t, 3600), hour: new Date(t) });
}
const minuteRows = [];
for (let t = Math.floor(nowMs / MINUTE) * MINUTE - 24 * HOUR + MINUTE; t < nowMs; t += MINUTE) {
  minuteRows.push({ ...bucketOf(t, 60), minute: new Date(t) });
}
for (let i = 0; i < hourRows.length; i += 500)
  await database.db.insert(vmMetricHours).values(hourRows.slice(i, i + 500));
for (let i = 0; i < minuteRows.length; i += 500)
  await database.db.insert(vmMetricMinutes).values(minuteRows.slice(i, i + 500));

/** Fresh signed-in tabs opening the details page: medians of RUNS (the first is also the one measured further). */
const shownRuns: number[] = [];
const drawnRuns: number[] = [];
/** /login's bare form in a fresh tab before each details run: the same moment's load, so their ratio is the page's own cost. */
const loginRuns: number[] = [];
for (let run = 1; run < RUNS; run++) {
  const login = await loginLoad('gzip');
  loginRuns.push(login.formMs);
  await login.context.close();
  const ctx = await newContext('gzip', state);
  const p = await ctx.newPage();
  const r0 = Date.now();
  await p.goto(`${origin}/virtualMachineDetails/${graphVm.id}`);
  await seen(p, HEADING, 'bench-graphs');
  shownRuns.push(Date.now() - r0);
  await p.getByRole('heading', { name: 'bench-graphs' }).waitFor();
  await p.locator('[data-graph="cpu"] canvas').waitFor();
  const deadline = Date.now() + 30_000;
  while (
    Number(
      (await p
        .locator('[data-graph="cpu"]')
        .getAttribute('data-points')
        .catch(() => null)) ?? 0,
    ) < 55 &&
    Date.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 5));
  drawnRuns.push(Date.now() - r0);
  await ctx.close();
}

const graphsContext = await newContext('gzip', state);
const graphsPage = await graphsContext.newPage();
const graphsJs = countJs(graphsPage);
const cpuPoints = async () =>
  Number(
    (await graphsPage
      .locator('[data-graph="cpu"]')
      .getAttribute('data-points')
      .catch(() => null)) ?? 0,
  );
async function until(test: () => Promise<boolean>, what = 'the graphs') {
  const deadline = Date.now() + 30_000;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what} not drawn within 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const g0 = Date.now();
await graphsPage.goto(`${origin}/virtualMachineDetails/${graphVm.id}`);
await seen(graphsPage, HEADING, 'bench-graphs');
const detailsShownMs = Date.now() - g0;
await graphsPage.getByRole('heading', { name: 'bench-graphs' }).waitFor();
await graphsPage.locator('[data-graph="cpu"] canvas').waitFor();
await until(async () => (await cpuPoints()) >= 55);
const graphsOpenMs = Date.now() - g0;
await printTrace(graphsPage, 'VM details opened');
shownRuns.push(detailsShownMs);
drawnRuns.push(graphsOpenMs);
loginRuns.push(gzipLogin.formMs);
const loginFormMedianMs = median(loginRuns);
const detailsShownMedianMs = median(shownRuns);
const graphsOpenMedianMs = median(drawnRuns);
const graphsJsBytes = await graphsJs();
const rangeMs: Record<string, number> = {};
for (const [range, least] of [
  ['24h', minuteRows.length - 5],
  ['30d', hourRows.length - 5],
] as const) {
  const t0 = Date.now();
  await graphsPage.getByRole('group', { name: 'Time range' }).getByRole('button', { name: range }).click();
  await until(async () => (await cpuPoints()) >= least);
  rangeMs[range] = Date.now() - t0;
}
// The legend follows the cursor: one move over the 30-day chart and the legend's time changes.
const legendTime = () => graphsPage.locator('[data-graph="cpu"] .u-legend .u-series').first().textContent();
const before = await legendTime();
const box = (await graphsPage.locator('[data-graph="cpu"] .u-over').boundingBox())!;
const h0 = Date.now();
await graphsPage.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
await until(async () => (await legendTime()) !== before);
const hoverMs = Date.now() - h0;
await graphsContext.close();
// Said at once, so the figures are seen even if a later part fails.
console.log(
  `VM graphs  opened to details shown: median ${detailsShownMedianMs} ms of ${shownRuns.length} (${shownRuns.join(', ')}); to CPU graph drawn: median ${graphsOpenMedianMs} ms (${drawnRuns.join(', ')})`,
);
console.log(
  `/login      beside them: bare form median ${loginFormMedianMs} ms (${loginRuns.join(', ')}); details / login ${(detailsShownMedianMs / loginFormMedianMs).toFixed(2)}`,
);

// ---- The VM list with 1,000 VMs visible to the user (issue 25's Benchmark) ----
const FLEET = 999; // with bench-graphs: 1,000
for (let i = 0; i < FLEET; i += 500)
  await database.db.insert(virtualMachines).values(
    Array.from({ length: Math.min(500, FLEET - i) }, (_, j) => ({
      companyId: company!.id,
      teamId: null,
      name: `fleet-${i + j + 1}`,
      status: (i + j) % 3 === 0 ? ('Stopped' as const) : ('Running' as const),
      configurationId: graphVm.configurationId,
      regionId: graphVm.regionId,
      image: 'Debian 12',
      providerId: graphVm.providerId,
      publicIp: `198.51.100.${(i + j) % 250}`,
      privateIp: `10.9.${Math.floor((i + j) / 250)}.${(i + j) % 250}`,
    })),
  );
const listContext = await newContext('gzip', state);
const listPage = await listContext.newPage();
const listJs = countJs(listPage);
const listRows = () =>
  listPage
    .getByRole('region', { name: 'Virtual Machines' })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')));
const l0 = Date.now();
await listPage.goto(`${origin}/virtualMachines`);
await seen(listPage, LIST_ROWS, null);
const listOpenMs = Date.now() - l0;
await listPage
  .getByRole('checkbox', { name: /^Select fleet-/ })
  .first()
  .waitFor();
const listJsBytes = await listJs();
await printTrace(listPage, 'VM list opened');
const s0 = Date.now();
await listPage.getByRole('button', { name: 'Name' }).click();
// bench-graphs, then fleet-1 … fleet-9 (not fleet-1, fleet-10, fleet-100 …).
const naturalFirstPage = ['bench-graphs', ...Array.from({ length: 9 }, (_, i) => `fleet-${i + 1}`)].join();
await until(async () => (await listRows()).join() === naturalFirstPage, 'the name-sorted page');
const listSortMs = Date.now() - s0;
const f0 = Date.now();
await listPage.getByLabel('Status').selectOption('Stopped');
await until(
  async () => (await listRows())[0] === 'fleet-1' && (await listRows())[1] === 'fleet-4',
  'the filtered page',
);
const listFilterMs = Date.now() - f0;
const b0 = Date.now();
await listPage.getByRole('checkbox', { name: 'Select all on this page' }).check();
await seen(listPage, () => !!document.querySelector('[role="toolbar"][aria-label="Bulk actions"]'), null);
const listSelectMs = Date.now() - b0;
await listPage.getByRole('toolbar', { name: 'Bulk actions' }).waitFor();
await listContext.close();
// More fresh tabs opening the list, as for the details page: the goal is judged on the median of RUNS openings.
const listOpenRuns = [listOpenMs];
for (let run = 1; run < RUNS; run++) {
  const context = await newContext('gzip', state);
  const page = await context.newPage();
  const t = Date.now();
  await page.goto(`${origin}/virtualMachines`);
  await seen(page, LIST_ROWS, null);
  listOpenRuns.push(Date.now() - t);
  await page
    .getByRole('checkbox', { name: /^Select fleet-/ })
    .first()
    .waitFor();
  await context.close();
}
const listOpenMedianMs = median(listOpenRuns);

const kb = (n: number) => Math.round(n / 102.4) / 10;
const result = {
  date: new Date().toISOString(),
  login: { jsGzipKb: kb(gzipLogin.jsBytes), jsBrotliKb: kb(brLogin.jsBytes), timeToFormMs: gzipLogin.formMs },
  dashboard: {
    jsGzipKb: kb(dashboardJsBytes),
    runs: dashboardRuns.length,
    /** Median of the runs (sign-in in a fresh tab each: the code accepted to the VM Usage and Teams tables). */
    dataAfterCodeMs: dashboardMs,
    dataAfterCodeRunsMs: dashboardRuns,
    /** Median of fresh signed-in tabs opening / to the same tables. */
    coldLoadToDataMs: dashboardColdMs,
    coldLoadToDataRunsMs: dashboardColdRuns,
  },
  vmGraphs: {
    stored: { hourPoints: hourRows.length, minutePoints: minuteRows.length },
    jsGzipKb: kb(graphsJsBytes),
    openToDetailsShownMs: detailsShownMs,
    openToCpuGraphMs: graphsOpenMs,
    runs: shownRuns.length,
    openToDetailsShownMedianMs: detailsShownMedianMs,
    openToCpuGraphMedianMs: graphsOpenMedianMs,
    openToCpuGraphRunsMs: drawnRuns,
    openToDetailsShownRunsMs: shownRuns,
    /** /login's form in a fresh tab before each run (the last: the first load above), for the machine's load. */
    loginFormMedianMs,
    loginFormRunsMs: loginRuns,
    range24hMinutePointsMs: rangeMs['24h'],
    range30dHourlyPointsMs: rangeMs['30d'],
    legendFollowsCursorMs: hoverMs,
  },
  vmList: {
    visibleVms: FLEET + 1,
    jsGzipKb: kb(listJsBytes),
    openToRowsMs: listOpenMs,
    openToRowsRunsMs: listOpenRuns,
    openToRowsMedianMs: listOpenMedianMs,
    sortByNameMs: listSortMs,
    filterByStatusMs: listFilterMs,
    selectPageMs: listSelectMs,
  },
  goals: {
    loginJsGzipKb: GOAL_LOGIN_JS_KB,
    dashboardDataMs: GOAL_DASHBOARD_MS,
    vmGraphsMs: GOAL_GRAPHS_MS,
    vmListMs: GOAL_VM_LIST_MS,
  },
  met: {
    loginJs: kb(gzipLogin.jsBytes) <= GOAL_LOGIN_JS_KB,
    dashboardData: dashboardMs <= GOAL_DASHBOARD_MS,
    vmGraphs: Math.max(graphsOpenMedianMs, rangeMs['24h'] ?? Infinity, rangeMs['30d'] ?? Infinity) <= GOAL_GRAPHS_MS,
    vmList: Math.max(listOpenMedianMs, listSortMs, listFilterMs, listSelectMs) <= GOAL_VM_LIST_MS,
  },
};
console.log(
  `/login      JS ${result.login.jsGzipKb} KB gzip (${result.login.jsBrotliKb} KB brotli), form usable after ${result.login.timeToFormMs} ms  [goal <= ${GOAL_LOGIN_JS_KB} KB: ${result.met.loginJs ? 'met' : 'NOT met'}]`,
);
console.log(
  `dashboard  data ${dashboardMs} ms after the code was accepted (median of ${dashboardRuns.length}: ${dashboardRuns.join(', ')})  [goal <= ${GOAL_DASHBOARD_MS} ms: ${result.met.dashboardData ? 'met' : 'NOT met'}]`,
);
console.log(
  `dashboard  first load of a signed-in tab: JS ${result.dashboard.jsGzipKb} KB gzip, data after ${dashboardColdMs} ms (median; runs ${dashboardColdRuns.join(', ')})`,
);
console.log(
  `VM graphs  page opened to details shown ${detailsShownMs} ms (median of ${shownRuns.length}: ${detailsShownMedianMs} ms), to CPU graph drawn ${graphsOpenMs} ms (median ${graphsOpenMedianMs} ms; runs ${drawnRuns.join(', ')}) (JS ${result.vmGraphs.jsGzipKb} KB gzip); 24h (${minuteRows.length} minute points) ${rangeMs['24h']} ms; 30d (${hourRows.length} hourly points) ${rangeMs['30d']} ms; legend follows the cursor in ${hoverMs} ms  [goal <= ${GOAL_GRAPHS_MS} ms: ${result.met.vmGraphs ? 'met' : 'NOT met'}]`,
);
console.log(
  `VM list    ${FLEET + 1} VMs: page opened to rows ${listOpenMs} ms (median of ${listOpenRuns.length}: ${listOpenMedianMs} ms; runs ${listOpenRuns.join(', ')}) (JS ${result.vmList.jsGzipKb} KB gzip); sort by name ${listSortMs} ms; filter Stopped ${listFilterMs} ms; select page ${listSelectMs} ms  [goal <= ${GOAL_VM_LIST_MS} ms: ${result.met.vmList ? 'met' : 'NOT met'}]`,
);
mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
writeFileSync(
  // BENCH_TAG names a run (e.g. before/after a change): web-load-<date>-<tag>.json
  new URL(
    `./results/web-load-${result.date.slice(0, 10)}${process.env.BENCH_TAG ? `-${process.env.BENCH_TAG}` : ''}.json`,
    import.meta.url,
  ),
  `${JSON.stringify(result, null, 2)}\n`,
);

await browser.close();
await portal.close();
await database.close();
await smtp.close();
