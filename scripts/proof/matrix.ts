/**
 * The authorisation matrix over HTTP, against the portal as its own process: two companies, and every kind
 * of caller (company admin, team Admin, Operator, Viewer, non-member of the team, the other company's
 * administrator) on every route of the contract that takes an id or touches tenant data, on the caller's
 * own company's objects and on the other company's. A denied cell must answer 4xx and change
 * nothing (tables fingerprinted before and after, once background VM work settled); list answers must hold
 * nothing of another company. Ideas and expectations from apps/api/test/authorization-matrix.ts and the
 * matrix tests; fixtures (users, teams, the second company) are written straight into the database as the
 * tests' fixtures do, everything else goes through the API.
 */
import pg from 'pg';
import type { RouteDef } from '@portal/contract/common';
import { allRoutes, routes } from '@portal/contract/routes';
import { openDatabase } from '../../apps/api/src/db/client.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../apps/api/test/fixtures.ts';
import type { TestApp } from '../../apps/api/test/harness.ts';
import { ApiClient, signIn, type Answer, type CallInput } from './lib/client.ts';
import { createVms, readCatalog, type Catalog } from './lib/load.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { tableFingerprint } from './lib/fingerprint.ts';
import { saveResult } from './lib/report.ts';

const ACTORS = ['companyAdmin', 'teamAdmin', 'operator', 'viewer', 'nonMember', 'otherCompany'] as const;
type Actor = (typeof ACTORS)[number];
/**
 * Whose objects a cell acts on: the first company's team the callers belong to (own), another team of the
 * same company none of them is in (sibling), or the second company's (foreign, the otherCompany actor's own).
 */
type Target = 'own' | 'sibling' | 'foreign';
/** allow, or the denial expected: an exact status, or any refusal (400 for a wrong key, 401, 403, 404). */
type Outcome = 'allow' | 401 | 403 | 404 | 'deny';
type Expect = Record<Actor, Outcome>;

const A = 'allow' as const;
const all = (o: Outcome): Expect => ({
  companyAdmin: o,
  teamAdmin: o,
  operator: o,
  viewer: o,
  nonMember: o,
  otherCompany: o,
});
const teamManage: Expect = {
  companyAdmin: A,
  teamAdmin: A,
  operator: 403,
  viewer: 403,
  nonMember: 404,
  otherCompany: 404,
};
const teamView: Expect = { companyAdmin: A, teamAdmin: A, operator: A, viewer: A, nonMember: 404, otherCompany: 404 };
const companyAdminOnly: Expect = {
  companyAdmin: A,
  teamAdmin: 403,
  operator: 403,
  viewer: 403,
  nonMember: 403,
  otherCompany: 404,
};
const sameCompany: Expect = { ...all(A), otherCompany: 404 };
const vmChange: Expect = { companyAdmin: A, teamAdmin: A, operator: A, viewer: 403, nonMember: 404, otherCompany: 404 };
/** On the second company's objects: its administrator may do what A's administrator may on A's; nobody of A may. */
const foreignOf = (own: Expect): Expect => ({ ...all('deny'), otherCompany: own.companyAdmin === A ? A : 'deny' });
/** On a team of A that no caller belongs to: A's administrator as on their own team; no team role reaches it. */
const siblingOf = (own: Expect): Expect => ({ ...all('deny'), companyAdmin: own.companyAdmin });

interface Cell {
  call: string;
  route: RouteDef;
  target: Target;
  expect: Expect;
  /** Creates or picks what the call acts on (a fresh VM, user, team), before the "nothing changed" fingerprint. */
  prepare?: () => Promise<number>;
  input: (prepared: number) => CallInput;
  /** For list answers: the ids of tenant rows they hold, and which table they come from. */
  listed?: { table: 'users' | 'teams' | 'virtual_machines'; ids: (data: unknown) => number[] };
}

const TARGET_LABEL: Record<Target, string> = { own: "A's team", sibling: "A's other team", foreign: "B's objects" };

const FINGERPRINTED = [
  'users',
  'teams',
  'team_members',
  'virtual_machines',
  'operations',
  'companies',
  'resellers',
  'distributors',
  'api_tokens',
];
/** Rows that background work updates after the fact (mail delivery, token use): counted only. */
const COUNTED = ['audit_log', 'mail_outbox', 'one_time_tokens', 'console_tokens', 'support_messages'];

