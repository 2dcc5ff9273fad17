/**
 * Reseller branding and custom domains (issue 13): the brand a host shows before sign-in, staff edits (owner
 * writes, support reads, another reseller's staff reach nothing), domain conflicts, mailed links on the primary
 * domain, and sign-in refused on another reseller's domain. Issue 21: the platform's names, public suffixes and
 * addresses cannot be claimed; a domain serves only once its TXT record is found by a real DNS server on loopback.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { API_MESSAGES, VALIDATION } from '@portal/contract/messages';
import {
  BRANDING_TEXT,
  hostPendingElsewhereText,
  verifyFailedText,
  type ResellerDomain,
} from '@portal/contract/reseller-branding';
import { auditLog, companies, distributors, resellers } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { brandIndexHtml } from '../../plugins/static-web.ts';
import { createOperatorTokens } from '../../../test/module-parts.ts';
import { startTestDnsServer, type TestDnsServer } from '../../../test/dns-server.ts';

const r = routes.resellerBranding;
const ACME = 'acme.example.test';
let t: TestApp;
let northwindId: number;
let owner: TestClient;
let support: TestClient;
let otherOwner: TestClient;
let customer: TestClient;
let dns: TestDnsServer;

/** A reseller's staff company with one member of `role`. */
async function staffOf(resellerId: number, email: string, role: 'owner' | 'support') {
  let [company] = await t.db
    .select()
    .from(companies)
    .where(eq(companies.resellerId, resellerId))
    .then((rows) => rows.filter((c) => c.kind === 'staff'));
  company ??= (await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning())[0]!;
  return createUser(t, company.id, email, { staffRole: role });
}

const brandAt = (host: string) => t.client().call(r.publicBrand, { headers: { host } });

/** The domain as the reseller area lists it to `client`. */
async function domainOf(client: TestClient, host: string): Promise<ResellerDomain | undefined> {
  return (await client.call(r.get)).data.domains.find((d) => d.host === host);
}

/** Publishes the TXT record the reseller area shows for `host` on the test's DNS server and presses Verify. */
async function prove(client: TestClient, host: string) {
  const domain = await domainOf(client, host);
  dns.txt.set(domain!.record.name, [domain!.record.value]);
  return client.call(r.verifyDomain, { params: { host } });
}

