/**
 * The reseller area's tenant matrix (issue 13): every `access: 'staff'` call × reseller A's company administrator
 * and a plain user of it (403: staff only), A's owner (allowed), A's support staff (reads allowed, writes 403) and
 * reseller B's owner (A's company, staff member, domain, host and delivery ids answer 404; calls without an id act on
 * B's own data and never show A's). Denied = nothing changed in the tables the area touches. One app, one seed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { USAGE_CSV_PATH } from '@portal/contract/billing';
import { routes } from '@portal/contract/routes';
import {
  auditLog,
  billingWebhooks,
  companies,
  configurationPrices,
  hosts,
  imageWithdrawals,
  providerOfferings,
  providers,
  resellerDomains,
  resellers,
  storagePrices,
  users,
  webhookDeliveries,
} from '../../db/schema.ts';
import {
  A,
  MATRIX_TIMEOUT_MS,
  RESELLER_ACTORS,
  runMatrix,
  type Cell,
  type Outcome,
  type ResellerActor,
} from '../../../test/authorization-matrix.ts';
import { createTestApp, signIn, type CallResult, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { pngOf } from '../../../test/png.ts';
import { ensureStaffCompany } from './staff.ts';

let t: TestApp;
const clients = {} as Record<ResellerActor, TestClient>;
/** Reseller A's things the cells aim at. */
const a = { reseller: 0, company: 1, staffCompany: 0, provider: 0, host: 0, delivery: 0, region: 0, micro: 0 };
let seq = 0;
const month = new Date().toISOString().slice(0, 7);

const customers = { companyAdmin: 403, nonMember: 403 } as const;
/** A call without an id: every staff member, each on their own reseller. */
const read: Record<ResellerActor, Outcome> = { ...customers, staffOwnerA: A, staffSupportA: A, staffOwnerB: A };
/** A read of one of A's things. */
const readA: Record<ResellerActor, Outcome> = { ...read, staffOwnerB: 404 };
/** A change without an id: owners, each on their own reseller. */
const write: Record<ResellerActor, Outcome> = { ...read, staffSupportA: 403 };
/** A change of one of A's things. */
const writeA: Record<ResellerActor, Outcome> = { ...write, staffOwnerB: 404 };

async function snapshot(): Promise<string> {
  const rows = await Promise.all([
    t.db
      .select({
        id: companies.id,
        name: companies.name,
        s: companies.suspendedAt,
        r: companies.suspendedReason,
        vms: companies.maxVms,
        vcpus: companies.maxVcpus,
        ram: companies.maxRamGb,
        disk: companies.maxDiskGb,
      })
      .from(companies),
    t.db.select({ id: users.id, email: users.email, role: users.staffRole, c: users.companyId }).from(users),
    t.db.select().from(resellers),
    t.db.select().from(resellerDomains),
    t.db.select().from(configurationPrices),
    t.db.select().from(storagePrices),
    t.db.select().from(hosts),
    t.db.select().from(providers),
    t.db.select().from(providerOfferings),
    t.db.select().from(imageWithdrawals),
    t.db.select().from(billingWebhooks),
    t.db.select({ id: webhookDeliveries.id, s: webhookDeliveries.status }).from(webhookDeliveries),
    t.db.select({ id: auditLog.id }).from(auditLog),
  ]);
  return JSON.stringify(rows.map((table) => table.map((row) => JSON.stringify(row)).sort()));
}

