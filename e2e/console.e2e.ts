/**
 * The live console of a real VM in Chromium (one guest under TCG on a libvirtd this test starts): the noVNC
 * canvas connects and shows the guest's screen, the paste box types a command on it, the serial tab shows the
 * login prompt and takes the VM's password (and sees what was typed on the display), Ctrl-Alt-Del reboots the
 * guest; then the console again through a real nginx on loopback (docs/reverse-proxy.md), and a second window taking
 * the serial console over.
 */
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import type { Page } from 'playwright-core';
import { routes } from '@portal/contract/routes';
import { auditLog, configurations, providerOfferings, providers, regions } from '../apps/api/src/db/schema.ts';
import { REF_RE } from '../apps/api/src/providers/libvirt/names.ts';
import { signIn } from '../apps/api/test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';
import { startReverseProxy, type ReverseProxy } from './support/reverse-proxy.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

const POOL = 'irontest-e2e-console';
const NETWORK = 'irontest-e2e-console';

let daemon: LibvirtDaemon;
let portal: Portal;
let proxy: ReverseProxy;
let vmId = 0;
let password = '';

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  portal = await startPortal({ env: { VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '100000' } });
  proxy = await startReverseProxy(new URL(portal.url).origin);
  const admin = await signIn(portal);
  const settings = {
    uri: daemon.socketUri,
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
    network: { name: NETWORK, bridge: 'irontestw0', cidr: '10.231.84.0/24' },
    // The busybox fixture: this test is about the console pages.
    guestImage: 'test-fixture',
  };
  const [provider] = await portal.db
    .insert(providers)
    .values({ name: 'E2E libvirt', driver: 'libvirt', settings })
    .returning();
  const [region] = (await portal.db.select().from(regions)).filter((r) => r.name === 'US East');
  const [micro] = (await portal.db.select().from(configurations)).filter((c) => c.key === 'micro');
  await portal.db
    .insert(providerOfferings)
    .values({ providerId: provider!.id, regionId: region!.id, configurationId: micro!.id });
  const created = await admin.call(routes.vms.create, {
    body: {
      regionId: region!.id,
      image: 'Debian 12',
      configurationId: micro!.id,
      providerId: provider!.id,
      name: 'e2e-console',
      numberOfInstances: 1,
    },
  });
  vmId = created.data.ids[0] as number;
  const deadline = Date.now() + 300_000;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id: vmId } });
    if (res.data?.status === 'Running') break;
    if (res.data?.status === 'Error' || Date.now() > deadline)
      throw new Error(`VM ${vmId}: ${res.data?.status} ${res.data?.errorReason ?? ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  password = (await admin.call(routes.vms.getPassword, { params: { id: vmId } })).data.sshPassword;
}, 900_000);

afterAll(async () => {
  await proxy?.stop();
  await portal?.stop();
  await daemon?.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
  await rm(path.join(LIBVIRT_TEST_DIR, POOL), { recursive: true, force: true });
}, 120_000);

/** How many distinct colours the noVNC canvas shows (a blank screen has one). */
const canvasColours = (page: Page) =>
  page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('[data-testid="vnc-screen"] canvas');
    if (!canvas || canvas.width < 10) return 0;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
    return seen.size;
  });

const BOOT_RE = /BOOT=([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/;
const terminalText = (page: Page) => page.getByTestId('serial-terminal').locator('.xterm-rows').innerText();

async function typeInPasteBox(page: Page, text: string) {
  await page.getByLabel('Paste text').fill(text);
  await page.getByRole('button', { name: 'Type text' }).click();
}

/**
 * Types on the serial console through the paste box, as a person pasting would. The page paces what it sends to
 * the serial line (8 bytes every 12 ms, paced-writer.ts): a guest's UART holds 16 bytes, and under TCG on a busy
 * machine a burst (a 24-character password) arrived faster than the guest drained it ("Login incorrect").
 */
const typeOnSerial = typeInPasteBox;

/**
 * Serial tab: log in with the VM's password. The guest's serial line outlives a console connection, so a shell an
 * earlier connection left open answers the page's wake-up Enter with its prompt: log that one out first.
 */
async function serialLogin(page: Page) {
  await page.getByRole('tab', { name: 'Serial' }).click();
  await expect.poll(() => page.getByRole('status').textContent(), { timeout: 20_000 }).toBe('Connected');
  await expect.poll(() => terminalText(page), { timeout: 60_000 }).toMatch(/e2e-console login:|~ # /);
  await page.getByTestId('serial-terminal').click();
  if (!/e2e-console login:/.test(await terminalText(page))) {
    await typeOnSerial(page, 'exit\n');
    await expect.poll(() => terminalText(page), { timeout: 60_000 }).toMatch(/e2e-console login:/);
  }
  await typeOnSerial(page, 'root\n');
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/Password:/);
  await typeOnSerial(page, `${password}\n`);
  await expect.poll(() => terminalText(page), { timeout: 60_000 }).toMatch(/~ # /);
}

async function openConsole(page: Page, base: string) {
  await page.goto(`${base}/virtualMachineConsole/${vmId}`);
  await expect.poll(() => page.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Connected');
  await expect.poll(() => page.getByRole('tab', { name: 'Graphical' }).getAttribute('aria-selected')).toBe('true');
  // The guest's text login on its VGA display: more than one colour on the canvas.
  await expect.poll(() => canvasColours(page), { timeout: 60_000 }).toBeGreaterThan(1);
}

it(
  'shows the guest screen, types through the paste box, logs in on the serial tab and reboots with Ctrl-Alt-Del',
  { timeout: 600_000 },
  async () => {
    const { context, page } = await portal.newPage();
    onTestFinished(() => context.close());
    await portal.signIn(page);
    await openConsole(page, portal.url);
    await screenshot(page, 'console-graphical');

    // Log in on the display through the paste box and leave a mark the serial console can see.
    await typeInPasteBox(page, 'root\n');
    await new Promise((r) => setTimeout(r, 2000));
    await typeInPasteBox(page, `${password}\n`);
    await new Promise((r) => setTimeout(r, 5000));
    await typeInPasteBox(page, 'touch /root/typed-on-vnc\n');

    await serialLogin(page);
    // Graphical → Serial opened one serial console: the display the page let go of once reported its disconnect as
    // a refused display, and the page opened a second serial console that raced the first for the guest's line.
    const opened = (await portal.db.select().from(auditLog)).filter(
      (r) => r.action === 'vm.console.open' && r.targetId === String(vmId),
    );
    expect(opened.map((r) => (r.after as { kind: string }).kind)).toEqual(['vnc', 'serial']);
    await typeOnSerial(page, 'ls /root; echo BOOT=$(cat /proc/sys/kernel/random/boot_id)\n');
    await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/BOOT=[0-9a-f-]{36}/);
    expect(await terminalText(page)).toMatch(/typed-on-vnc/);
    const bootId = BOOT_RE.exec(await terminalText(page))?.[1];
    expect(bootId).toBeTruthy();
    await screenshot(page, 'console-serial');

    // Ctrl-Alt-Del on the display: systemd reboots the guest; the serial console sees a new boot.
    await page.getByRole('tab', { name: 'Graphical' }).click();
    await expect.poll(() => page.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Connected');
    await page.getByRole('button', { name: 'Ctrl-Alt-Del' }).click();
    // Let the shutdown begin (the getty goes first) before the serial console waits for the next login prompt.
    await new Promise((r) => setTimeout(r, 8000));
    await page.getByRole('tab', { name: 'Serial' }).click();
    await expect.poll(() => terminalText(page), { timeout: 240_000 }).toMatch(/e2e-console login:/);
    await serialLogin(page);
    await typeOnSerial(page, 'echo BOOT=$(cat /proc/sys/kernel/random/boot_id)\n');
    await expect
      .poll(async () => BOOT_RE.exec(await terminalText(page))?.[1], { timeout: 30_000 })
      .toMatch(/^[0-9a-f-]{36}$/);
    const after = BOOT_RE.exec(await terminalText(page))?.[1];
    expect(after).not.toBe(bootId);
    // Leave the serial line as it was found: at the login prompt.
    await typeOnSerial(page, 'exit\n');
  },
);

it('works the same through a reverse proxy (nginx on loopback)', { timeout: 300_000 }, async () => {
  const { context, page } = await portal.newPage();
  onTestFinished(() => context.close());
  await portal.signIn(page);
  // The same session, now through the proxy's address (cookies are per host, not per port).
  await openConsole(page, proxy.origin);
  await serialLogin(page);
  await typeOnSerial(page, 'echo through-$((6*7))\n');
  await expect.poll(() => terminalText(page), { timeout: 30_000 }).toMatch(/through-42/);
  expect(proxy.kind).toBe('nginx');
  await screenshot(page, 'console-through-nginx');

  // The same machine's serial console opened in a second window takes the line: the first says so and disconnects,
  // the second has the shell the first left.
  const second = await context.newPage();
  await second.goto(`${portal.url}/virtualMachineConsole/${vmId}`);
  await expect.poll(() => second.getByRole('status').textContent(), { timeout: 30_000 }).toBe('Connected');
  await second.getByRole('tab', { name: 'Serial' }).click();
  await expect.poll(() => second.getByRole('status').textContent(), { timeout: 20_000 }).toBe('Connected');
  await expect
    .poll(() => terminalText(page), { timeout: 30_000 })
    .toContain('[The serial console was opened in another window.]');
  await expect.poll(() => page.getByRole('status').textContent()).toBe('Disconnected');
  await second.getByTestId('serial-terminal').click();
  await typeOnSerial(second, 'echo second-$((6*7))\n');
  await expect.poll(() => terminalText(second), { timeout: 30_000 }).toMatch(/second-42/);
  await screenshot(page, 'console-taken-over');
  // Leave the serial line as it was found: at the login prompt.
  await typeOnSerial(second, 'exit\n');
});
