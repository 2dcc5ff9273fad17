/**
 * The reseller area's authorisation matrix over HTTP, against the portal as its own process (issue 21): EVERY route of
 * the contract with `access: 'staff'` (read from the route table, so a staff route added later is covered, or the run
 * fails for want of a recipe) × two resellers × every staff role (STAFF_ROLES), and reseller A's customers (a company
 * administrator and a plain user). The cells aim at A's objects (company, staff member, domain, host, provider,
 * delivery) and, for calls without an id, at the caller's own reseller.
 *
 * Expected: customers 403 on every staff call; a read-only role reads, its writes 403; B's staff on A's ids 404, the
 * very answer (status and message) a missing id gets, so nothing confirms that A's thing exists; B's answers never
 * carry A's names or ids; A's writers are allowed (2xx, or a 4xx about the input). A refused cell changes nothing in
 * the tables the reseller area touches (fingerprinted before and after). Request bodies from the Vitest matrix
 * (reseller-authorization-matrix.test.ts); host and webhook targets are public literals, as the default egress policy
 * requires (nothing answers there: a TLS host without the operator's certificates fails at once, unreached).
 */
import pg from 'pg';
import type { RouteDef } from '@portal/contract/common';
import { USAGE_CSV_PATH } from '@portal/contract/billing';
import { STAFF_ROLES, staffMayWrite, type StaffRole } from '@portal/contract/permissions';
import { allRoutes, routes } from '@portal/contract/routes';
import { openDatabase } from '../../apps/api/src/db/client.ts';
import { ensureStaffCompany } from '../../apps/api/src/modules/reseller-companies/staff.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../apps/api/test/fixtures.ts';
import type { TestApp } from '../../apps/api/test/harness.ts';
import { signIn, type Answer, type ApiClient, type CallInput } from './lib/client.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { tableFingerprint } from './lib/fingerprint.ts';
import { saveResult } from './lib/report.ts';

type Side = 'A' | 'B';
interface Caller {
  name: string;
  side: Side;
  /** null: a customer of A (company administrator or plain user). */
  role: StaffRole | null;
  client: ApiClient;
}

/** What a variant of a call needs: the thing `prepare` made, and the caller's name marker for what it creates. */
interface Ctx {
  prepared: number;
  mark: string;
}
interface Variant {
  /** Shown after the route, e.g. '(A company)'. */
  label?: string;
  /** Names one of A's things (in the path, query or body): B's staff get what a missing one gets. */
  aimsAtA?: boolean;
  /** Makes or resets what the call acts on, before the fingerprint. */
  prepare?: () => Promise<number>;
  input: (ctx: Ctx) => CallInput;
  /** The same call on a thing nobody has (for `aimsAtA`). */
  absent?: () => CallInput;
  /** A list: the ids of A's rows in it (A's staff must see `aId`, B's must not). */
  listed?: { ids: (data: unknown) => number[]; aId: () => number };
  /** A path outside the route table (the CSV) the call goes to instead of the route's, with the input's query. */
  rawPath?: string;
}

/** Marks every name of reseller A's things: B's answers must never contain it. */
const MARK_A = 'rmxa';
const MARK_B = 'rmxb';
const PUBLIC_HOST_URI = 'qemu+tls://93.184.215.14/system';
const ABSENT_ID = 999_999;
const ABSENT_HOST = 'rmx-absent.example.test';

const FINGERPRINTED = [
  'companies',
  'users',
  'resellers',
  'reseller_domains',
  'configuration_prices',
  'hosts',
  'providers',
  'provider_offerings',
  'image_withdrawals',
  'billing_webhooks',
];
/** Rows that background work updates after the fact (mail delivery, token use): counted only. */
const COUNTED = ['audit_log', 'mail_outbox', 'one_time_tokens'];

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const isWrite = (r: RouteDef) => r.method !== 'GET';

