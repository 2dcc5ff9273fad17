/**
 * "Verify now" and re-verification on the operator's schedule (issue 24 item 3; docs/decisions/
 * 0026-verify-now-and-reverification.md) through the real server, runner and verifier on the simulator, on both
 * engines, with the injected clock:
 * - Verify now queues the backup's verification again (200, audited with its caller; the VM untouched), the backup
 *   shows `verifying` while it runs and a second ask is 409; another company's caller gets 404 by either route;
 *   a backup not ready yet is 409, a suspended company's users are refused;
 * - the verifier's pass re-queues only backups whose last proof is older than BACKUP_REVERIFY_DAYS (not a fresher
 *   one, not one whose verification failed), none of a suspended company's, never more than BACKUP_REVERIFY_BATCH due
 *   at once; a re-verification that now fails clears verifiedAt, says why, is audited and mailed.
 * A VM named …slow-verify… takes 150 simulator steps (3 s here) to verify, so a verification is seen under way.
 */
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, users, vmBackups } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, PASSWORD } from '../../../test/fixtures.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { until } from '../../../test/until.ts';

const DAY = 86_400_000;
const clock = manualClock(new Date('2026-11-26T01:00:00Z'));

let t: TestApp;
let admin: TestClient;
let other: TestClient;
let adminId: number;
let companyId: number;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: {
      SIMULATOR_STEP_MS: '20',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      BACKUP_VERIFY: 'after-take',
      BACKUP_VERIFY_INTERVAL_MS: '50',
      BACKUP_REVERIFY_DAYS: '30',
      BACKUP_REVERIFY_BATCH: '1',
    },
  });
  t.portal.startWorkers();
  admin = await signIn(t, ADMIN.email, ADMIN.password, true);
  const [me] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  [adminId, companyId] = [me!.id, me!.companyId];
  const o = await createOtherCompany(t, 'boss@reverify.example');
  other = await signIn(t, o.admin.email, PASSWORD);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t?.close();
});

async function created(name: string) {
  const res = await admin.call(routes.vms.create, { body: catalog.createBody(name) });
  expect(res.status, res.message).toBe(200);
  const id = res.data.ids[0]!;
  await until(
    `VM ${id} running`,
    async () => (await admin.call(routes.vms.details, { params: { id } })).data,
    (d) => d.status === 'Running' && d.pendingOperation === null,
  );
  return id;
}
async function takeBackup(id: number, name: string) {
  const res = await admin.call(routes.backups.takeBackup, { params: { id }, body: { name } });
  expect(res.status, res.message).toBe(200);
  return res.data.id;
}
const backupOf = async (vmId: number, backupId: number) =>
  (await admin.call(routes.backups.listBackups, { params: { id: vmId } })).data.backups.find((b) => b.id === backupId)!;
/** The backup once no verification of it is queued or running (as the API shows it). */
const settled = (vmId: number, backupId: number) =>
  until(
    `backup ${backupId} verified`,
    () => backupOf(vmId, backupId),
    (b) => b.state === 'ready' && !b.verifying && (b.verifiedAt !== null || b.verificationError !== null),
  );
const row = async (id: number) => (await t.db.select().from(vmBackups).where(eq(vmBackups.id, id)))[0]!;
const verifyAudits = (backupId: number) =>
  t.db
    .select()
    .from(auditLog)
    .where(eq(auditLog.action, 'vm.backupVerify'))
    .orderBy(asc(auditLog.id))
    .then((rows) => rows.filter((r) => (r.after as { backupId?: number }).backupId === backupId));