export async function prove(): Promise<boolean> {
  const env = await startProofEnv({
    SIMULATOR_STEP_MS: '20',
    VM_RUNNER_POLL_MS: '20',
    VM_RECONCILE_INTERVAL_MS: '3600000',
  });
  const { portal, smtp, cluster } = env;
  const sql = new pg.Client({ connectionString: cluster.url });
  await sql.connect();
  const database = await openDatabase({ databaseUrl: cluster.url, poolSize: 2 });
  const t = { db: database.db } as unknown as TestApp;
  try {
    const tables = async (names: string[]) => {
      const present: string[] = [];
      for (const n of names)
        if ((await sql.query<{ r: string | null }>('select to_regclass($1) as r', [n])).rows[0]?.r) present.push(n);
      return present;
    };
    const fingerprinted = await tables(FINGERPRINTED);
    const counted = await tables(COUNTED);
    const fingerprint = async () => (await tableFingerprint(sql, fingerprinted, counted)).join(' ');
    async function settle(timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (
        (
          await sql.query<{ n: number }>(
            "select count(*)::int as n from operations where status in ('pending', 'running')",
          )
        ).rows[0]!.n > 0
      ) {
        if (Date.now() > deadline) throw new Error('VM operations still under way');
        await sleep(20);
      }
    }

    // ---- Two companies and their people ----
    const companyA = (
      await sql.query<{ company_id: number }>('select company_id from users where email = $1', [ADMIN.email])
    ).rows[0]!.company_id;
    const mk = (companyId: number, email: string) => createUser(t, companyId, email);
    const teamAdmin = await mk(companyA, 'proof-teamadmin@example.com');
    const operator = await mk(companyA, 'proof-operator@example.com');
    const viewer = await mk(companyA, 'proof-viewer@example.com');
    const nonMember = await mk(companyA, 'proof-nonmember@example.com');
    const subjectA = await mk(companyA, 'proof-subject@example.com');
    const teamA = await createTeam(t, companyA, 'Proof team A', [
      { userId: teamAdmin.id, roleId: 1 },
      { userId: operator.id, roleId: 2 },
      { userId: viewer.id, roleId: 3 },
      { userId: subjectA.id, roleId: 3 },
    ]);
    const siblingMember = await mk(companyA, 'proof-sibling@example.com');
    const siblingAssignee = await mk(companyA, 'proof-sibling2@example.com');
    const teamA2 = await createTeam(t, companyA, 'Proof team A2', [
      { userId: siblingMember.id, roleId: 3 },
      { userId: siblingAssignee.id, roleId: 2 },
    ]);
    const other = await createOtherCompany(t, 'proof-boss@other.example');
    const companyB = other.companyId;
    const subjectB = await mk(companyB, 'proof-subject@other.example');
    const memberB = await mk(companyB, 'proof-member@other.example');
    const teamB = await createTeam(t, companyB, 'Proof team B', [
      { userId: subjectB.id, roleId: 3 },
      { userId: memberB.id, roleId: 2 },
    ]);
    const clients = {} as Record<Actor, ApiClient>;
    clients.companyAdmin = await signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
    for (const [actor, email] of [
      ['teamAdmin', teamAdmin.email],
      ['operator', operator.email],
      ['viewer', viewer.email],
      ['nonMember', nonMember.email],
      ['otherCompany', other.admin.email],
    ] as const) {
      clients[actor] = await signIn(portal.api, smtp, email, PASSWORD);
    }
    const companyOf: Record<Actor, number> = {
      companyAdmin: companyA,
      teamAdmin: companyA,
      operator: companyA,
      viewer: companyA,
      nonMember: companyA,
      otherCompany: companyB,
    };
    const side = {
      own: {
        company: companyA,
        team: teamA.id,
        owner: clients.companyAdmin,
        subject: subjectA.id,
        member: viewer.id,
        assignee: operator.id,
      },
      sibling: {
        company: companyA,
        team: teamA2.id,
        owner: clients.companyAdmin,
        subject: siblingMember.id,
        member: siblingMember.id,
        assignee: siblingAssignee.id,
      },
      foreign: {
        company: companyB,
        team: teamB.id,
        owner: clients.otherCompany,
        subject: subjectB.id,
        member: subjectB.id,
        assignee: memberB.id,
      },
    };

    // ---- VMs, made through the API and run by the real runner on the simulator ----
    const catalog: Catalog = await readCatalog(clients.companyAdmin);
    let seq = 0;
    const letters = (n: number) => n.toString(26).replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 26)));
    async function freshVm(target: Target, status: 'Running' | 'Stopped'): Promise<number> {
      const s = side[target];
      const [id] = await createVms(s.owner, catalog, 1, `mx-${target}-${++seq}`, s.team);
      await settle();
      if (status === 'Stopped') {
        const res = await s.owner.call(routes.vms.stop, { params: { id: id! } });
        if (res.status !== 200) throw new Error(`could not stop VM ${id}: ${res.status} ${res.message}`);
        await settle();
      }
      return id!;
    }
    const shared = {
      own: await freshVm('own', 'Running'),
      sibling: await freshVm('sibling', 'Running'),
      foreign: await freshVm('foreign', 'Running'),
    };
    const edited = {
      own: await freshVm('own', 'Running'),
      sibling: await freshVm('sibling', 'Running'),
      foreign: await freshVm('foreign', 'Running'),
    };
    // A VM outside any team, made by the Operator: theirs and the company administrator's only.
    const [operatorOwn] = await createVms(clients.operator, catalog, 1, 'mx-operator-own', null);
    await settle();
    const roleOf = async (teamId: number, userId: number) =>
      (
        await sql.query<{ role_id: number }>('select role_id from team_members where team_id = $1 and user_id = $2', [
          teamId,
          userId,
        ])
      ).rows[0]?.role_id ?? 3;
    const vmBody = (teamId: number | null) => ({
      regionId: catalog.regionId,
      image: 'Debian 12',
      configurationId: catalog.micro,
      providerId: catalog.providerId,
      name: `mx-new-${++seq}`,
      numberOfInstances: 1,
      ...(teamId === null ? {} : { teamId }),
    });
    const paged = (data: unknown) => ((data as { data?: { id: number }[] } | null)?.data ?? []).map((r) => r.id);

    // ---- The cells: each call on A's objects and, where it takes an id, on B's ----
    const cells: Cell[] = [];
    const both = (make: (target: Target) => Omit<Cell, 'target'>) => {
      const own = make('own');
      cells.push({ ...own, target: 'own' });
      const foreign = make('foreign');
      cells.push({ ...foreign, target: 'foreign', expect: foreignOf(own.expect) });
    };
    /** A team-scoped call: on the callers' team, on a team of theirs they are not in, and on B's. */
    const three = (make: (target: Target) => Omit<Cell, 'target'>) => {
      both(make);
      const sibling = make('sibling');
      cells.push({ ...sibling, target: 'sibling', expect: siblingOf(make('own').expect) });
    };
    const once = (cell: Omit<Cell, 'target'>) => cells.push({ ...cell, target: 'own' });

    // Reads that every signed-in user may make; list answers must stay inside the caller's company.
    once({ call: 'GET /users/me', route: routes.password.me, expect: all(A), input: () => ({}) });
    once({ call: 'GET /roles/userRoles', route: routes.roles.userRoles, expect: all(A), input: () => ({}) });
    once({ call: 'GET /resellers/getLogoUrl', route: routes.platform.getLogoUrl, expect: all(A), input: () => ({}) });
    once({
      call: 'GET /users/list',
      route: routes.users.list,
      expect: all(A),
      input: () => ({ query: { rowsPerPage: 100 } }),
      listed: { table: 'users', ids: paged },
    });
    once({
      call: 'GET /teams/list',
      route: routes.teams.list,
      expect: all(A),
      input: () => ({ query: { rowsPerPage: 100 } }),
      listed: { table: 'teams', ids: paged },
    });
    once({
      call: 'GET /virtualMachines/list',
      route: routes.vms.list,
      expect: all(A),
      input: () => ({ query: { rowsPerPage: 100 } }),
      listed: { table: 'virtual_machines', ids: paged },
    });
    once({
      call: 'GET /virtualMachines/GetDashboardData',
      route: routes.vms.dashboard,
      expect: all(A),
      input: () => ({}),
    });
    once({
      call: 'GET /virtualMachines/listCountries',
      route: routes.vms.listCountries,
      expect: all(A),
      input: () => ({}),
    });
    once({
      call: 'GET /virtualMachines/listConfigurations',
      route: routes.vms.listConfigurations,
      expect: all(A),
      input: () => ({}),
    });
    once({
      call: 'GET /virtualMachines/listRegions/:id',
      route: routes.vms.listRegions,
      expect: all(A),
      input: () => ({ params: { id: 1 } }),
    });
    once({
      call: 'GET /virtualMachines/listCities/:id',
      route: routes.vms.listCities,
      expect: all(A),
      input: () => ({ params: { id: catalog.regionId } }),
    });
    once({
      call: 'GET /virtualMachines/listImages/:id',
      route: routes.vms.listImages,
      expect: all(A),
      input: () => ({ params: { id: catalog.regionId } }),
    });
    once({
      call: 'GET /virtualMachines/getRegion/:id',
      route: routes.vms.getRegion,
      expect: all(A),
      input: () => ({ params: { id: catalog.regionId } }),
    });
    once({
      call: 'GET /virtualMachines/listProviders/:regionId',
      route: routes.vms.listProviders,
      expect: all(A),
      input: () => ({ params: { regionId: catalog.regionId }, query: { configurationId: catalog.micro } }),
    });
    once({
      call: 'GET /virtualMachines/fetchVirtualMachineConfigurations/:regionId',
      route: routes.vms.fetchConfigurations,
      expect: all(A),
      input: () => ({ params: { regionId: catalog.regionId }, query: { image: 'Debian 12' } }),
    });
    once({
      call: 'POST /support/sendEmail',
      route: routes.platform.sendSupportEmail,
      expect: all(A),
      input: () => ({ body: { message: 'Proof run: please ignore.' } }),
    });
    // Operator calls: no portal session may make them, whatever its role.
    once({
      call: 'POST /imports/company',
      route: routes.platform.importCompanies,
      expect: all('deny'),
      input: () => ({
        body: { rows: [{ externalId: `mx-${++seq}`, name: 'Planted company', resellerExternalId: 'demo-reseller' }] },
      }),
    });
    once({
      call: 'POST /imports/reseller',
      route: routes.platform.importResellers,
      expect: all('deny'),
      input: () => ({
        body: { rows: [{ externalId: 'demo-reseller', distributorExternalId: 'demo-distributor', name: 'Hijacked' }] },
      }),
    });
    once({
      call: 'POST /imports/distributer',
      route: routes.platform.importDistributors,
      expect: all('deny'),
      input: () => ({ body: { rows: [{ externalId: 'demo-distributor', name: 'Hijacked' }] } }),
    });
    once({ call: 'GET /debug/debugSharktech', route: routes.platform.debug, expect: all('deny'), input: () => ({}) });
    once({
      call: 'POST /profiling/loadcpu',
      route: routes.platform.loadCpu,
      expect: all('deny'),
      input: () => ({ body: { durationMs: 1 } }),
    });

    // Teams, users, roles, permissions.
    both((tg) => ({
      call: 'GET /users/details/:id',
      route: routes.users.details,
      expect: sameCompany,
      input: () => ({ params: { id: side[tg].subject } }),
    }));
    both((tg) => ({
      call: 'GET /users/teams/:userId',
      route: routes.users.teams,
      expect: sameCompany,
      input: () => ({ params: { userId: side[tg].subject } }),
    }));
    both((tg) => ({
      call: 'POST /users/edit',
      route: routes.users.edit,
      expect: companyAdminOnly,
      input: () => ({ body: { id: side[tg].subject, firstName: `Edited${letters(++seq)}`, lastName: 'Changed' } }),
    }));
    both((tg) => ({
      call: 'DELETE /users/delete/:id',
      route: routes.users.delete,
      expect: companyAdminOnly,
      prepare: async () => (await mk(side[tg].company, `doomed${++seq}@${tg}.example`)).id,
      input: (id) => ({ params: { id } }),
    }));
    three((tg) => ({
      call: 'POST /users/create (into a team)',
      route: routes.users.create,
      expect: { companyAdmin: A, teamAdmin: A, operator: 403, viewer: 403, nonMember: 404, otherCompany: 404 },
      input: () => ({ body: { email: `invitee${++seq}@${tg}.example`, roleId: 3, teamIds: [side[tg].team] } }),
    }));
    three((tg) => ({
      call: 'GET /teams/:id',
      route: routes.teams.details,
      expect: teamView,
      input: () => ({ params: { id: side[tg].team } }),
    }));
    three((tg) => ({
      call: 'GET /permissions/list/:id',
      route: routes.permissions.list,
      expect: teamView,
      input: () => ({ params: { id: side[tg].team } }),
    }));
    three((tg) => ({
      call: 'POST /teams/update',
      route: routes.teams.update,
      expect: teamManage,
      input: () => ({ body: { teamId: side[tg].team, name: `Proof team ${tg} ${++seq}` } }),
    }));
    three((tg) => ({
      call: 'POST /teams/addUser',
      route: routes.teams.addUser,
      expect: teamManage,
      prepare: async () => (await mk(side[tg].company, `addable${++seq}@${tg}.example`)).id,
      input: (userId) => ({ body: { teamId: side[tg].team, userId, roleId: 3 } }),
    }));
    three((tg) => ({
      call: 'DELETE /teams/removeUser',
      route: routes.teams.removeUser,
      expect: teamManage,
      prepare: async () => {
        const u = await mk(side[tg].company, `removable${++seq}@${tg}.example`);
        await sql.query('insert into team_members (team_id, user_id, role_id) values ($1, $2, 3)', [
          side[tg].team,
          u.id,
        ]);
        return u.id;
      },
      input: (userId) => ({ body: { teamId: side[tg].team, userId } }),
    }));
    three((tg) => ({
      call: 'DELETE /teams/delete',
      route: routes.teams.delete,
      expect: teamManage,
      prepare: async () => {
        const members =
          tg !== 'foreign'
            ? [
                { userId: teamAdmin.id, roleId: 1 },
                { userId: operator.id, roleId: 2 },
                { userId: viewer.id, roleId: 3 },
              ]
            : [{ userId: memberB.id, roleId: 1 }];
        if (tg === 'sibling') members.splice(0, members.length, { userId: siblingMember.id, roleId: 1 });
        return (await createTeam(t, side[tg].company, `Doomed team ${++seq}`, members)).id;
      },
      input: (teamId) => ({ body: { teamId } }),
    }));
    three((tg) => ({
      call: 'POST /roles/updateUserRoleForTeam',
      route: routes.roles.updateUserRoleForTeam,
      expect: teamManage,
      prepare: () => roleOf(side[tg].team, side[tg].member),
      input: (role) => ({ body: { teamId: side[tg].team, userId: side[tg].member, roleId: role === 3 ? 2 : 3 } }),
    }));
    three((tg) => ({
      call: 'POST /permissions/assign',
      route: routes.permissions.assign,
      expect: teamManage,
      prepare: () => roleOf(side[tg].team, side[tg].assignee),
      input: (role) => ({
        body: { teamId: side[tg].team, assignments: [{ userId: side[tg].assignee, roleId: role === 2 ? 3 : 2 }] },
      }),
    }));
    // Mixed: A's own team with B's user; nobody may join them.
    once({
      call: "POST /teams/addUser (own team, other company's user)",
      route: routes.teams.addUser,
      expect: all('deny'),
      prepare: async () => (await mk(companyB, `mixed${++seq}@other.example`)).id,
      input: (userId) => ({ body: { teamId: teamA.id, userId, roleId: 3 } }),
    });
    once({
      call: "POST /roles/updateUserRoleForTeam (own team, other company's user)",
      route: routes.roles.updateUserRoleForTeam,
      expect: all('deny'),
      input: () => ({ body: { teamId: teamA.id, userId: subjectB.id, roleId: 1 } }),
    });
    once({
      call: "POST /permissions/assign (own team, other company's user)",
      route: routes.permissions.assign,
      expect: all('deny'),
      input: () => ({ body: { teamId: teamA.id, assignments: [{ userId: subjectB.id, roleId: 1 }] } }),
    });
    once({
      call: "DELETE /teams/removeUser (other company's team, own user)",
      route: routes.teams.removeUser,
      expect: all('deny'),
      input: () => ({ body: { teamId: teamB.id, userId: viewer.id } }),
    });

    // Public calls that take a user id with an emailed key: a guessed key must change nobody's password or names.
    both((tg) => ({
      call: 'POST /users/resetPasswordFromEmail/:token (guessed key)',
      route: routes.password.resetPasswordFromEmail,
      expect: all('deny'),
      input: () => ({
        params: { token: side[tg].subject },
        body: { password: 'Taken-Over-Password-1!', resetKey: 'guessed-key-0123456789' },
      }),
    }));
    both((tg) => ({
      call: 'POST /users/confirmEmail/:token (guessed key)',
      route: routes.password.confirmEmail,
      expect: all('deny'),
      input: () => ({
        params: { token: side[tg].subject },
        body: {
          password: 'Taken-Over-Password-1!',
          resetKey: 'guessed-key-0123456789',
          firstName: 'Taken',
          lastName: 'Over',
        },
      }),
    }));

    // Virtual machines.
    three((tg) => ({
      call: 'GET /virtualMachines/list?teamId',
      route: routes.vms.list,
      expect: teamView,
      input: () => ({ query: { teamId: side[tg].team, rowsPerPage: 100 } }),
      listed: { table: 'virtual_machines', ids: paged },
    }));
    three((tg) => ({
      call: 'GET /virtualMachines/details/:id',
      route: routes.vms.details,
      expect: teamView,
      input: () => ({ params: { id: shared[tg] } }),
    }));
    three((tg) => ({
      call: 'GET /virtualMachines/getPassword/:id',
      route: routes.vms.getPassword,
      expect: vmChange,
      input: () => ({ params: { id: shared[tg] } }),
    }));
    three((tg) => ({
      call: 'GET /virtualMachines/getAccessKey/:id',
      route: routes.vms.getAccessKey,
      expect: vmChange,
      input: () => ({ params: { id: shared[tg] } }),
    }));
    three((tg) => ({
      call: 'GET /virtualMachines/getAccess/:id',
      route: routes.vms.getAccess,
      expect: vmChange,
      input: () => ({ params: { id: shared[tg] } }),
    }));
    three((tg) => ({
      call: 'GET /virtualMachines/getConsole/:id',
      route: routes.vms.getConsole,
      expect: vmChange,
      input: () => ({ params: { id: shared[tg] } }),
    }));
    three((tg) => ({
      call: 'PUT /virtualMachines/edit/:id',
      route: routes.vms.edit,
      expect: vmChange,
      input: () => ({ params: { id: edited[tg] }, body: { name: `mx-renamed-${++seq}` } }),
    }));
    three((tg) => ({
      call: 'POST /virtualMachines/start/:id',
      route: routes.vms.start,
      expect: vmChange,
      prepare: () => freshVm(tg, 'Stopped'),
      input: (id) => ({ params: { id } }),
    }));
    three((tg) => ({
      call: 'POST /virtualMachines/stop/:id',
      route: routes.vms.stop,
      expect: vmChange,
      prepare: () => freshVm(tg, 'Running'),
      input: (id) => ({ params: { id } }),
    }));
    three((tg) => ({
      call: 'POST /virtualMachines/reset/:id',
      route: routes.vms.reset,
      expect: vmChange,
      prepare: () => freshVm(tg, 'Running'),
      input: (id) => ({ params: { id } }),
    }));
    three((tg) => ({
      call: 'PUT /virtualMachines/changeConfiguration',
      route: routes.vms.changeConfiguration,
      expect: vmChange,
      prepare: () => freshVm(tg, 'Running'),
      input: (id) => ({ body: { id, configurationId: catalog.small } }),
    }));
    three((tg) => ({
      call: 'DELETE /virtualMachines/delete/:id',
      route: routes.vms.delete,
      expect: vmChange,
      prepare: () => freshVm(tg, 'Running'),
      input: (id) => ({ params: { id } }),
    }));
    three((tg) => ({
      call: 'POST /virtualMachines/create (in a team)',
      route: routes.vms.create,
      expect: vmChange,
      input: () => ({ body: vmBody(side[tg].team) }),
    }));
    const operatorOnly: Expect = {
      companyAdmin: A,
      teamAdmin: 404,
      operator: A,
      viewer: 404,
      nonMember: 404,
      otherCompany: 404,
    };
    for (const [call, route] of [
      ['details', routes.vms.details],
      ['getPassword', routes.vms.getPassword],
      ['getAccessKey', routes.vms.getAccessKey],
      ['getAccess', routes.vms.getAccess],
      ['getConsole', routes.vms.getConsole],
    ] as const) {
      once({
        call: `GET /virtualMachines/${call}/:id (team-less VM of the Operator)`,
        route,
        expect: operatorOnly,
        input: () => ({ params: { id: operatorOwn! } }),
      });
    }
    once({
      call: 'PUT /virtualMachines/edit/:id (team-less VM of the Operator)',
      route: routes.vms.edit,
      expect: operatorOnly,
      input: () => ({ params: { id: operatorOwn! }, body: { name: `mx-own-renamed-${++seq}` } }),
    });
    once({
      call: 'POST /virtualMachines/create (no team)',
      route: routes.vms.create,
      expect: { companyAdmin: A, teamAdmin: A, operator: A, viewer: 403, nonMember: 403, otherCompany: A },
      input: () => ({ body: vmBody(null) }),
    });

    // Last: whoever creates a team becomes its Admin, which changes what they may do in the cells above.
    once({
      call: 'POST /teams/create',
      route: routes.teams.create,
      expect: all(A),
      input: () => ({ body: { name: `Proof created ${++seq}` } }),
    });
    both((tg) => ({
      call: 'POST /teams/create (under a parent)',
      route: routes.teams.create,
      expect: { ...all(A), nonMember: 404, otherCompany: 404 },
      input: () => ({ body: { name: `Proof child ${++seq}`, parentTeamId: side[tg].team } }),
    }));

    // ---- Run ----
    let tried = 0;
    const allowedButShouldBeRefused: string[] = [];
    const deniedButChanged: string[] = [];
    const refusedButShouldBeAllowed: string[] = [];
    const otherDenialStatus: string[] = [];
    const leaks: string[] = [];
    const serverErrors: string[] = [];
    const statuses: Record<string, number> = {};
    await settle();
    for (const cell of cells) {
      for (const actor of ACTORS) {
        const want = cell.expect[actor];
        const prepared = cell.prepare ? await cell.prepare() : 0;
        await settle();
        const before = await fingerprint();
        const res: Answer = await clients[actor].call(cell.route, cell.input(prepared));
        await settle();
        tried++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const label = `${cell.call} [${TARGET_LABEL[cell.target]}] as ${actor}: ${res.status} ${res.message}`;
        const ok = res.status >= 200 && res.status < 300;
        if (res.status >= 500 || res.status === 0) serverErrors.push(label);
        if (want === 'allow') {
          if (!ok) refusedButShouldBeAllowed.push(`${label} (expected 200)`);
          else if (cell.listed) {
            const ids = cell.listed.ids(res.data);
            if (ids.length > 0) {
              const foreignRows = (
                await sql.query<{ id: number }>(
                  `select id from ${cell.listed.table} where id = any($1) and company_id <> $2`,
                  [ids, companyOf[actor]],
                )
              ).rows;
              if (foreignRows.length > 0)
                leaks.push(
                  `${label}: listed ${cell.listed.table} ${foreignRows.map((r) => r.id).join(', ')} of another company`,
                );
            }
          }
        } else {
          if (ok) allowedButShouldBeRefused.push(`${label} (expected ${want})`);
          else if (want !== 'deny' ? res.status !== want : ![400, 401, 403, 404].includes(res.status))
            otherDenialStatus.push(`${label} (expected ${want})`);
          if ((await fingerprint()) !== before) deniedButChanged.push(label);
        }
      }
    }
    // The live status stream (outside the contract's table): each caller listens while every kind of VM changes;
    // an event about a VM the caller may not see is an allowed cell that should have been refused.
    const streams = {} as Record<Actor, Awaited<ReturnType<ApiClient['openEventStream']>>>;
    for (const actor of ACTORS) streams[actor] = await clients[actor].openEventStream();
    const signedOutStream = await new ApiClient(portal.api).openEventStream();
    signedOutStream.close();
    tried++;
    if (signedOutStream.status !== 401)
      allowedButShouldBeRefused.push(
        `GET /virtualMachines/events signed out: ${signedOutStream.status} (expected 401)`,
      );
    const streamed: { vm: number; label: string; owner: ApiClient; expect: Expect }[] = [
      { vm: shared.own, label: "a VM of A's team", owner: clients.companyAdmin, expect: teamView },
      { vm: shared.sibling, label: "a VM of A's other team", owner: clients.companyAdmin, expect: siblingOf(teamView) },
      { vm: shared.foreign, label: "a VM of B's team", owner: clients.otherCompany, expect: foreignOf(teamView) },
      {
        vm: operatorOwn!,
        label: "the Operator's team-less VM",
        owner: clients.operator,
        expect: {
          companyAdmin: A,
          teamAdmin: 'deny',
          operator: A,
          viewer: 'deny',
          nonMember: 'deny',
          otherCompany: 'deny',
        },
      },
    ];
    for (const s of streamed) {
      const res = await s.owner.call(routes.vms.reset, { params: { id: s.vm } });
      if (res.status !== 200)
        throw new Error(`could not reset VM ${s.vm} for the stream check: ${res.status} ${res.message}`);
    }
    await settle();
    await sleep(1000);
    for (const actor of ACTORS) {
      if (streams[actor].status !== 200)
        refusedButShouldBeAllowed.push(`GET /virtualMachines/events as ${actor}: ${streams[actor].status}`);
      for (const s of streamed) {
        tried++;
        const got = streams[actor].seen.has(s.vm);
        const label = `GET /virtualMachines/events: ${s.label} as ${actor}`;
        if (s.expect[actor] === 'allow' && !got) refusedButShouldBeAllowed.push(`${label}: no event`);
        if (s.expect[actor] !== 'allow' && got) allowedButShouldBeRefused.push(`${label}: event received`);
      }
      streams[actor].close();
    }

    // Routes of the contract the matrix left out, and why: they act on no tenant's data or take no id.
    const covered = new Set(cells.map((c) => `${c.route.method} ${c.route.path}`));
    const notCovered = allRoutes()
      .filter((r) => !covered.has(`${r.method} ${r.path}`))
      .map((r) => `${r.method} ${r.path} (${r.access})`);
    const figures = {
      calls: cells.length,
      streamCells: 1 + ACTORS.length * streamed.length,
      actors: ACTORS.length,
      cellsTried: tried,
      cellsExpectedAllowed: [...cells, ...streamed].reduce(
        (n, c) => n + ACTORS.filter((a) => c.expect[a] === 'allow').length,
        0,
      ),
      // The signed-out stream is one more refused cell.
      cellsExpectedRefused:
        1 + [...cells, ...streamed].reduce((n, c) => n + ACTORS.filter((a) => c.expect[a] !== 'allow').length, 0),
      allowedButShouldBeRefused,
      deniedButChanged,
      leaks,
      refusedButShouldBeAllowed,
      otherDenialStatus,
      serverErrors,
      statuses,
      routesCovered: covered.size,
      routesNotCovered: notCovered,
    };
    console.log(
      `matrix: ${tried} cells tried (${cells.length} calls × ${ACTORS.length} callers, two companies, and ${figures.streamCells} of the live status stream): ${figures.cellsExpectedRefused} should be refused, ${figures.cellsExpectedAllowed} allowed`,
    );
    console.log(
      `        allowed that should be refused: ${allowedButShouldBeRefused.length}; refused but changed data: ${deniedButChanged.length}; lists leaking another company: ${leaks.length}`,
    );
    console.log(
      `        refused that should be allowed: ${refusedButShouldBeAllowed.length}; refused with another status than expected: ${otherDenialStatus.length}; 5xx: ${serverErrors.length}`,
    );
    for (const line of [
      ...allowedButShouldBeRefused,
      ...deniedButChanged,
      ...leaks,
      ...refusedButShouldBeAllowed,
      ...otherDenialStatus,
      ...serverErrors,
    ].slice(0, 20))
      console.log(`          ${line}`);
    console.log(
      `        routes covered ${covered.size} of ${allRoutes().length}; not covered: ${notCovered.join(', ')}`,
    );
    return saveResult('matrix', figures, [
      {
        name: 'no cell allowed that should be refused',
        met: allowedButShouldBeRefused.length === 0,
        value: `${allowedButShouldBeRefused.length} of ${figures.cellsExpectedRefused}`,
      },
      {
        name: 'refused cells changed nothing',
        met: deniedButChanged.length === 0,
        value: `${deniedButChanged.length} changed data`,
      },
      {
        name: "no list shows another company's rows",
        met: leaks.length === 0,
        value: `${leaks.length} leaking answers`,
      },
      {
        name: 'allowed cells answered (the matrix ran as designed)',
        met: refusedButShouldBeAllowed.length === 0,
        value: `${refusedButShouldBeAllowed.length} refused`,
      },
      { name: 'no 5xx', met: serverErrors.length === 0, value: `${serverErrors.length}` },
    ]);
  } finally {
    await sql.end();
    await database.close();
    await env.close();
  }
}
