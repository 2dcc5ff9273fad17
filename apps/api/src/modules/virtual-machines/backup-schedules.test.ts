/**
 * Backup schedules (issue 24 item 2; docs/decisions/0023-backup-schedules.md) through the real server, runner and
 * schedule worker on the simulator, on both engines, with the injected clock: set/get/replace/remove, bad input 400,
 * keep over the VM's limit, another company 404, a Viewer 403; a due slot takes a backup named after it (by System,
 * the VM stays Running); retention deletes the oldest scheduled backups beyond keep and never a manual one, and at
 * the limit makes room first; a failed or refused take records last_error and the activity log, and the next slot
 * tries again; a suspended company's schedules stop, and after a resume run at the next slot (no catch-up); two
 * processes passing at once take each slot once (on api-postgres the second one has its own pool and engine).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pino from 'pino';
import { BACKUP_SCHEDULE_TEXT as T, type BackupSchedule } from '@portal/contract/backup-schedules';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUPS } from '@portal/contract/constants';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import {
  auditLog,
  companies,
  configurationPrices,
  virtualMachines,
  vmBackups,
  vmBackupSchedules,
} from '../../db/schema.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { createAudit } from '../../lib/audit.ts';
import { createEgressPolicy } from '../../lib/egress.ts';
import { createSecretBox } from '../../lib/ssh-keys.ts';
import { createEngine, type Engine } from '../../engine/engine.ts';
import { createResellerKeys } from '../../engine/hosts/reseller-keys.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createAccess } from '../access/access.ts';
import { createVmRepository } from './vm.repository.ts';
import { createBackupRepository } from './backups.repository.ts';
import { createBackupService } from './backups.service.ts';
import { createBackupScheduleRepository } from './backup-schedules.repository.ts';
import { createBackupScheduleService } from './backup-schedules.service.ts';
import { createTestApp, signIn, ADMIN, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const SECRET = 'test-secret-that-is-long-enough-0123456789';
// The schedules' clock: the runner, sessions and the worker all read it; the tests move it from slot to slot.
const clock = manualClock(new Date('2026-11-26T01:00:00Z'));

let t: TestApp;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: {
      SIMULATOR_STEP_MS: '20',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      BACKUP_SCHEDULE_INTERVAL_MS: '50',
      BACKUP_VERIFY: 'off',
    },
  });
  t.portal.startWorkers();
  // Remember me: the clock moves days on, past an ordinary session's 12 hours.
  admin = await signIn(t, ADMIN.email, ADMIN.password, true);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t?.close();
});

async function until<V>(read: () => Promise<V>, ok: (v: V) => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
async function waitFor(id: number, status: string) {
  await until(
    async () => (await admin.call(routes.vms.details, { params: { id } })).data,
    (d) => d.status === status && d.pendingOperation === null,
    `VM ${id} ${status}`,
  );
}
async function created(name: string, extra: Record<string, unknown> = {}) {
  const id = (await admin.call(routes.vms.create, { body: { ...catalog.createBody(name), ...extra } })).data.ids[0]!;
  await waitFor(id, 'Running');
  return id;
}
/** Moves the clock to the next `hour`:00 UTC, plus `after` ms. */
function toNextSlot(hour: number, after = 30_000) {
  const now = clock.now();
  let slot = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour);
  if (slot <= now.getTime()) slot += DAY;
  clock.advance(slot + after - now.getTime());
  return new Date(slot);
}
const slotName = (slot: Date) => `Scheduled ${slot.toISOString().slice(0, 16).replace('T', ' ')}`;
const getSchedule = (id: number, client = admin) =>
  client.call(routes.backupSchedules.getBackupSchedule, { params: { id } });
const setSchedule = (id: number, body: unknown, client = admin) =>
  client.call(routes.backupSchedules.setBackupSchedule, { params: { id }, body });
const removeSchedule = (id: number, client = admin) =>
  client.call(routes.backupSchedules.removeBackupSchedule, { params: { id } });