beforeAll(async () => {
  // Webhook URLs' names resolve to a public address (the egress policy checks them on save; there is no DNS here).
  t = await createTestApp({
    // A's host is on loopback over plain TCP (nothing listens there): the operator allows both here (issue 21).
    env: { BILLING_WEBHOOK_ALLOW_HTTP: 'true', RESELLER_HOST_TCP: 'true', EGRESS_ALLOW: '127.0.0.0/8' },
    resolver: async () => [{ address: '93.184.216.34', family: 4 }],
  });
  const [demo] = await t.db.select().from(companies).where(eq(companies.id, a.company));
  a.reseller = demo!.resellerId;
  a.staffCompany = (await ensureStaffCompany(t.db, a.reseller))!;
  const other = await createOtherCompany(t);
  const [otherCompany] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  const staffB = (await ensureStaffCompany(t.db, otherCompany!.resellerId))!;
  await createUser(t, a.staffCompany, 'mx-owner@a.example', { staffRole: 'owner' });
  await createUser(t, a.staffCompany, 'mx-support@a.example', { staffRole: 'support' });
  await createUser(t, staffB, 'mx-owner@b.example', { staffRole: 'owner' });
  await createUser(t, a.company, 'mx-plain@a.example');
  [clients.companyAdmin, clients.nonMember, clients.staffOwnerA, clients.staffSupportA, clients.staffOwnerB] =
    await Promise.all([
      signIn(t),
      signIn(t, 'mx-plain@a.example', PASSWORD),
      signIn(t, 'mx-owner@a.example', PASSWORD),
      signIn(t, 'mx-support@a.example', PASSWORD),
      signIn(t, 'mx-owner@b.example', PASSWORD),
    ]);
  const catalog = await seededCatalog(clients.companyAdmin);
  a.region = catalog.east.id;
  a.micro = catalog.micro.id;

  // A's libvirt provider and a host of it (nothing listens there: registered as not answering).
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'A libvirt', driver: 'libvirt', resellerId: a.reseller })
    .returning();
  a.provider = provider!.id;
  const host = await clients.staffOwnerA.call(routes.resellerCatalog.registerHost, {
    body: {
      name: 'mx-host-a',
      uri: 'qemu+tcp://127.0.0.1:1/system',
      providerId: a.provider,
      regionId: a.region,
      cpus: 4,
      ramGb: 8,
      diskGb: 100,
    },
  });
  expect(host.status).toBe(200);
  a.host = host.data.id;

  // Both resellers have a webhook (no worker runs here: deliveries stay queued); A has one delivery.
  for (const [owner, url] of [
    [clients.staffOwnerA, 'https://billing.a.example.test/hook'],
    [clients.staffOwnerB, 'https://billing.b.example.test/hook'],
  ] as const)
    expect((await owner.call(routes.billing.setWebhook, { body: { url, enabled: true } })).status).toBe(200);
  expect(
    (await clients.staffOwnerA.call(routes.billing.sendNow, { body: { month, companyId: a.company } })).data.queued,
  ).toBe(1);
  const [delivery] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.resellerId, a.reseller));
  a.delivery = delivery!.id;
});
afterAll(async () => {
  await t.close();
});

/** Another customer company of reseller A (suspended or not), so suspending never touches the callers' own. */
async function companyOfA(suspended: boolean): Promise<number> {
  const [row] = await t.db
    .insert(companies)
    .values({
      resellerId: a.reseller,
      name: `Matrix company ${++seq}`,
      ...(suspended ? { suspendedAt: new Date(), suspendedReason: 'Matrix' } : {}),
    })
    .returning();
  return row!.id;
}
async function staffMemberOfA(): Promise<number> {
  return (await createUser(t, a.staffCompany, `mx-staff-${++seq}@a.example`, { staffRole: 'support' })).id;
}
/** A verified domain of A; the number names it (`mx-<n>.a.example.test`). */
async function domainOfA(): Promise<number> {
  const n = ++seq;
  await t.db
    .insert(resellerDomains)
    .values({ host: `mx-${n}.a.example.test`, resellerId: a.reseller, verifiedAt: new Date() });
  return n;
}
const domainHost = (n: number) => `mx-${n}.a.example.test`;
const ids = (res: CallResult, list: (data: never) => { id: number }[]) => list(res.data as never).map((x) => x.id);
/** B's answer to a list call never carries A's id. */
const notForB =
  (list: (data: never) => { id: number }[], id: () => number) => (res: CallResult, actor: ResellerActor) => {
    const seen = ids(res, list);
    if (actor === 'staffOwnerB') expect(seen).not.toContain(id());
    else expect(seen).toContain(id());
  };

const c = routes.resellerCompanies;
const s = routes.resellerStaff;
const b = routes.resellerBranding;
const k = routes.resellerCatalog;
const w = routes.billing;
const act = routes.activity;

