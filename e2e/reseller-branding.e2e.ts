/**
 * Reseller branding on a custom domain (issue 13): Chromium resolves acme.example.test to the portal, whose login
 * page, tab and mails (the sign-in code, an invitation with its link on that domain) then carry that reseller's brand; a staff owner edits the brand with a live preview, and a
 * customer's next page load shows it.
 */
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { BRANDING_TEXT } from '@portal/contract/reseller-branding';
import { startTestDnsServer, type TestDnsServer } from '../apps/api/test/dns-server.ts';
import { companies, resellerDomains, resellers } from '../apps/api/src/db/schema.ts';
import { createTeam, createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { codeFrom, linkFrom, type CaughtMail } from '../apps/api/test/smtp-catcher.ts';
import { ADMIN, screenshot, startPortal, type Portal } from './support/portal.ts';

const ACME = 'acme.example.test';
const OWNER = 'owner@acme.example';
let portal: Portal;
let acmeUrl: string;
let dns: TestDnsServer;

const svg = (fill: string) =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32"><rect width="120" height="32" fill="${fill}"/></svg>`).toString('base64')}`;

beforeAll(async () => {
  dns = await startTestDnsServer();
  portal = await startPortal({
    env: { DNS_RESOLVER: dns.address },
    browserArgs: [`--host-resolver-rules=MAP ${ACME} 127.0.0.1`],
  });
  acmeUrl = portal.url.replace('127.0.0.1', ACME);
  // The demo reseller becomes "Acme Cloud" on its own domain, with a staff owner.
  const [reseller] = await portal.db
    .update(resellers)
    .set({ name: 'Acme Cloud', email: 'hello@acme.example', logoUrl: svg('#1d4ed8'), tabLogoUrl: svg('#dc2626') })
    .where(eq(resellers.externalId, 'demo-reseller'))
    .returning();
  // Already proven (as the operator's `domains verify` would mark it); a new one is proven below through DNS.
  await portal.db
    .insert(resellerDomains)
    .values({ host: ACME, resellerId: reseller!.id, isPrimary: true, verifiedAt: new Date() });
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: reseller!.id, name: 'Acme staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
});
afterAll(async () => {
  await portal?.stop();
  await dns?.close();
});

/** Signs in through the screens on `origin`; returns the code mail. */
async function signInAt(page: Page, origin: string, email: string, password: string): Promise<CaughtMail> {
  const before = portal.smtp.messages.length;
  await page.goto(`${origin}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/mfa/);
  const mail = await portal.smtp.waitFor(
    email,
    (m) => portal.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
  );
  await page.getByLabel(/code/i).fill(codeFrom(mail));
  await page.getByRole('button', { name: 'Authenticate' }).click();
  await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname));
  return mail;
}

describe('reseller branding on a custom domain', () => {
  it('brands the login page, tab and mails by host; a staff edit shows in the preview and the customer portal', async () => {
    // Before any script: the server put the host's title and icon into the page.
    const raw = await portal.portal.app.inject({ url: '/login', headers: { host: `${ACME}:8443` } });
    expect(raw.body).toContain('<title>Acme Cloud</title>');
    expect(raw.body).toContain(svg('#dc2626'));

    const { context, page } = await portal.newPage();
    // The platform's own address keeps SPEC's defaults.
    await page.goto(`${portal.url}/login`);
    await expect.poll(() => page.title()).toBe('VMP');
    expect(await page.getByAltText(TEXT.companyLogoAlt).count()).toBe(0);

    await page.goto(`${acmeUrl}/login`);
    await expect.poll(() => page.title()).toBe('Acme Cloud');
    await expect.poll(() => page.getByAltText(TEXT.companyLogoAlt).getAttribute('src')).toBe(svg('#1d4ed8'));
    expect(await page.locator('link[rel~="icon"]').getAttribute('href')).toBe(svg('#dc2626'));
    await screenshot(page, 'reseller-branding-login');

    const code = await signInAt(page, acmeUrl, ADMIN.email, ADMIN.password);
    expect(code.subject).toContain('Acme Cloud');
    expect(code.from).toContain('hello@acme.example');
    expect(code.text).toContain(`https://${ACME}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    expect(await page.title()).toBe('Acme Cloud');

    // An invitation sent from the custom host carries the brand, and its link stays on the custom domain.
    await createTeam(portal, 1, 'Acme Crew', [{ userId: 1, roleId: 1 }]);
    await page.goto(`${acmeUrl}/createUser`);
    await page.getByLabel('Email').fill('invitee@acme.example');
    await page.getByLabel('Acme Crew').check();
    await page.getByLabel('Role').selectOption({ label: 'Viewer' });
    await page.getByRole('button', { name: 'Send Invite Email' }).click();
    const invite = await portal.smtp.waitFor('invitee@acme.example', (m) => /invited/i.test(m.subject));
    expect([invite.subject, invite.from]).toEqual([
      'You are invited to Acme Cloud',
      expect.stringContaining('hello@acme.example'),
    ]);
    expect(invite.html).toContain('Acme Cloud');
    const link = linkFrom(invite);
    expect([link.origin, link.pathname]).toEqual([`https://${ACME}`, '/confirmNewUser']);

    // The owner edits the brand: the preview follows the form before anything is saved.
    const staff = await portal.newPage();
    await signInAt(staff.page, acmeUrl, OWNER, PASSWORD);
    await staff.page.getByRole('link', { name: 'Branding' }).first().click();
    const nameField = staff.page.getByLabel('Name (tab title)');
    await expect.poll(() => nameField.inputValue()).toBe('Acme Cloud');
    await nameField.fill('Acme Cloud Pro');
    await staff.page.getByLabel('Logo URL').fill(svg('#047857'));
    const preview = staff.page.getByRole('region', { name: BRANDING_TEXT.previewHeading });
    await expect.poll(() => preview.getByTestId('preview-tab-title').textContent()).toBe('Acme Cloud Pro');
    expect(await preview.getByTestId('preview-login').getByAltText(TEXT.companyLogoAlt).getAttribute('src')).toBe(
      svg('#047857'),
    );
    await screenshot(staff.page, 'reseller-branding-preview');
    await staff.page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => staff.page.getByText(BRANDING_TEXT.saved).isVisible()).toBe(true);

    // A new domain waits for its TXT record: pending, the record to publish, and Verify tells what it looked for.
    const NEW = 'shop.acme.example.test';
    await staff.page.getByLabel('New domain').fill(NEW);
    await staff.page.getByRole('button', { name: 'Add domain' }).click();
    const row = staff.page.getByRole('listitem', { name: NEW });
    await expect.poll(() => row.getByText(BRANDING_TEXT.statePending).isVisible()).toBe(true);
    const recordName = `_portal-verify.${NEW}`;
    await expect.poll(() => row.getByText(recordName).isVisible()).toBe(true);
    const recordValue = (await row.getByText(/^portal-verify=/).textContent())!;
    await row.getByRole('button', { name: `Verify ${NEW}` }).click();
    await expect
      .poll(() =>
        row
          .getByText(`No TXT record ${recordName} with the value ${recordValue} was found`, { exact: false })
          .first()
          .isVisible(),
      )
      .toBe(true);
    // Each part of the record has its copy button (the clipboard itself needs a secure origin, not this http host).
    expect(await row.getByRole('button', { name: /^Copy record (name|value)$/ }).count()).toBe(2);
    await row.scrollIntoViewIfNeeded();
    await screenshot(staff.page, 'reseller-branding-domain-pending');
    dns.txt.set(recordName, [recordValue]);
    await row.getByRole('button', { name: `Verify ${NEW}` }).click();
    await expect.poll(() => row.getByText(BRANDING_TEXT.stateVerified).isVisible()).toBe(true);
    expect(await row.getByText(recordName).count()).toBe(0);
    await expect.poll(() => row.getByRole('button', { name: `Make ${NEW} primary` }).isVisible()).toBe(true);
    await screenshot(staff.page, 'reseller-branding-domain-verified');
    await staff.context.close();

    // The customer's next page load carries the new brand.
    await page.reload();
    await expect.poll(() => page.title()).toBe('Acme Cloud Pro');
    await expect.poll(() => page.getByAltText(TEXT.companyLogoAlt).first().getAttribute('src')).toBe(svg('#047857'));
    await screenshot(page, 'reseller-branding-customer');
    await context.close();
  });
});