const backupNames = async (id: number) =>
  (await admin.call(routes.backups.listBackups, { params: { id } })).data.backups.map((b) => `${b.name}:${b.state}`);
const audits = (id: number, action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetId, String(id)), eq(auditLog.action, action)))
    .orderBy(asc(auditLog.id));
const scheduleRow = async (id: number) =>
  (await t.db.select().from(vmBackupSchedules).where(eq(vmBackupSchedules.vmId, id)))[0];

/** The reseller's backup limit for the seeded size (null: the default). */
async function setLimit(limit: number | null) {
  const [company] = await t.db.select().from(companies).where(eq(companies.id, 1));
  await t.db
    .insert(configurationPrices)
    .values({
      resellerId: company!.resellerId!,
      configurationId: catalog.micro.id,
      monthlyPrice: '5.00',
      hourlyPrice: '0.01000',
      backupLimit: limit,
    })
    .onConflictDoUpdate({
      target: [configurationPrices.resellerId, configurationPrices.configurationId],
      set: { backupLimit: limit },
    });
}

describe('backup schedules', () => {
  it('sets, reads, replaces and removes a schedule (audited); keep is 1 to the VM’s limit; bad input 400', async () => {
    const id = await created('sched-basic');
    const empty = await getSchedule(id);
    expect([empty.status, empty.data]).toEqual([200, { schedule: null, limit: BACKUPS.defaultPerVm }]);

    const now = clock.now();
    const daily = await setSchedule(id, { frequency: 'daily', hour: 3, keep: 2 });
    expect([daily.status, daily.message]).toEqual([200, T.saved]);
    const firstSlot = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 3));
    if (firstSlot <= now) firstSlot.setUTCDate(firstSlot.getUTCDate() + 1);
    expect(daily.data).toEqual({
      frequency: 'daily',
      weekday: null,
      hour: 3,
      keep: 2,
      nextRunAt: firstSlot.toISOString(),
      lastRunAt: null,
      lastError: null,
    } satisfies BackupSchedule);

    // Replaced: weekly on Monday at 23:00 UTC (2026-11-30 is the first Monday after the clock's Thursday).
    const weekly = await setSchedule(id, {
      frequency: 'weekly',
      weekday: 'monday',
      hour: 23,
      keep: BACKUPS.defaultPerVm,
    });
    expect(weekly.status).toBe(200);
    expect(weekly.data).toMatchObject({ frequency: 'weekly', weekday: 'monday', hour: 23, keep: 7 });
    expect(new Date(weekly.data.nextRunAt).getUTCDay()).toBe(1);
    expect(new Date(weekly.data.nextRunAt).getUTCHours()).toBe(23);
    expect(Date.parse(weekly.data.nextRunAt) - now.getTime()).toBeLessThanOrEqual(7 * DAY);
    expect((await getSchedule(id)).data.schedule).toEqual(weekly.data);

    // Keep beyond the VM's limit: refused with the limit; a size without backups takes no schedule.
    const over = await setSchedule(id, { frequency: 'daily', hour: 3, keep: BACKUPS.defaultPerVm + 1 });
    expect([over.status, over.message]).toEqual([400, T.keepOverLimit(BACKUPS.defaultPerVm)]);
    await setLimit(0);
    const none = await setSchedule(id, { frequency: 'daily', hour: 3, keep: 1 });
    expect([none.status, none.message]).toEqual([400, "Backups are not offered for this VM's size."]);
    expect((await getSchedule(id)).data.limit).toBe(0);
    await setLimit(null);

    const base = `${t.config.API_BASE_PATH}/virtualMachines/backupSchedule`;
    const bad: [unknown, string][] = [
      [{ frequency: 'hourly', hour: 3, keep: 1 }, T.frequencyRule],
      [{ frequency: 'weekly', hour: 3, keep: 1 }, T.weekdayNeeded],
      [{ frequency: 'daily', weekday: 'monday', hour: 3, keep: 1 }, T.weekdayDaily],
      [{ frequency: 'weekly', weekday: 'funday', hour: 3, keep: 1 }, T.weekdayRule],
      [{ frequency: 'daily', hour: 24, keep: 1 }, T.hourRule],
      [{ frequency: 'daily', hour: -1, keep: 1 }, T.hourRule],
      [{ frequency: 'daily', hour: 1.5, keep: 1 }, T.hourRule],
      [{ frequency: 'daily', hour: '3', keep: 1 }, T.hourRule],
      [{ frequency: 'daily', keep: 1 }, T.hourRule],
      [{ frequency: 'daily', hour: 3, keep: 0 }, T.keepRule],
      [{ frequency: 'daily', hour: 3, keep: BACKUPS.limitMax + 1 }, T.keepRule],
      [{ frequency: 'daily', hour: 3 }, T.keepRule],
    ];
    for (const [body, message] of bad) {
      const res = await admin.raw('PUT', `${base}/${id}`, body);
      expect([res.status, res.message], JSON.stringify(body)).toEqual([400, message]);
      expect(res).toHaveProperty('data');
    }
    expect((await admin.raw('PUT', `${base}/${id}`, { frequency: 'daily', hour: 3, keep: 1, x: 1 })).status).toBe(400);
    expect((await admin.raw('PUT', `${base}/${id}`, 'not json')).status).toBe(400);
    expect((await admin.raw('GET', `${base}/abc`)).status).toBe(400);
    expect((await admin.raw('DELETE', `${base}/99999999999`)).status).toBe(400);
    expect((await getSchedule(999_999)).status).toBe(404);
    expect((await getSchedule(id)).data.schedule).toEqual(weekly.data); // nothing refused changed it

    const removed = await removeSchedule(id);
    expect([removed.status, removed.message]).toEqual([200, T.removed]);
    expect((await getSchedule(id)).data.schedule).toBeNull();
    const again = await removeSchedule(id);
    expect([again.status, again.message]).toEqual([404, T.notFound]);

    const sets = await audits(id, 'vm.backupScheduleSet');
    expect(sets.map((a) => (a.after as { frequency: string }).frequency)).toEqual(['daily', 'weekly']);
    expect(sets[1]!.actorUserId).not.toBeNull();
    expect(await audits(id, 'vm.backupScheduleRemove')).toHaveLength(1);
  });

  it('a due slot takes a backup named after it; retention deletes the oldest scheduled ones, never a manual one, and makes room at the limit', async () => {
    const id = await created('sched-retain');
    expect((await setSchedule(id, { frequency: 'daily', hour: 3, keep: 2 })).status).toBe(200);

    const d1 = toNextSlot(3);
    const s1 = slotName(d1);
    await until(
      () => backupNames(id),
      (n) => n.join() === `${s1}:ready`,
      'the first scheduled backup',
    );
    // The machine kept running; the schedule moved to the next day, by the slot it ran.
    expect((await admin.call(routes.vms.details, { params: { id } })).data.status).toBe('Running');
    const schedule = (await getSchedule(id)).data.schedule!;
    expect(schedule.nextRunAt).toBe(new Date(d1.getTime() + DAY).toISOString());
    expect(schedule.lastRunAt).not.toBeNull();
    expect(schedule.lastError).toBeNull();
    const taken = await audits(id, 'vm.backup');
    expect(taken).toHaveLength(1);
    expect(taken[0]!.actorUserId).toBeNull(); // System
    expect(taken[0]!.after).toMatchObject({ name: s1, cause: T.cause });
    const [row] = await t.db.select().from(vmBackups).where(eq(vmBackups.vmId, id));
    expect(row!.scheduled).toBe(true);

    // A manual backup: never retention's.
    expect((await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'mine' } })).status).toBe(200);
    await waitFor(id, 'Running');
    await until(
      () => backupNames(id),
      (n) => n.includes('mine:ready'),
      'the manual backup',
    );

    const s2 = slotName(toNextSlot(3));
    await until(
      () => backupNames(id),
      (n) => n.join() === `${s2}:ready,mine:ready,${s1}:ready`,
      'the second',
    );

    // At the limit (3: two scheduled and the manual one), the oldest scheduled one makes room before the take.
    await setLimit(3);
    const s3 = slotName(toNextSlot(3));
    await until(
      () => backupNames(id),
      (n) => n.join() === `${s3}:ready,${s2}:ready,mine:ready`,
      'room made',
    );
    await setLimit(null);

    // Beyond keep (2) after a take: the oldest scheduled one goes once the new one is ready; the manual one stays.
    const s4 = slotName(toNextSlot(3));
    await until(
      () => backupNames(id),
      (n) => n.join() === `${s4}:ready,${s3}:ready,mine:ready`,
      'retention',
    );
    await until(
      () => scheduleRow(id),
      (r) => r?.pendingBackupId === null,
      'the take settled',
    );

    const deletes = await audits(id, 'vm.backupDelete');
    expect(deletes.map((a) => [a.actorUserId, (a.after as { name: string; cause: string }).name])).toEqual([
      [null, s1],
      [null, s2],
    ]);
    expect(deletes.every((a) => (a.after as { cause: string }).cause === T.cause)).toBe(true);
    expect((await removeSchedule(id)).status).toBe(200);
  });

  it('a failed or refused scheduled take records last_error and the activity log; the next slot tries again', async () => {
    const failing = await created('sched-fail-backup');
    const full = await created('sched-full');
    expect((await setSchedule(failing, { frequency: 'daily', hour: 5, keep: 1 })).status).toBe(200);
    expect((await setSchedule(full, { frequency: 'daily', hour: 5, keep: 1 })).status).toBe(200);
    // The limit is 1 and a manual backup holds it: retention never deletes it, so the take is refused.
    expect((await admin.call(routes.backups.takeBackup, { params: { id: full }, body: { name: 'mine' } })).status).toBe(
      200,
    );
    await waitFor(full, 'Running');
    await until(
      () => backupNames(full),
      (n) => n.join() === 'mine:ready',
      'the manual backup',
    );
    await setLimit(1);

    const slot = slotName(toNextSlot(5));
    const simulated = 'The simulator could not take the backup (simulated permanent failure)';
    const failed = await until(
      async () => (await getSchedule(failing)).data.schedule,
      (s) => s?.lastError === simulated,
      'the failure recorded',
    );
    expect(failed!.lastRunAt).not.toBeNull();
    expect(await backupNames(failing)).toEqual([`${slot}:failed`]);
    const refused = await until(
      async () => (await getSchedule(full)).data.schedule,
      (s) => s?.lastError === BACKUP_TEXT.limit(1),
      'the refusal recorded',
    );
    expect(refused!.lastRunAt).not.toBeNull();
    expect(await backupNames(full)).toEqual(['mine:ready']);
    for (const [id, error] of [
      [failing, simulated],
      [full, BACKUP_TEXT.limit(1)],
    ] as const) {
      const entries = await audits(id, 'vm.backupScheduleFailed');
      expect(entries.map((a) => [a.actorUserId, a.after])).toEqual([[null, { backupName: slot, error }]]);
    }
    // The activity log shows both, by System.
    const log = await admin.call(routes.activity.list, { query: { action: 'vm.backupScheduleFailed' } });
    expect(log.data.data.map((e) => [e.actorKind, e.targetName]).sort()).toEqual([
      ['system', 'sched-fail-backup'],
      ['system', 'sched-full'],
    ]);

    // The next slot tries again: room now, so the take is made and the error cleared once it is ready.
    await setLimit(null);
    const next = slotName(toNextSlot(5));
    await until(
      () => backupNames(full),
      (n) => n.join() === `${next}:ready,mine:ready`,
      'the next slot',
    );
    await until(
      async () => (await getSchedule(full)).data.schedule,
      (s) => s?.lastError === null,
      'the error cleared',
    );
    expect((await removeSchedule(failing)).status).toBe(200);
    expect((await removeSchedule(full)).status).toBe(200);
  });

  it('another company gets 404, a Viewer reads and changes nothing (403)', async () => {
    const viewer = await createUser(t, 1, 'schedule-viewer@example.com');
    const team = await createTeam(t, 1, 'Schedule viewers', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
    const id = await created('sched-team', { teamId: team.id });
    expect((await setSchedule(id, { frequency: 'weekly', weekday: 'friday', hour: 1, keep: 1 })).status).toBe(200);
    const before = (await getSchedule(id)).data.schedule;

    const v = await signIn(t, viewer.email, PASSWORD, true);
    expect((await getSchedule(id, v)).data.schedule).toEqual(before);
    expect((await setSchedule(id, { frequency: 'daily', hour: 2, keep: 1 }, v)).status).toBe(403);
    expect((await removeSchedule(id, v)).status).toBe(403);

    const other = await createOtherCompany(t, 'schedule-boss@other.example');
    const outsider = await signIn(t, other.admin.email, PASSWORD, true);
    for (const res of [
      await getSchedule(id, outsider),
      await setSchedule(id, { frequency: 'daily', hour: 2, keep: 1 }, outsider),
      await removeSchedule(id, outsider),
    ])
      expect([res.status, res.message]).toEqual([404, 'Virtual machine not found']);
    expect((await getSchedule(id)).data.schedule).toEqual(before);

    // A deleted VM's schedule goes at the next pass (VMs are soft-deleted: the foreign key's cascade never fires).
    await t.db.update(virtualMachines).set({ deletedAt: clock.now() }).where(eq(virtualMachines.id, id));
    await until(
      () => scheduleRow(id),
      (r) => r === undefined,
      'the deleted VM’s schedule dropped',
    );
  });

  it('a suspended company’s schedules stop; after a resume the next run is the next slot, without catch-up', async () => {
    const id = await created('sched-suspended');
    const sentinel = await created('sched-sentinel');
    expect((await setSchedule(id, { frequency: 'daily', hour: 7, keep: 3 })).status).toBe(200);
    await t.db.update(companies).set({ suspendedAt: clock.now() }).where(eq(companies.id, 1));

    const first = toNextSlot(7);
    await until(
      () => scheduleRow(id),
      (r) => r!.nextRunAt.getTime() === first.getTime() + DAY,
      'the slot skipped',
    );
    const second = toNextSlot(7);
    await until(
      () => scheduleRow(id),
      (r) => r!.nextRunAt.getTime() === second.getTime() + DAY,
      'skipped again',
    );
    expect((await scheduleRow(id))!.lastRunAt).toBeNull();
    expect(await t.db.select().from(vmBackups).where(eq(vmBackups.vmId, id))).toEqual([]);

    // Resumed mid-morning: the missed slots are not made up. A pass has run since the resume once the sentinel's
    // due slot (set in the past) was taken.
    clock.advance(3 * HOUR);
    await t.db.update(companies).set({ suspendedAt: null }).where(eq(companies.id, 1));
    await admin.call(routes.backupSchedules.setBackupSchedule, {
      params: { id: sentinel },
      body: { frequency: 'daily', hour: 0, keep: 1 },
    });
    await t.db
      .update(vmBackupSchedules)
      .set({ nextRunAt: new Date(clock.now().getTime() - MINUTE) })
      .where(eq(vmBackupSchedules.vmId, sentinel));
    await until(
      () => scheduleRow(sentinel),
      (r) => r!.lastRunAt !== null,
      'a pass after the resume',
    );
    expect(await backupNames(id)).toEqual([]);
    expect((await scheduleRow(id))!.nextRunAt.getTime()).toBe(second.getTime() + DAY);

    const third = toNextSlot(7);
    await until(
      () => backupNames(id),
      (n) => n.join() === `${slotName(third)}:ready`,
      'the next slot after resume',
    );
    await waitFor(sentinel, 'Running');
    expect((await removeSchedule(id)).status).toBe(200);
    expect((await removeSchedule(sentinel)).status).toBe(200);
  });

  it('two processes passing at once take each slot once', async () => {
    const ids = [await created('sched-race-a'), await created('sched-race-b'), await created('sched-race-c')];
    for (const id of ids) expect((await setSchedule(id, { frequency: 'daily', hour: 9, keep: 5 })).status).toBe(200);

    // On api-postgres the second process has its own pool and engine on the same database (not started: the first
    // process's runner, whose simulator holds the machines, runs what either queues); on PGlite it shares the one.
    const pgUrl = inject('pgUrl');
    let bDatabase: Database | null = null;
    if (pgUrl) {
      const url = (t.database.pool!.options as { connectionString: string }).connectionString;
      bDatabase = await openDatabase({ databaseUrl: url, poolSize: 3 });
    }
    const engines: Engine[] = [];
    const processOn = async (database: Database) => {
      const db = database.db;
      const audit = createAudit(db);
      const log = pino({ level: 'silent' });
      const hostAccess = { egress: createEgressPolicy({ allow: t.config.EGRESS_ALLOW }), allowTcp: false };
      const engine = await createEngine({
        config: t.config,
        database,
        clock,
        audit,
        secret: SECRET,
        registry: createProviderRegistry({}, { simulatorStepMs: 20, clock }),
        hostAccess,
        resellerKeys: createResellerKeys({ db, secrets: createSecretBox(SECRET) }),
        log,
      });
      engines.push(engine);
      const deps = { db, access: createAccess(db), engine, audit, clock, log, config: t.config };
      const vms = createVmRepository(db);
      const backupRepo = createBackupRepository(db);
      const unused = { create: () => Promise.reject(new Error('not in this test')) };
      const backups = createBackupService({ ...deps, vms, vmService: unused, repo: backupRepo });
      return createBackupScheduleService({
        ...deps,
        vms,
        backupRepo,
        backups,
        repo: createBackupScheduleRepository(db),
      });
    };
    const a = await processOn(t.database);
    const b = await processOn(bDatabase ?? t.database);
    try {
      // The claim itself: twenty processes' UPDATEs of one slot at once, one wins.
      const repos = [
        createBackupScheduleRepository(t.db),
        createBackupScheduleRepository((bDatabase ?? t.database).db),
      ];
      const row = (await scheduleRow(ids[0]!))!;
      const next = new Date(row.nextRunAt.getTime() + DAY);
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => repos[i % 2]!.claim(row.vmId, row.nextRunAt, next, clock.now())),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      await t.db
        .update(vmBackupSchedules)
        .set({ nextRunAt: row.nextRunAt, lastRunAt: null })
        .where(eq(vmBackupSchedules.vmId, row.vmId));

      // Three slots in a row, each passed by both processes at once (and by the app's own worker).
      for (let round = 0; round < 3; round++) {
        const slot = toNextSlot(9);
        const counts = await Promise.all([a.pass(), b.pass(), a.pass(), b.pass()]);
        expect(counts.reduce((n, c) => n + c.queued + c.failed, 0)).toBeLessThanOrEqual(ids.length);
        for (const id of ids)
          await until(
            () => backupNames(id),
            (n) => n[0] === `${slotName(slot)}:ready`,
            `VM ${id}'s backup of ${slot.toISOString()}`,
          );
        for (const id of ids) await waitFor(id, 'Running');
      }
      for (const id of ids) {
        const names = await backupNames(id);
        expect(names).toHaveLength(3);
        expect(new Set(names).size).toBe(3);
        const taken = await audits(id, 'vm.backup');
        expect(taken).toHaveLength(3);
        expect(await audits(id, 'vm.backupScheduleFailed')).toEqual([]);
      }
      const scheduled = await t.db
        .select()
        .from(vmBackups)
        .where(and(eq(vmBackups.scheduled, true), inArray(vmBackups.vmId, ids)));
      expect(scheduled).toHaveLength(9);
    } finally {
      for (const engine of engines) await engine.stop();
      await bDatabase?.close();
    }
  });
});