describe('Verify now', () => {
  it('queues the verification again: verifying while it runs, 409 for a second ask, 404 for another company, audited', async () => {
    const id = await created('verify-now-slow-verify');
    const backupId = await takeBackup(id, 'proven');
    const first = await settled(id, backupId);
    expect(first).toMatchObject({ verificationError: null, verifying: false });
    clock.advance(60_000);

    // Another company's administrator: not found by either route, nothing queued.
    const theirs = await other.call(routes.backups.verifyBackup, { params: { id, backupId } });
    expect([theirs.status, theirs.message]).toEqual([404, 'Virtual machine not found']);
    const byId = await other.call(routes.backups.verifyKeptBackup, { params: { backupId } });
    expect([byId.status, byId.message]).toEqual([404, BACKUP_TEXT.notFound]);
    expect((await row(backupId)).verifyAfter).toBeNull();
    // Our VM with a backup id that is not its: 404 too.
    const wrong = await admin.call(routes.backups.verifyBackup, { params: { id, backupId: backupId + 1000 } });
    expect([wrong.status, wrong.message]).toEqual([404, BACKUP_TEXT.notFound]);

    const res = await admin.call(routes.backups.verifyBackup, { params: { id, backupId } });
    expect([res.status, res.message, res.data]).toEqual([200, BACKUP_ACTIONS.backupVerify.accepted, null]);
    // Under way (the slow copy takes 3 s to prove): shown, the last outcome kept beside it; a second ask is refused.
    const running = await backupOf(id, backupId);
    expect(running).toMatchObject({ verifying: true, verifiedAt: first.verifiedAt });
    const again = await admin.call(routes.backups.verifyBackup, { params: { id, backupId } });
    expect([again.status, again.message]).toEqual([409, BACKUP_TEXT.alreadyVerifying]);
    const againById = await admin.call(routes.backups.verifyKeptBackup, { params: { backupId } });
    expect([againById.status, againById.message]).toEqual([409, BACKUP_TEXT.alreadyVerifying]);

    const proven = await settled(id, backupId);
    expect(Date.parse(proven.verifiedAt!)).toBe(Date.parse(first.verifiedAt!) + 60_000);
    // The VM was not touched: Running, no operation of its own for the verification.
    const d = (await admin.call(routes.vms.details, { params: { id } })).data;
    expect([d.status, d.pendingOperation]).toEqual(['Running', null]);
    // Audited once, as its caller (the refused asks left nothing).
    const audits = await verifyAudits(backupId);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ companyId, actorUserId: adminId, targetType: 'vm', targetId: String(id) });
    expect(audits[0]!.after).toMatchObject({ backupId, name: 'proven' });

    // By the backup's id (the company's Backups screen): the same.
    const viaList = await admin.call(routes.backups.verifyKeptBackup, { params: { backupId } });
    expect([viaList.status, viaList.message]).toEqual([200, BACKUP_ACTIONS.backupVerify.accepted]);
    await settled(id, backupId);
    expect(await verifyAudits(backupId)).toHaveLength(2);
  });

  it('is refused while the backup is not ready (409), and for a suspended company', async () => {
    const id = await created('verify-slow-backup');
    const backupId = await takeBackup(id, 'not yet');
    const res = await admin.call(routes.backups.verifyBackup, { params: { id, backupId } });
    expect(res.status).toBe(409);
    expect(res.message).toMatch(/^The backup cannot be used while it is (queued|creating)$/);
    expect(await verifyAudits(backupId)).toHaveLength(0);
    await settled(id, backupId);
    // Its company suspended: its users' sessions no longer answer (401; the service's own 403, as for takes, guards
    // any other way in), nothing queued.
    await t.db.update(companies).set({ suspendedAt: clock.now() }).where(eq(companies.id, companyId));
    const suspended = await admin.call(routes.backups.verifyBackup, { params: { id, backupId } });
    await t.db.update(companies).set({ suspendedAt: null }).where(eq(companies.id, companyId));
    expect([suspended.status, suspended.message]).toEqual([401, 'Not authenticated']);
    expect((await row(backupId)).verifyAfter).toBeNull();
    expect(await verifyAudits(backupId)).toHaveLength(0);
  });
});