beforeAll(async () => {
  // The session cache on (it runs on PostgreSQL): a brand edit must not leave a stale profile in it.
  dns = await startTestDnsServer();
  t = await createTestApp({
    env: { SESSION_CACHE: 'true', DNS_RESOLVER: dns.address, PLATFORM_HOSTS: 'www.portal.test, Admin.Portal.test' },
  });
  const [northwind] = await t.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
  northwindId = northwind!.id;
  await staffOf(northwindId, 'owner@northwind.example', 'owner');
  await staffOf(northwindId, 'support@northwind.example', 'support');
  const [d] = await t.db.insert(distributors).values({ name: 'Other Distributor' }).returning();
  const [other] = await t.db
    .insert(resellers)
    .values({ distributorId: d!.id, name: 'Globex Cloud', email: 'no-reply@globex.example' })
    .returning();
  const [globexCustomer] = await t.db
    .insert(companies)
    .values({ resellerId: other!.id, name: 'Globex Customer' })
    .returning();
  await createUser(t, globexCustomer!.id, 'user@globex.example');
  await staffOf(other!.id, 'owner@globex.example', 'owner');
  [owner, support, otherOwner, customer] = await Promise.all([
    signIn(t, 'owner@northwind.example', PASSWORD),
    signIn(t, 'support@northwind.example', PASSWORD),
    signIn(t, 'owner@globex.example', PASSWORD),
    signIn(t),
  ]);
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

describe('brand by host', () => {
  it('answers the defaults for an unknown host, the reseller brand for its domain (any case, any port)', async () => {
    expect((await brandAt('portal.test')).data).toEqual({ resellerName: null, logoUrl: null, tabLogoUrl: null });

    const added = await owner.call(r.addDomain, { body: { host: ' Acme.Example.TEST ' } });
    expect(added.status).toBe(200);
    // Pending until proven: not primary, and the record to publish is shown.
    const [pending] = added.data.domains;
    expect(pending).toEqual({
      host: ACME,
      isPrimary: false,
      state: 'pending',
      record: { name: `_portal-verify.${ACME}`, value: expect.stringMatching(/^portal-verify=[0-9a-f]{32}$/) },
      lastCheckedAt: null,
      lastCheckError: null,
    });
    // A pending domain brands nothing: the login page there still shows the defaults.
    expect((await brandAt(ACME)).data.resellerName).toBeNull();
    expect((await owner.call(r.setPrimaryDomain, { params: { host: ACME } })).message).toBe(
      BRANDING_TEXT.domainPendingPrimary,
    );

    // A wrong value at the name: the check fails, says what it looked for, and the domain stays pending.
    dns.txt.set(pending!.record.name, ['portal-verify=someone-elses-token']);
    const queries = dns.queries();
    const wrong = await owner.call(r.verifyDomain, { params: { host: ACME } });
    expect([wrong.status, wrong.message]).toEqual([409, verifyFailedText(pending!.record)]);
    expect(wrong.message).toBe(
      `No TXT record _portal-verify.${ACME} with the value ${pending!.record.value} was found`,
    );
    expect(dns.queries()).toBeGreaterThan(queries); // asked through DNS_RESOLVER
    expect(await domainOf(owner, ACME)).toMatchObject({
      state: 'pending',
      lastCheckError: wrong.message,
      lastCheckedAt: expect.any(String),
    });
    expect((await brandAt(ACME)).data.resellerName).toBeNull();
    // Support staff may not press Verify.
    expect((await support.call(r.verifyDomain, { params: { host: ACME } })).status).toBe(403);

    // The right value: verified, and as the first verified domain it becomes the primary one.
    const proven = await prove(owner, ACME);
    expect([proven.status, proven.message]).toEqual([200, BRANDING_TEXT.domainVerified]);
    expect(proven.data.domains).toEqual([
      { ...pending, isPrimary: true, state: 'verified', lastCheckedAt: expect.any(String), lastCheckError: null },
    ]);

    for (const host of [ACME, 'ACME.example.test:8443', `${ACME}.`]) {
      const res = await brandAt(host);
      expect(res.status).toBe(200);
      expect(res.data.resellerName).toBe('Northwind Hosting');
      expect(res.data).not.toHaveProperty('email');
    }
    expect((await brandAt('other.example.test')).data.resellerName).toBeNull();
    // Without TRUST_PROXY a client cannot choose a brand with X-Forwarded-Host.
    const forged = await t.client().call(r.publicBrand, { headers: { host: 'portal.test', 'x-forwarded-host': ACME } });
    expect(forged.data.resellerName).toBeNull();
  });

  it('puts the title and icon of the host into index.html', () => {
    const html = '<head><link rel="icon" href="data:default" /><title>VMP</title></head>';
    const out = brandIndexHtml(html, { resellerName: 'A & B $& <x>', tabLogoUrl: 'https://cdn.example/i.png?a="1"' });
    expect(out).toContain('<title>A &amp; B $&amp; &lt;x&gt;</title>');
    expect(out).toContain('href="https://cdn.example/i.png?a=&quot;1&quot;"');
  });
});

describe('staff edit the branding', () => {
  it('owner saves; the brand shows on the host and in the customer profile; support and customers are refused', async () => {
    const body = {
      name: 'Acme Cloud',
      logoUrl: 'https://cdn.example.com/acme.svg',
      tabLogoUrl: '',
      email: 'Hello@Acme.example',
      supportEmail: 'help@acme.example',
    };
    // The customer's profile (with the old brand) is in the session cache now.
    expect((await customer.call(routes.auth.check)).data).toMatchObject({
      user: { resellerName: 'Northwind Hosting' },
    });
    expect((await support.call(r.update, { body })).message).toBe(API_MESSAGES.staffReadOnly);
    expect((await customer.call(r.update, { body })).status).toBe(403);
    expect((await customer.call(r.get)).message).toBe(API_MESSAGES.staffOnly);

    const bad = await owner.call(r.update, { body: { ...body, logoUrl: 'javascript:alert(1)', email: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(VALIDATION.brandUrl);

    const saved = await owner.call(r.update, { body });
    expect(saved.status).toBe(200);
    expect(saved.data.branding).toEqual({ ...body, tabLogoUrl: null, email: 'hello@acme.example' });
    // Support reads the same.
    expect((await support.call(r.get)).data.branding.name).toBe('Acme Cloud');

    expect((await brandAt(ACME)).data).toEqual({
      resellerName: 'Acme Cloud',
      logoUrl: body.logoUrl,
      tabLogoUrl: null,
    });
    const me = await customer.call(routes.auth.check);
    expect(me.data).toMatchObject({ authed: true, user: { resellerName: 'Acme Cloud', logoUrl: body.logoUrl } });

    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'reseller.branding.update'));
    expect(entry).toMatchObject({ targetType: 'reseller', targetId: String(northwindId) });
  });

  it("keeps resellers apart: another reseller's staff cannot see, take or remove a domain", async () => {
    const theirs = await otherOwner.call(r.get);
    expect(theirs.data).toMatchObject({ branding: { name: 'Globex Cloud' }, domains: [] });

    const taken = await otherOwner.call(r.addDomain, { body: { host: ACME } });
    expect(taken.status).toBe(409);
    expect(taken.message).toBe(BRANDING_TEXT.hostTaken);
    expect((await otherOwner.call(r.verifyDomain, { params: { host: ACME } })).status).toBe(404);
    expect((await owner.call(r.addDomain, { body: { host: ACME } })).message).toBe(BRANDING_TEXT.hostExists);
    expect((await otherOwner.call(r.removeDomain, { params: { host: ACME } })).status).toBe(404);
    expect((await otherOwner.call(r.setPrimaryDomain, { params: { host: ACME } })).status).toBe(404);
    expect((await otherOwner.call(r.addDomain, { body: { host: 'https://x.example/' } })).status).toBe(400);
    expect((await support.call(r.removeDomain, { params: { host: ACME } })).status).toBe(403);

    // Primary moves (to a verified domain only); removing the primary hands it to the remaining domain.
    await owner.call(r.addDomain, { body: { host: 'portal.acme.example.test' } });
    expect((await owner.call(r.setPrimaryDomain, { params: { host: 'portal.acme.example.test' } })).status).toBe(409);
    expect((await prove(owner, 'portal.acme.example.test')).status).toBe(200);
    const moved = await owner.call(r.setPrimaryDomain, { params: { host: 'portal.acme.example.test' } });
    expect(moved.data.domains.map((d) => [d.host, d.isPrimary])).toEqual([
      ['portal.acme.example.test', true],
      [ACME, false],
    ]);
    const removed = await owner.call(r.removeDomain, { params: { host: 'portal.acme.example.test' } });
    expect(removed.data.domains.map((d) => [d.host, d.isPrimary])).toEqual([[ACME, true]]);
  });
});

describe('what may be claimed (issue 21)', () => {
  it("refuses the platform's own names, public suffixes and addresses with a clear 400", async () => {
    const refused: [string, string][] = [
      ['portal.test', BRANDING_TEXT.hostPlatform], // PUBLIC_URL's host
      ['PORTAL.test', BRANDING_TEXT.hostPlatform],
      ['www.portal.test', BRANDING_TEXT.hostPlatform], // PLATFORM_HOSTS
      ['admin.portal.test', BRANDING_TEXT.hostPlatform],
      ['app.localhost', BRANDING_TEXT.hostPlatform],
      ['co.uk', BRANDING_TEXT.hostPublicSuffix],
      ['github.io', BRANDING_TEXT.hostPublicSuffix],
      ['s3.amazonaws.com', BRANDING_TEXT.hostPublicSuffix],
      ['localhost', BRANDING_TEXT.hostFormat],
      ['com', BRANDING_TEXT.hostFormat],
      ['192.0.2.10', BRANDING_TEXT.hostFormat],
      ['[::1]', BRANDING_TEXT.hostFormat],
    ];
    for (const [host, message] of refused) {
      const res = await otherOwner.call(r.addDomain, { body: { host } });
      // The contract's own refusals name the field.
      expect([host, res.status, res.message.replace(/ \(body\.host\)$/, '')]).toEqual([host, 400, message]);
    }
    // A name under a suffix is a domain someone owns: it may be claimed (and then proven).
    expect((await otherOwner.call(r.addDomain, { body: { host: 'acme.github.io' } })).status).toBe(200);
    expect((await otherOwner.call(r.removeDomain, { params: { host: 'acme.github.io' } })).status).toBe(200);
    expect((await otherOwner.call(r.get)).data.domains).toEqual([]);
  });

  it('a pending claim blocks no one: the owner who shows the record takes the domain; a verified one is kept', async () => {
    const HOST = 'contested.example.test';
    const squat = await otherOwner.call(r.addDomain, { body: { host: HOST } });
    expect(squat.status).toBe(200);
    const theirs = squat.data.domains[0]!.record;

    // Northwind holds the name's DNS: it is told the record of its own (a different value), not Globex's.
    const first = await owner.call(r.addDomain, { body: { host: HOST } });
    expect(first.status).toBe(409);
    const ours = { name: theirs.name, value: /with the value (\S+), then/.exec(first.message)![1]! };
    expect(first.message).toBe(hostPendingElsewhereText(ours));
    expect(ours.value).not.toBe(theirs.value);
    // Globex's record does not prove Northwind's claim.
    dns.txt.set(theirs.name, [theirs.value]);
    expect((await owner.call(r.addDomain, { body: { host: HOST } })).status).toBe(409);

    dns.txt.set(theirs.name, [theirs.value, ours.value]);
    const taken = await owner.call(r.addDomain, { body: { host: HOST } });
    expect(taken.status).toBe(200);
    expect(taken.data.domains.find((d) => d.host === HOST)).toMatchObject({ state: 'verified', record: ours });
    expect((await otherOwner.call(r.get)).data.domains).toEqual([]);
    // Verified, it stays Northwind's, whatever Globex publishes.
    expect((await otherOwner.call(r.addDomain, { body: { host: HOST } })).message).toBe(BRANDING_TEXT.hostTaken);
    expect((await owner.call(r.removeDomain, { params: { host: HOST } })).status).toBe(200);

    // The same reseller adding a host again gets the same record: what it published stays valid.
    await owner.call(r.addDomain, { body: { host: HOST } });
    expect((await domainOf(owner, HOST))?.record).toEqual(ours);
    expect((await owner.call(r.removeDomain, { params: { host: HOST } })).status).toBe(200);
  });

  it('a new domain cannot be added as primary before it is proven', async () => {
    const res = await otherOwner.call(r.addDomain, { body: { host: 'new.globex.example.test', isPrimary: true } });
    expect([res.status, res.message]).toEqual([409, BRANDING_TEXT.domainPendingPrimary]);
    expect((await otherOwner.call(r.get)).data.domains).toEqual([]);
  });
});

describe('the reseller import', () => {
  it('saves a brand through the branding path: same rules and normalising, shown on the custom host at once', async () => {
    const { token } = await createOperatorTokens({
      db: t.db,
      secret: 'test-secret-that-is-long-enough-0123456789',
    }).create('brand-import');
    const importRow = (row: Record<string, unknown>) =>
      t.client().call(routes.platform.importResellers, {
        body: { rows: [{ externalId: 'demo-reseller', distributorExternalId: 'demo-distributor', ...row }] },
        headers: { authorization: `Bearer ${token}` },
      });
    const before = (await owner.call(r.get)).data.branding;
    expect((await brandAt(ACME)).data.resellerName).toBe(before.name); // cached now

    const res = await importRow({ name: 'Acme Imported', email: 'Billing@Acme.EXAMPLE' });
    expect(res.data).toMatchObject({ updated: 1, rejected: 0 });
    expect((await brandAt(ACME)).data).toEqual({
      resellerName: 'Acme Imported',
      logoUrl: before.logoUrl,
      tabLogoUrl: before.tabLogoUrl,
    });
    // Fields the row leaves out keep their value; the address is stored as the branding screen stores it.
    expect((await owner.call(r.get)).data.branding).toEqual({
      ...before,
      name: 'Acme Imported',
      email: 'billing@acme.example',
    });

    expect((await owner.call(r.update, { body: { ...before, tabLogoUrl: '' } })).status).toBe(200);
  });
});

describe('mail and sign-in on a custom domain', () => {
  it('links in mails use the primary domain; codes name it', async () => {
    const before = t.smtp.messages.length;
    await t.client().call(routes.password.forgotPassword, { body: { email: ADMIN.email } });
    const reset = await t.smtp.waitFor(
      ADMIN.email,
      (m) => t.smtp.messages.indexOf(m) >= before && /reset/.test(m.subject),
    );
    expect(reset.from).toContain('hello@acme.example');
    expect(reset.subject).toContain('Acme Cloud');
    expect(reset.text).toMatch(new RegExp(`https://${ACME.replace(/\./g, '\\.')}/resetPassword\\?token=`));

    const login = await t
      .client()
      .call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password }, headers: { host: ACME } });
    expect(login.status).toBe(200);
    const code = await t.smtp.waitFor(
      ADMIN.email,
      (m) => /verification code/.test(m.subject) && m.subject.includes('Acme'),
    );
    expect(code.text).toContain(`https://${ACME}`);
  });

  it("refuses another reseller's user on a custom domain exactly like a wrong password", async () => {
    const wrong = await t.client().call(routes.auth.login, {
      body: { email: ADMIN.email, password: 'Wrong-Password-1!' },
      headers: { host: ACME },
    });
    const elsewhere = await t
      .client()
      .call(routes.auth.login, { body: { email: 'user@globex.example', password: PASSWORD }, headers: { host: ACME } });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.message).toBe(wrong.message);
    expect(elsewhere.message).toBe(API_MESSAGES.invalidCredentials);
    // The platform's own address stays open to every reseller's users.
    const platform = await t.client().call(routes.auth.login, {
      body: { email: 'user@globex.example', password: PASSWORD },
      headers: { host: 'portal.test' },
    });
    expect(platform.status).toBe(200);
  });
});