export async function prove(): Promise<boolean> {
  // Background passes that write to fingerprinted tables run at start only (the monitor) or when woken (webhooks).
  const env = await startProofEnv({
    VM_RECONCILE_INTERVAL_MS: '3600000',
    VM_HOST_CHECK_INTERVAL_MS: '3600000',
    BILLING_WEBHOOK_POLL_MS: '3600000',
  });
  const { portal, smtp, cluster } = env;
  const sql = new pg.Client({ connectionString: cluster.url });
  await sql.connect();
  const database = await openDatabase({ databaseUrl: cluster.url, poolSize: 2 });
  const t = { db: database.db } as unknown as TestApp;
  try {
    const one = async <T>(text: string, values: unknown[] = []) => (await sql.query(text, values)).rows[0] as T;
    async function fingerprint(): Promise<string> {
      const parts = await tableFingerprint(sql, FINGERPRINTED, []);
      // Deliveries: what they are and their state; attempts and leases belong to the worker.
      const d = await one<{ h: string | null; n: number }>(
        `select md5(string_agg(concat_ws(',', id, reseller_id, event, company_id, month, trigger, status), '|' order by id)) as h,
           count(*)::int as n from webhook_deliveries`,
      );
      parts.push(`webhook_deliveries:${d.n}:${d.h}`, ...(await tableFingerprint(sql, [], COUNTED)));
      return parts.join(' ');
    }
    /** Waits while the webhook worker holds a delivery (send now and retry wake it; an attempt ends within 10 s). */
    async function settle(timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      await sleep(30);
      while (
        (await one<{ n: number }>('select count(*)::int as n from webhook_deliveries where locked_until is not null'))
          .n > 0
      ) {
        if (Date.now() > deadline) throw new Error('a webhook delivery is still in flight');
        await sleep(50);
      }
    }

    // ---- Two resellers, every staff role of each, and A's customers ----
    const month = new Date().toISOString().slice(0, 7);
    const a = {
      reseller: 0,
      company: 0,
      staffCompany: 0,
      staffUser: 0,
      provider: 0,
      host: 0,
      delivery: 0,
      region: 0,
      size: 0,
    };
    const admin = await one<{ company_id: number }>('select company_id from users where email = $1', [ADMIN.email]);
    a.company = admin.company_id;
    a.reseller = (
      await one<{ reseller_id: number }>('select reseller_id from companies where id = $1', [a.company])
    ).reseller_id;
    a.staffCompany = (await ensureStaffCompany(database.db, a.reseller))!;
    const other = await createOtherCompany(t, `${MARK_B}-boss@other.example`);
    const resellerB = (
      await one<{ reseller_id: number }>('select reseller_id from companies where id = $1', [other.companyId])
    ).reseller_id;
    const staffCompanyB = (await ensureStaffCompany(database.db, resellerB))!;
    const plain = await createUser(t, a.company, `${MARK_A}-plain@a.example`);
    const callers: Caller[] = [
      {
        name: "A's company administrator",
        side: 'A',
        role: null,
        client: await signIn(portal.api, smtp, ADMIN.email, ADMIN.password),
      },
      {
        name: "A's plain customer user",
        side: 'A',
        role: null,
        client: await signIn(portal.api, smtp, plain.email, PASSWORD),
      },
    ];
    for (const side of ['B', 'A'] as const) {
      for (const role of STAFF_ROLES) {
        const mark = side === 'A' ? MARK_A : MARK_B;
        const email = `${mark}-${role}@${side.toLowerCase()}.example`;
        const user = await createUser(t, side === 'A' ? a.staffCompany : staffCompanyB, email, { staffRole: role });
        if (side === 'A') a.staffUser ||= user.id;
        callers.push({
          name: `${side}'s ${role}`,
          side,
          role,
          client: await signIn(portal.api, smtp, email, PASSWORD),
        });
      }
    }
    const writerOf = (side: Side) => {
      const c = callers.find((x) => x.side === side && x.role !== null && staffMayWrite(x.role));
      if (!c) throw new Error(`reseller ${side} has no staff role that may write`);
      return c.client;
    };
    const ownerA = writerOf('A');
    const ownerB = writerOf('B');

    // A's things, named with A's mark. Its provider is made in SQL (as the Vitest matrix does); the rest via the API.
    a.region = (await one<{ id: number }>('select id from regions order by id limit 1')).id;
    a.size = (await one<{ id: number }>('select id from configurations order by id limit 1')).id;
    a.provider = (
      await one<{ id: number }>(
        "insert into providers (name, driver, reseller_id) values ($1, 'libvirt', $2) returning id",
        [`${MARK_A}-libvirt`, a.reseller],
      )
    ).id;
    const must = (what: string, res: Answer) => {
      if (res.status !== 200) throw new Error(`fixture: ${what}: ${res.status} ${res.message}`);
      return res.data as { id: number };
    };
    a.host = must(
      "A's host",
      await ownerA.call(routes.resellerCatalog.registerHost, {
        body: {
          name: `${MARK_A}-host`,
          uri: PUBLIC_HOST_URI,
          providerId: a.provider,
          regionId: a.region,
          cpus: 4,
          ramGb: 8,
          diskGb: 100,
        },
      }),
    ).id;
    must(
      "A's webhook",
      await ownerA.call(routes.billing.setWebhook, { body: { url: 'https://93.184.215.14/a-hook', enabled: true } }),
    );
    must(
      "B's webhook",
      await ownerB.call(routes.billing.setWebhook, { body: { url: 'https://93.184.215.14/b-hook', enabled: true } }),
    );
    must("A's send now", await ownerA.call(routes.billing.sendNow, { body: { month, companyId: a.company } }));
    a.delivery = (
      await one<{ id: number }>(
        'select id from webhook_deliveries where reseller_id = $1 and company_id = $2 order by id limit 1',
        [a.reseller, a.company],
      )
    ).id;
    await settle();
    // What B must never see: A's marked names, and the names A's seed gave its company and reseller.
    const markersOfA = [
      MARK_A,
      (await one<{ name: string }>('select name from companies where id = $1', [a.company])).name,
      (await one<{ name: string }>('select name from resellers where id = $1', [a.reseller])).name,
    ];

    let seq = 0;
    const companyOfA = async (suspended: boolean) =>
      (
        await one<{ id: number }>(
          `insert into companies (reseller_id, name, suspended_at, suspended_reason)
           values ($1, $2, ${suspended ? "now(), 'Matrix'" : 'null, null'}) returning id`,
          [a.reseller, `${MARK_A} company ${++seq}`],
        )
      ).id;
    const staffMemberOfA = async () =>
      (await createUser(t, a.staffCompany, `${MARK_A}-staff-${++seq}@a.example`, { staffRole: 'support' })).id;
    /** A verified domain of A; the number names it. */
    const domainOfA = async () => {
      const n = ++seq;
      await sql.query('insert into reseller_domains (host, reseller_id, verified_at) values ($1, $2, now())', [
        domainHost(n),
        a.reseller,
      ]);
      return n;
    };
    const domainHost = (n: number) => `${MARK_A}-${n}.a.example.test`;
    const hostOfA = async () =>
      (
        await one<{ id: number }>(
          `insert into hosts (name, uri, provider_id, region_id, cpus, ram_gb, disk_gb)
           values ($1, $2, $3, $4, 4, 8, 100) returning id`,
          [`${MARK_A}-gone-${++seq}`, PUBLIC_HOST_URI, a.provider, a.region],
        )
      ).id;
    const quotaBody = { vms: 100, vcpus: null, ramGb: null, diskGb: null };
    const paged = (data: unknown) => ((data as { data?: { id: number }[] } | null)?.data ?? []).map((r) => r.id);

    // ---- Recipes: one or more variants per staff route of the contract, keyed by method and path ----
    const c = routes.resellerCompanies;
    const s = routes.resellerStaff;
    const b = routes.resellerBranding;
    const k = routes.resellerCatalog;
    const w = routes.billing;
    const act = routes.activity;
    const recipes = new Map<string, Variant[]>([
      // Companies
      [key(c.list), [{ input: () => ({ query: { rowsPerPage: 100 } }), listed: { ids: paged, aId: () => a.company } }]],
      [
        key(c.create),
        [
          {
            input: ({ mark }) => ({
              body: {
                name: `${mark} made ${++seq}`,
                adminEmail: `${mark}-made-${seq}@example.com`,
                adminFirstName: 'M',
                adminLastName: 'X',
              },
            }),
          },
        ],
      ],
      [
        key(c.detail),
        [
          {
            aimsAtA: true,
            input: () => ({ params: { id: a.company } }),
            absent: () => ({ params: { id: ABSENT_ID } }),
          },
        ],
      ],
      [
        key(c.suspend),
        [
          {
            aimsAtA: true,
            prepare: () => companyOfA(false),
            input: ({ prepared }) => ({ params: { id: prepared }, body: { reason: 'Matrix' } }),
            absent: () => ({ params: { id: ABSENT_ID }, body: { reason: 'Matrix' } }),
          },
        ],
      ],
      [
        key(c.resume),
        [
          {
            aimsAtA: true,
            prepare: () => companyOfA(true),
            input: ({ prepared }) => ({ params: { id: prepared } }),
            absent: () => ({ params: { id: ABSENT_ID } }),
          },
        ],
      ],
      // Quotas (issue 22), on another company of A; keyed by path, not by the route object.
      [
        'POST /reseller/companies/:id/quota',
        [
          {
            aimsAtA: true,
            prepare: () => companyOfA(false),
            input: ({ prepared }) => ({ params: { id: prepared }, body: quotaBody }),
            absent: () => ({ params: { id: ABSENT_ID }, body: quotaBody }),
          },
        ],
      ],
      // Staff
      [
        key(s.list),
        [
          {
            input: () => ({}),
            listed: { ids: (d) => (d as { id: number }[]).map((m) => m.id), aId: () => a.staffUser },
          },
        ],
      ],
      [
        key(s.invite),
        [{ input: ({ mark }) => ({ body: { email: `${mark}-invited-${++seq}@example.com`, role: 'support' } }) }],
      ],
      [
        key(s.changeRole),
        [
          {
            aimsAtA: true,
            prepare: staffMemberOfA,
            input: ({ prepared }) => ({ params: { id: prepared }, body: { role: 'owner' } }),
            absent: () => ({ params: { id: ABSENT_ID }, body: { role: 'owner' } }),
          },
        ],
      ],
      [
        key(s.remove),
        [
          {
            aimsAtA: true,
            prepare: staffMemberOfA,
            input: ({ prepared }) => ({ params: { id: prepared } }),
            absent: () => ({ params: { id: ABSENT_ID } }),
          },
        ],
      ],
      // Branding and custom domains
      [key(b.get), [{ input: () => ({}) }]],
      [
        key(b.update),
        [
          {
            input: ({ mark }) => ({
              body: { name: `${mark} brand`, logoUrl: '', tabLogoUrl: '', email: '', supportEmail: '' },
            }),
          },
        ],
      ],
      [key(b.addDomain), [{ input: ({ mark }) => ({ body: { host: `${mark}-added-${++seq}.example.test` } }) }]],
      ...(
        [
          [b.removeDomain, undefined],
          [b.setPrimaryDomain, {}],
          // Already verified: A's writer gets 200 without a DNS lookup.
          [b.verifyDomain, {}],
        ] as const
      ).map(([route, body]): [string, Variant[]] => [
        key(route),
        [
          {
            aimsAtA: true,
            prepare: domainOfA,
            input: ({ prepared }) => ({ params: { host: domainHost(prepared) }, ...(body ? { body } : {}) }),
            absent: () => ({ params: { host: ABSENT_HOST }, ...(body ? { body } : {}) }),
          },
        ],
      ]),
      // Catalog and hosts
      [key(k.listSizes), [{ input: () => ({}) }]],
      [
        key(k.saveSize),
        // Sizes are the platform's; each reseller prices them for itself.
        [
          {
            input: () => ({
              params: { id: a.size },
              body: { monthlyPrice: `${10 + (++seq % 5)}.00`, hourlyPrice: '0.02', offered: true },
            }),
          },
        ],
      ],
      [key(k.listRegions), [{ input: () => ({}) }]],
      [
        key(k.saveImage),
        [{ input: () => ({ body: { regionId: a.region, image: 'Debian 12', offered: ++seq % 2 === 0 } }) }],
      ],
      [
        key(k.listProviders),
        [
          {
            input: () => ({}),
            listed: {
              ids: (d) => (d as { providers: { id: number }[] }).providers.map((p) => p.id),
              aId: () => a.provider,
            },
          },
        ],
      ],
      [
        key(k.createProvider),
        [{ input: ({ mark }) => ({ body: { name: `${mark}-cloud-${++seq}`, driver: 'simulator', enabled: false } }) }],
      ],
      [
        key(k.updateProvider),
        [
          {
            aimsAtA: true,
            input: () => ({
              params: { id: a.provider },
              body: { name: `${MARK_A}-libvirt-${++seq}`, driver: 'libvirt', enabled: true },
            }),
            absent: () => ({
              params: { id: ABSENT_ID },
              body: { name: 'rmx-absent', driver: 'libvirt', enabled: true },
            }),
          },
        ],
      ],
      [
        key(k.setProviderRegions),
        [
          {
            aimsAtA: true,
            input: () => ({ params: { id: a.provider }, body: { regionIds: [a.region] } }),
            absent: () => ({ params: { id: ABSENT_ID }, body: { regionIds: [a.region] } }),
          },
        ],
      ],
      [
        key(k.listHosts),
        [
          {
            input: () => ({}),
            listed: { ids: (d) => (d as { hosts: { id: number }[] }).hosts.map((h) => h.id), aId: () => a.host },
          },
        ],
      ],
      [
        key(k.registerHost),
        // On A's provider: B does not find it.
        [
          {
            aimsAtA: true,
            input: () => ({ body: hostBody(`${MARK_A}-host-${++seq}`, a.provider) }),
            absent: () => ({ body: hostBody(`rmx-absent-${++seq}`, ABSENT_ID) }),
          },
        ],
      ],
      [
        key(k.updateHost),
        [
          {
            aimsAtA: true,
            input: () => ({ params: { id: a.host }, body: { cpus: 8 + (++seq % 8) } }),
            absent: () => ({ params: { id: ABSENT_ID }, body: { cpus: 8 } }),
          },
        ],
      ],
      // Each writer checks with its own reseller's key; a TLS URI is validated, not connected to.
      [key(k.checkHost), [{ input: () => ({ body: { uri: PUBLIC_HOST_URI } }) }]],
      [
        key(k.deleteHost),
        [
          {
            aimsAtA: true,
            prepare: hostOfA,
            input: ({ prepared }) => ({ params: { id: prepared } }),
            absent: () => ({ params: { id: ABSENT_ID } }),
          },
        ],
      ],
      // Usage for billing, and the CSV (outside the route table)
      [
        key(w.usage),
        [
          {
            input: () => ({ query: { month } }),
            listed: {
              ids: (d) => (d as { companies: { companyId: number }[] }).companies.map((x) => x.companyId),
              aId: () => a.company,
            },
          },
          {
            label: '(CSV of A company)',
            aimsAtA: true,
            rawPath: USAGE_CSV_PATH,
            input: () => ({ query: { month, companyId: a.company } }),
            absent: () => ({ query: { month, companyId: ABSENT_ID } }),
          },
        ],
      ],
      [
        key(w.companyUsage),
        [
          {
            aimsAtA: true,
            input: () => ({ params: { id: a.company }, query: { month } }),
            absent: () => ({ params: { id: ABSENT_ID }, query: { month } }),
          },
        ],
      ],
      [key(w.getWebhook), [{ input: () => ({}) }]],
      [
        key(w.setWebhook),
        [{ input: ({ mark }) => ({ body: { url: `https://93.184.215.14/${mark}-hook-${++seq}`, enabled: true } }) }],
      ],
      [key(w.rotateSecret), [{ input: () => ({}) }]],
      [
        key(w.sendNow),
        [
          {
            label: '(A company)',
            aimsAtA: true,
            input: () => ({ body: { month, companyId: a.company } }),
            absent: () => ({ body: { month, companyId: ABSENT_ID } }),
          },
        ],
      ],
      [
        key(w.deliveries),
        [{ input: () => ({ query: { rowsPerPage: 100 } }), listed: { ids: paged, aId: () => a.delivery } }],
      ],
      [
        key(w.retryDelivery),
        [
          {
            aimsAtA: true,
            prepare: async () => {
              await sql.query("update webhook_deliveries set status = 'failed', locked_until = null where id = $1", [
                a.delivery,
              ]);
              return a.delivery;
            },
            input: ({ prepared }) => ({ params: { id: prepared } }),
            absent: () => ({ params: { id: ABSENT_ID } }),
          },
        ],
      ],
      // Activity
      [
        key(act.resellerList),
        [
          {
            input: () => ({ query: { rowsPerPage: 100 } }),
            listed: {
              ids: (d) =>
                (d as { data: { company: { id: number } | null }[] }).data.flatMap((e) =>
                  e.company ? [e.company.id] : [],
                ),
              aId: () => a.company,
            },
          },
          {
            label: '(A company)',
            aimsAtA: true,
            input: () => ({ query: { companyId: a.company } }),
            absent: () => ({ query: { companyId: ABSENT_ID } }),
          },
        ],
      ],
      [
        key(act.resellerFilters),
        [
          {
            input: () => ({}),
            listed: {
              ids: (d) => ((d as { companies?: { id: number }[] }).companies ?? []).map((x) => x.id),
              aId: () => a.company,
            },
          },
        ],
      ],
    ]);
    function hostBody(name: string, providerId: number) {
      return { name, uri: PUBLIC_HOST_URI, providerId, regionId: a.region, cpus: 4, ramGb: 8, diskGb: 100 };
    }
    // ---- Every staff route of the contract needs a recipe: a staff route added later fails the run until it has one ----
    const staffRoutes = allRoutes().filter((r) => r.access === 'staff');
    const withoutRecipe = staffRoutes.filter((r) => !recipes.has(key(r))).map(key);
    const staleRecipes = [...recipes.keys()].filter((k2) => !staffRoutes.some((r) => key(r) === k2));
    // Not an error: a recipe may be written (by its path) before its route lands in the contract.
    if (staleRecipes.length > 0)
      console.log(`        recipes for no staff route of the contract: ${staleRecipes.join(', ')}`);

    // ---- Run ----
    const expectedFor = (caller: Caller, route: RouteDef, v: Variant): 'allow' | number[] => {
      if (caller.role === null) return [403]; // customers: staff only
      const readOnlyWrite = isWrite(route) && !staffMayWrite(caller.role);
      if (caller.side === 'B' && v.aimsAtA) return readOnlyWrite ? [403, 404] : [404]; // 403: the role's, for any id
      return readOnlyWrite ? [403] : 'allow';
    };
    const send = (client: ApiClient, route: RouteDef, v: Variant, input: CallInput) => {
      if (!v.rawPath) return client.call(route, input);
      const qs = new URLSearchParams(Object.entries(input.query ?? {}).map(([n, x]) => [n, String(x)]));
      return client.raw({ method: route.method, path: `${v.rawPath}?${qs.toString()}` });
    };
    let checked = 0;
    let allowed = 0;
    let deniedAsExpected = 0;
    let absentCalls = 0;
    const inputRefusals: string[] = [];
    const unexpected: {
      allowedButShouldBeRefused: string[];
      refusedButShouldBeAllowed: string[];
      otherDenialStatus: string[];
      deniedButChanged: string[];
      existenceOracle: string[];
      leaks: string[];
      listChecksVacuous: string[];
      serverErrors: string[];
    } = {
      allowedButShouldBeRefused: [],
      refusedButShouldBeAllowed: [],
      otherDenialStatus: [],
      deniedButChanged: [],
      existenceOracle: [],
      leaks: [],
      listChecksVacuous: [],
      serverErrors: [],
    };
    const statuses: Record<string, number> = {};
    // Customers first, then B, then A's read-only roles, A's writers last (their changes come after every refusal).
    const order = [...callers].sort((x, y) => rank(x) - rank(y));
    function rank(x: Caller) {
      if (x.role === null) return 0;
      if (x.side === 'B') return 1;
      return staffMayWrite(x.role) ? 3 : 2;
    }
    const cellsRun: string[] = [];
    for (const route of staffRoutes) {
      for (const v of recipes.get(key(route)) ?? []) {
        const call = `${key(route)}${v.label ? ` ${v.label}` : ''}`;
        cellsRun.push(call);
        for (const caller of order) {
          const want = expectedFor(caller, route, v);
          const ctx: Ctx = { prepared: v.prepare ? await v.prepare() : 0, mark: caller.side === 'A' ? MARK_A : MARK_B };
          await settle();
          const before = want === 'allow' ? '' : await fingerprint();
          const input = v.input(ctx);
          const res = await send(caller.client, route, v, input);
          await settle();
          checked++;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          const label = `${call} as ${caller.name}: ${res.status} ${res.message}`;
          const ok = res.status >= 200 && res.status < 300;
          if (res.status >= 500 || res.status === 0) unexpected.serverErrors.push(`${label} ${res.error ?? ''}`);
          if (want === 'allow') {
            if (ok) allowed++;
            else if ([400, 409, 429].includes(res.status)) {
              allowed++;
              inputRefusals.push(label);
            } else unexpected.refusedButShouldBeAllowed.push(label);
          } else {
            if (ok) unexpected.allowedButShouldBeRefused.push(`${label} (expected ${want.join(' or ')})`);
            else if (!want.includes(res.status))
              unexpected.otherDenialStatus.push(`${label} (expected ${want.join(' or ')})`);
            else deniedAsExpected++;
            if ((await fingerprint()) !== before) unexpected.deniedButChanged.push(label);
          }
          // B's staff: the same answer as for a thing nobody has, and never a word of A's.
          if (caller.side === 'B' && caller.role !== null) {
            if (v.aimsAtA && v.absent) {
              const missing = await send(caller.client, route, v, v.absent());
              await settle();
              absentCalls++;
              if (missing.status !== res.status || missing.message !== res.message)
                unexpected.existenceOracle.push(`${label}; on a missing id: ${missing.status} ${missing.message}`);
            }
            const text = `${res.message} ${JSON.stringify(res.data)}`;
            const seen = markersOfA.filter((m) => text.includes(m));
            if (seen.length > 0) unexpected.leaks.push(`${label}: answer holds ${seen.join(', ')}`);
            if (ok && v.listed && v.listed.ids(res.data).includes(v.listed.aId()))
              unexpected.leaks.push(`${label}: lists A's id ${v.listed.aId()}`);
          }
          // A's staff see A's row in the list: the check above looks for something that is there.
          if (
            caller.side === 'A' &&
            caller.role !== null &&
            ok &&
            v.listed &&
            !v.listed.ids(res.data).includes(v.listed.aId())
          )
            unexpected.listChecksVacuous.push(`${label}: A's id ${v.listed.aId()} not listed`);
        }
      }
    }

    const unexpectedCount = Object.values(unexpected).reduce((n, l) => n + l.length, 0);
    const figures = {
      staffRoutes: staffRoutes.length,
      routesWithoutRecipe: withoutRecipe,
      calls: cellsRun.length,
      callers: callers.map((x) => x.name),
      staffRoles: STAFF_ROLES,
      cellsChecked: checked,
      allowed,
      allowedWithAnInputRefusal: inputRefusals,
      deniedAsExpected,
      missingIdComparisons: absentCalls,
      unexpected: unexpectedCount,
      ...unexpected,
      statuses,
    };
    console.log(
      `reseller-matrix: ${checked} cells (${cellsRun.length} calls over ${staffRoutes.length} staff routes × ${callers.length} callers: ${STAFF_ROLES.length} staff roles × 2 resellers, 2 customers of A)`,
    );
    console.log(
      `        allowed ${allowed} (${inputRefusals.length} of them a 4xx about the input); denied as expected ${deniedAsExpected}; unexpected ${unexpectedCount}; B's answers compared with a missing id's: ${absentCalls}`,
    );
    for (const [name, list] of Object.entries(unexpected))
      if (list.length > 0)
        console.log(
          `        ${name}: ${list.length}\n${list
            .slice(0, 10)
            .map((l) => `          ${l}`)
            .join('\n')}`,
        );
    for (const l of inputRefusals) console.log(`        allowed, input refused: ${l}`);
    if (withoutRecipe.length > 0) console.log(`        staff routes WITHOUT a recipe: ${withoutRecipe.join(', ')}`);
    return saveResult('reseller-matrix', figures, [
      {
        name: 'every staff route of the contract has a recipe',
        met: withoutRecipe.length === 0,
        value: withoutRecipe.length === 0 ? `${staffRoutes.length} of ${staffRoutes.length}` : withoutRecipe.join(', '),
      },
      {
        name: 'no cell allowed that should be refused',
        met: unexpected.allowedButShouldBeRefused.length === 0,
        value: `${unexpected.allowedButShouldBeRefused.length}`,
      },
      {
        name: 'refusals with the expected status (customers 403, read-only 403, B on A ids 404)',
        met: unexpected.otherDenialStatus.length === 0,
        value: `${unexpected.otherDenialStatus.length} other`,
      },
      {
        name: "B's answer on A's ids is a missing id's answer",
        met: unexpected.existenceOracle.length === 0,
        value: `${unexpected.existenceOracle.length} of ${absentCalls} differ`,
      },
      {
        name: 'refused cells changed nothing',
        met: unexpected.deniedButChanged.length === 0,
        value: `${unexpected.deniedButChanged.length} changed data`,
      },
      {
        name: "B's answers never show A's names or ids",
        met: unexpected.leaks.length === 0 && unexpected.listChecksVacuous.length === 0,
        value: `${unexpected.leaks.length} leaking, ${unexpected.listChecksVacuous.length} list checks without A's row`,
      },
      {
        name: 'allowed cells answered (the matrix ran as designed)',
        met: unexpected.refusedButShouldBeAllowed.length === 0,
        value: `${unexpected.refusedButShouldBeAllowed.length} refused`,
      },
      { name: 'no 5xx', met: unexpected.serverErrors.length === 0, value: `${unexpected.serverErrors.length}` },
    ]);
  } finally {
    await sql.end();
    await database.close();
    await env.close();
  }
}