describe('re-verification on the operator’s schedule', () => {
  it('re-queues only stale proofs, one at a time, never a suspended company’s; a failure now is shown and mailed', async () => {
    const oldId = await created('reverify-old');
    const old = await takeBackup(oldId, 'old');
    await settled(oldId, old);
    // A backup proven before whose copy no longer boots (the simulator fails a fail-verify VM's proofs): its first
    // proof is set as passed, as it was before the copy went bad.
    const badId = await created('reverify-fail-verify');
    const bad = await takeBackup(badId, 'went bad');
    await settled(badId, bad);
    await t.db.update(vmBackups).set({ verifiedAt: clock.now(), verificationError: null }).where(eq(vmBackups.id, bad));
    // One whose verification failed: left as it is by the schedule.
    const failedId = await created('reverify-failed-fail-verify');
    const failed = await takeBackup(failedId, 'failed');
    expect((await settled(failedId, failed)).verificationError).toMatch(/did not boot/);

    // 20 days on, a fresh one: 11 days old when the others are 31.
    clock.advance(20 * DAY);
    const freshId = await created('reverify-fresh');
    const fresh = await takeBackup(freshId, 'fresh');
    const freshProof = (await settled(freshId, fresh)).verifiedAt;
    clock.advance(11 * DAY);

    // Suspended: nothing of the company is queued.
    await t.db.update(companies).set({ suspendedAt: clock.now() }).where(eq(companies.id, companyId));
    await new Promise((r) => setTimeout(r, 500));
    expect(await t.db.select().from(vmBackups).where(isNotNull(vmBackups.verifyAfter))).toEqual([]);
    await t.db.update(companies).set({ suspendedAt: null }).where(eq(companies.id, companyId));

    // Every backup of the company proven before the cutoff: this test's old ones and the earlier tests'.
    const cutoff = clock.now().getTime() - 30 * DAY;
    const all = await t.db.select().from(vmBackups).where(eq(vmBackups.companyId, companyId));
    const stale = all.filter((b) => b.verifiedAt !== null && b.verifiedAt.getTime() < cutoff).map((b) => b.id);
    expect(stale).toEqual(expect.arrayContaining([old, bad]));
    expect(stale).not.toContain(fresh);
    expect(stale).not.toContain(failed);

    // The passes work through them with at most BACKUP_REVERIFY_BATCH (1) due at once.
    let most = 0;
    const rows = await until(
      'the stale backups re-verified',
      async () => {
        const now = await t.db.select().from(vmBackups).where(eq(vmBackups.companyId, companyId));
        most = Math.max(most, now.filter((b) => b.verifyAfter !== null).length);
        return now;
      },
      (now) =>
        stale.every((id) => {
          const b = now.find((x) => x.id === id)!;
          return b.verifyAfter === null && (b.verificationError !== null || b.verifiedAt!.getTime() > cutoff);
        }),
    );
    expect(most).toBeLessThanOrEqual(1);
    const byId = (id: number) => rows.find((b) => b.id === id)!;
    expect(byId(old)).toMatchObject({ verifiedAt: clock.now(), verificationError: null });
    // Not stale, or failed: left alone.
    expect(byId(fresh).verifiedAt).toEqual(new Date(freshProof!));
    expect(byId(failed)).toMatchObject({ verifiedAt: null, verifyAfter: null, verifyAttempts: 1 });
    // The copy that went bad: never shown as good again, why said, audited, mailed (a team-less VM: the company
    // administrators).
    expect(byId(bad).verifiedAt).toBeNull();
    expect(byId(bad).verificationError).toMatch(/did not boot/);
    const failures = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'vm.backupVerify.failed'), eq(auditLog.targetId, String(badId))));
    // The take's first verification (before the test set it as passed) and the re-verification.
    expect(failures).toHaveLength(2);
    expect(failures[1]!.after).toMatchObject({ backupId: bad, reason: byId(bad).verificationError });
    await until(
      'the re-verification’s mail',
      async () => t.smtp.messages.filter((m) => m.to.includes(ADMIN.email) && /“went bad”/.test(m.subject)).length,
      (n) => n === 2,
    );
  });
});

describe('a backup merged into', () => {
  it('is proven again when its base is deleted (its stored file is new), its last proof shown meanwhile', async () => {
    admin = await signIn(t, ADMIN.email, ADMIN.password, true); // the schedule's test moved the clock weeks on
    const id = await created('merge-proof');
    const base = await takeBackup(id, 'base');
    await settled(id, base);
    const child = await takeBackup(id, 'child');
    const before = await settled(id, child);
    expect(before).toMatchObject({ incremental: true, verificationError: null });
    clock.advance(60_000);

    const res = await admin.call(routes.backups.deleteBackup, { params: { id, backupId: base } });
    expect(res.status, res.message).toBe(200);
    // Merged (a whole copy now), queued for its proof: the last one still shown beside it.
    const merged = await backupOf(id, child);
    expect(merged).toMatchObject({ incremental: false, verifiedAt: before.verifiedAt });
    const proven = await settled(id, child);
    expect(proven.verificationError).toBeNull();
    expect(Date.parse(proven.verifiedAt!)).toBe(Date.parse(before.verifiedAt!) + 60_000);
  });
});