const cells: Cell<ResellerActor>[] = [
  // Companies
  {
    call: 'GET /reseller/companies',
    expect: read,
    run: (cl) => cl.call(c.list, { query: { rowsPerPage: 100 } }),
    check: notForB(
      (d: { data: { id: number }[] }) => d.data,
      () => a.company,
    ),
  },
  {
    call: 'POST /reseller/companies',
    expect: write,
    run: (cl) =>
      cl.call(c.create, {
        body: {
          name: `Made ${++seq}`,
          adminEmail: `mx-made-${seq}@example.com`,
          adminFirstName: 'M',
          adminLastName: 'X',
        },
      }),
  },
  { call: 'GET /reseller/companies/:id', expect: readA, run: (cl) => cl.call(c.detail, { params: { id: a.company } }) },
  {
    call: 'POST /reseller/companies/:id/suspend',
    expect: writeA,
    prepare: () => companyOfA(false),
    run: (cl, id) => cl.call(c.suspend, { params: { id }, body: { reason: 'Matrix' } }),
  },
  {
    call: 'POST /reseller/companies/:id/resume',
    expect: writeA,
    prepare: () => companyOfA(true),
    run: (cl, id) => cl.call(c.resume, { params: { id } }),
  },
  {
    call: 'POST /reseller/companies/:id/quota',
    expect: writeA,
    run: (cl) =>
      cl.call(routes.resellerQuotas.setCompany, {
        params: { id: a.company },
        body: { vms: 100 + ++seq, vcpus: null, ramGb: null, diskGb: null },
      }),
  },
  // Staff
  {
    call: 'GET /reseller/staff',
    expect: read,
    run: (cl) => cl.call(s.list),
    check: async (res, actor) => {
      const emails = (res.data as { email: string }[]).map((m) => m.email);
      expect(emails.includes('mx-owner@a.example')).toBe(actor !== 'staffOwnerB');
    },
  },
  {
    call: 'POST /reseller/staff',
    expect: write,
    run: (cl) => cl.call(s.invite, { body: { email: `mx-invited-${++seq}@example.com`, role: 'support' } }),
  },
  {
    call: 'POST /reseller/staff/:id/role',
    expect: writeA,
    prepare: staffMemberOfA,
    run: (cl, id) => cl.call(s.changeRole, { params: { id }, body: { role: 'owner' } }),
  },
  {
    call: 'DELETE /reseller/staff/:id',
    expect: writeA,
    prepare: staffMemberOfA,
    run: (cl, id) => cl.call(s.remove, { params: { id } }),
  },
  // Branding and custom domains
  {
    call: 'GET /reseller/branding',
    expect: read,
    run: (cl) => cl.call(b.get),
    check: (res, actor) => {
      const hosts = (res.data as { domains: { host: string }[] }).domains.map((d) => d.host);
      if (actor === 'staffOwnerB') expect(hosts.filter((h) => h.endsWith('.a.example.test'))).toEqual([]);
    },
  },
  {
    call: 'PUT /reseller/branding',
    expect: write,
    run: (cl) =>
      cl.call(b.update, {
        body: {
          name: `Brand ${++seq}`.replace(/\d/g, 'x'),
          logoUrl: '',
          tabLogoUrl: '',
          email: '',
          supportEmail: '',
        },
      }),
  },
  {
    // Issue 25 item 8: an uploaded logo becomes the caller's own reseller's, never another's.
    call: 'PUT /reseller/branding/assets/:kind',
    expect: write,
    run: (cl) =>
      cl.call(b.uploadAsset, {
        params: { kind: 'logo' },
        body: { data: pngOf(32, 32, `#0000${(++seq % 100).toString().padStart(2, '0')}`).toString('base64') },
      }),
  },
  {
    call: 'POST /reseller/domains',
    expect: write,
    run: (cl) => cl.call(b.addDomain, { body: { host: `mx-added-${++seq}.example.test` } }),
  },
  {
    call: 'DELETE /reseller/domains/:host',
    expect: writeA,
    prepare: domainOfA,
    run: (cl, n) => cl.call(b.removeDomain, { params: { host: domainHost(n) } }),
  },
  {
    call: 'POST /reseller/domains/:host/primary',
    expect: writeA,
    prepare: domainOfA,
    run: (cl, n) => cl.call(b.setPrimaryDomain, { params: { host: domainHost(n) }, body: {} }),
  },
  {
    // Already verified: A's owner gets 200 without a DNS lookup; B's owner 404.
    call: 'POST /reseller/domains/:host/verify',
    expect: writeA,
    prepare: domainOfA,
    run: (cl, n) => cl.call(b.verifyDomain, { params: { host: domainHost(n) }, body: {} }),
  },
  // Catalog and hosts
  { call: 'GET /reseller/catalog/sizes', expect: read, run: (cl) => cl.call(k.listSizes) },
  {
    call: 'PUT /reseller/catalog/sizes/:id',
    // Sizes are the platform's; each reseller prices them for itself.
    expect: write,
    run: (cl) =>
      cl.call(k.saveSize, {
        params: { id: a.micro },
        body: { monthlyPrice: `${10 + (++seq % 5)}.00`, hourlyPrice: '0.02', offered: true },
      }),
  },
  // Storage prices per GB-month (issue 24 item 4): each reseller's own.
  { call: 'GET /reseller/catalog/storagePrices', expect: read, run: (cl) => cl.call(k.storagePrices) },
  {
    call: 'PUT /reseller/catalog/storagePrices',
    expect: write,
    run: (cl) => cl.call(k.saveStoragePrices, { body: { snapshot: `0.${10 + (++seq % 5)}`, backup: null } }),
  },
  { call: 'GET /reseller/catalog/regions', expect: read, run: (cl) => cl.call(k.listRegions) },
  {
    call: 'PUT /reseller/catalog/images',
    // Each reseller offers or withdraws images for its own customers.
    expect: write,
    run: (cl) => cl.call(k.saveImage, { body: { regionId: a.region, image: 'Debian 12', offered: ++seq % 2 === 0 } }),
  },
  {
    call: 'GET /reseller/providers',
    expect: read,
    run: (cl) => cl.call(k.listProviders),
    check: notForB(
      (d: { providers: { id: number }[] }) => d.providers,
      () => a.provider,
    ),
  },
  {
    call: 'POST /reseller/providers',
    expect: write,
    run: (cl) =>
      cl.call(k.createProvider, { body: { name: `mx-cloud-${++seq}`, driver: 'simulator', enabled: false } }),
  },
  {
    call: 'PUT /reseller/providers/:id',
    expect: writeA,
    run: (cl) =>
      cl.call(k.updateProvider, {
        params: { id: a.provider },
        body: { name: `A libvirt ${++seq}`, driver: 'libvirt', enabled: true },
      }),
  },
  {
    call: 'PUT /reseller/providers/:id/regions',
    expect: writeA,
    run: (cl) => cl.call(k.setProviderRegions, { params: { id: a.provider }, body: { regionIds: [a.region] } }),
  },
  {
    call: 'GET /reseller/providers/:id/settings',
    expect: readA,
    run: (cl) => cl.call(k.getProviderSettings, { params: { id: a.provider } }),
  },
  {
    call: 'PUT /reseller/providers/:id/settings',
    expect: writeA,
    run: (cl) => cl.call(k.saveProviderSettings, { params: { id: a.provider }, body: { publicNat: ++seq % 2 === 0 } }),
  },
  {
    call: 'PUT /reseller/providers/:id/images',
    expect: writeA,
    run: (cl) =>
      cl.call(k.saveProviderImage, {
        params: { id: a.provider },
        body: { image: `mx-image-${++seq}`, volume: 'mx.qcow2' },
      }),
  },
  {
    call: 'GET /reseller/hosts',
    expect: read,
    run: (cl) => cl.call(k.listHosts),
    check: notForB(
      (d: { hosts: { id: number }[] }) => d.hosts,
      () => a.host,
    ),
  },
  {
    call: 'POST /reseller/hosts',
    // On A's provider: B does not find it.
    expect: writeA,
    run: (cl) =>
      cl.call(k.registerHost, {
        body: {
          name: `mx-host-${++seq}`,
          uri: 'qemu+tcp://127.0.0.1:1/system',
          providerId: a.provider,
          regionId: a.region,
          cpus: 4,
          ramGb: 8,
          diskGb: 100,
        },
      }),
  },
  {
    call: 'PUT /reseller/hosts/:id',
    expect: writeA,
    run: (cl) => cl.call(k.updateHost, { params: { id: a.host }, body: { cpus: 8 + (++seq % 8) } }),
  },
  {
    call: 'POST /reseller/hosts/check',
    // Each owner checks with its own reseller's key; a TCP URI is only validated (no key to read).
    expect: write,
    run: (cl) => cl.call(k.checkHost, { body: { uri: 'qemu+tcp://127.0.0.1:1/system' } }),
  },
  {
    call: 'DELETE /reseller/hosts/:id',
    expect: writeA,
    prepare: async () => {
      const [row] = await t.db
        .insert(hosts)
        .values({
          name: `mx-gone-${++seq}`,
          uri: 'qemu+tcp://127.0.0.1:1/system',
          providerId: a.provider,
          regionId: a.region,
          cpus: 4,
          ramGb: 8,
          diskGb: 100,
        })
        .returning();
      return row!.id;
    },
    run: (cl, id) => cl.call(k.deleteHost, { params: { id } }),
  },
  // Usage for billing
  {
    call: 'GET /reseller/usage',
    expect: read,
    run: (cl) => cl.call(w.usage, { query: { month } }),
    check: notForB(
      (d: { companies: { companyId: number }[] }) => d.companies.map((x) => ({ id: x.companyId })),
      () => a.company,
    ),
  },
  {
    call: 'GET /reseller/usage/companies/:id',
    expect: readA,
    run: (cl) => cl.call(w.companyUsage, { params: { id: a.company }, query: { month } }),
  },
  {
    call: 'GET /reseller/usage.csv?companyId',
    expect: readA,
    run: (cl) => cl.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=${month}&companyId=${a.company}`),
  },
  { call: 'GET /reseller/billing/webhook', expect: read, run: (cl) => cl.call(w.getWebhook) },
  {
    call: 'PUT /reseller/billing/webhook',
    expect: write,
    run: (cl) => cl.call(w.setWebhook, { body: { url: `https://billing-${++seq}.example.test/hook`, enabled: true } }),
  },
  { call: 'POST /reseller/billing/webhook/rotateSecret', expect: write, run: (cl) => cl.call(w.rotateSecret) },
  {
    call: 'POST /reseller/billing/sendNow (A company)',
    expect: writeA,
    run: (cl) => cl.call(w.sendNow, { body: { month, companyId: a.company } }),
  },
  {
    call: 'GET /reseller/billing/deliveries',
    expect: read,
    run: (cl) => cl.call(w.deliveries, { query: { rowsPerPage: 100 } }),
    check: notForB(
      (d: { data: { id: number }[] }) => d.data,
      () => a.delivery,
    ),
  },
  {
    call: 'POST /reseller/billing/deliveries/:id/retry',
    expect: writeA,
    prepare: async () => {
      await t.db
        .update(webhookDeliveries)
        .set({ status: 'failed' })
        .where(and(eq(webhookDeliveries.id, a.delivery), eq(webhookDeliveries.resellerId, a.reseller)));
      return a.delivery;
    },
    run: (cl, id) => cl.call(w.retryDelivery, { params: { id } }),
  },
  // Activity
  {
    call: 'GET /reseller/activity/list',
    expect: read,
    run: (cl) => cl.call(act.resellerList, { query: { rowsPerPage: 100 } }),
    check: (res, actor) => {
      const companyIds = (res.data as { data: { company: { id: number } | null }[] }).data.map((e) => e.company?.id);
      if (actor === 'staffOwnerB') expect(companyIds).not.toContain(a.company);
    },
  },
  {
    call: 'GET /reseller/activity/list?companyId (A company)',
    expect: readA,
    run: (cl) => cl.call(act.resellerList, { query: { companyId: a.company } }),
  },
  {
    call: 'GET /reseller/activity/filters',
    expect: read,
    run: (cl) => cl.call(act.resellerFilters),
    check: (res, actor) => {
      const companyIds = ((res.data as { companies?: { id: number }[] }).companies ?? []).map((x) => x.id);
      expect(companyIds.includes(a.company)).toBe(actor !== 'staffOwnerB');
    },
  },
];

describe('authorisation matrix: the reseller area', () => {
  it(`checks ${cells.length} calls × ${RESELLER_ACTORS.length} callers`, { timeout: MATRIX_TIMEOUT_MS }, async () => {
    const { checked, failures } = await runMatrix({ cells, clients, snapshot, actors: RESELLER_ACTORS });
    console.log(
      `reseller authorisation matrix: ${checked} cells checked (${cells.length} calls × ${RESELLER_ACTORS.length} callers)`,
    );
    expect(failures).toEqual([]);
    expect(checked).toBe(cells.length * RESELLER_ACTORS.length);
  });
});
