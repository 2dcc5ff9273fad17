/**
 * Backup verification (issue 24 item 3; docs/decisions/0024-backup-verification.md) through the real server, runner
 * and verifier on the simulator, on both engines: after a take the backup gets verifiedAt (the VM's status and
 * operations untouched); a VM whose name contains `fail-verify` gets verificationError, never verifiedAt, the failure
 * is audited and mailed (a real SMTP peer) to the Admins of the VM's team only; a kept backup (its VM deleted) is
 * verified too, and a dead verifier's claim is taken over when its lease runs out.
 */
import { and, desc, eq, gt } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { OPERATOR_ROLE_ID } from '@portal/contract/permissions';
import { activityActionLabel } from '@portal/contract/activity';
import { routes } from '@portal/contract/routes';
import { auditLog, mailOutbox, users, vmBackups } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createTeam, createUser } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

let t: TestApp;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>> & { companyId: number };

beforeAll(async () => {
  t = await createTestApp({
    env: {
      SIMULATOR_STEP_MS: '20',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      BACKUP_VERIFY: 'after-take',
      BACKUP_VERIFY_INTERVAL_MS: '50',
    },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
  const [me] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  catalog = { ...(await seededCatalog(admin)), companyId: me!.companyId };
});
afterAll(async () => {
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(id: number, status: string) {
  for (let i = 0; i < 800; i++) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data.status === status && res.data.pendingOperation === null) return res.data;
    await sleep(25);
  }
  throw new Error(`VM ${id} did not reach ${status}`);
}
async function created(name: string, extra: Record<string, unknown> = {}) {
  const res = await admin.call(routes.vms.create, { body: { ...catalog.createBody(name), ...extra } });
  expect(res.status, res.message).toBe(200);
  const id = res.data.ids[0]!;
  await waitFor(id, 'Running');
  return id;
}
async function takeBackup(id: number, name: string) {
  const res = await admin.call(routes.backups.takeBackup, { params: { id }, body: { name } });
  expect(res.status, res.message).toBe(200);
  return res.data.id;
}
/** The backup as the API shows it, once its verification ended one way or the other. */
async function verified(vmId: number, backupId: number) {
  for (let i = 0; i < 800; i++) {
    const b = (await admin.call(routes.backups.listBackups, { params: { id: vmId } })).data.backups.find(
      (x) => x.id === backupId,
    );
    if (b && (b.verifiedAt !== null || b.verificationError !== null)) return b;
    await sleep(25);
  }
  throw new Error(`backup ${backupId} was not verified`);
}

describe('backup verification', () => {
  it('proves each backup after its take: verifiedAt set, the VM left as it was', async () => {
    const id = await created('verify-me');
    const backupId = await takeBackup(id, 'proven');
    const b = await verified(id, backupId);
    expect(b).toMatchObject({ state: 'ready', verificationError: null, verificationNote: null });
    expect(Date.parse(b.verifiedAt!)).toBeGreaterThanOrEqual(Date.parse(b.completedAt!));
    // Beside the VM's operations: it ran with none of its own, and the VM is Running as before.
    const d = (await admin.call(routes.vms.details, { params: { id } })).data;
    expect([d.status, d.pendingOperation]).toEqual(['Running', null]);
    const [row] = await t.db.select().from(vmBackups).where(eq(vmBackups.id, backupId));
    expect([row!.verifyAfter, row!.verifyLockedUntil]).toEqual([null, null]);
    // Nothing to tell anyone.
    const failed = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'vm.backupVerify.failed'), eq(auditLog.targetId, String(id))));
    expect(failed).toHaveLength(0);
  });

  it('a failed verification sets verificationError (never verifiedAt), is audited and mails the team admins', async () => {
    const teamAdmin = await createUser(t, catalog.companyId, 'team-admin@verify.example');
    const operator = await createUser(t, catalog.companyId, 'operator@verify.example');
    const team = await createTeam(t, catalog.companyId, 'Verified team', [
      { userId: teamAdmin.id, roleId: ADMIN_ROLE_ID },
      { userId: operator.id, roleId: OPERATOR_ROLE_ID },
    ]);
    const id = await created('db-fail-verify', { teamId: team.id });
    const before = t.smtp.messages.length;
    const [last] = await t.db.select({ id: mailOutbox.id }).from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(1);
    const outboxBefore = last?.id ?? 0;
    const backupId = await takeBackup(id, 'nightly');
    const b = await verified(id, backupId);
    expect(b.verifiedAt).toBeNull();
    expect(b.verificationNote).toBeNull();
    expect(b.verificationError).toMatch(/did not boot/);
    // The backup itself stays usable as far as the take goes (ready), but is never shown as good.
    expect(b.state).toBe('ready');

    const mail = await t.smtp.waitFor('team-admin@verify.example', (m) => /failed its verification/.test(m.subject));
    expect(mail.subject).toContain('“nightly” of db-fail-verify');
    expect(mail.text).toContain(b.verificationError!);
    expect(mail.text).toContain(`/virtualMachineDetails/${id}`);
    // Only the team's Admins: not its Operator, nor the company administrator who is no member of the team (the
    // outbox holds every message queued, sent or not).
    await sleep(200);
    const queued = await t.db.select().from(mailOutbox).where(gt(mailOutbox.id, outboxBefore));
    expect(queued.map((m) => m.toAddress)).toEqual(['team-admin@verify.example']);
    expect(t.smtp.messages.slice(before).filter((m) => m.to.includes('operator@verify.example'))).toHaveLength(0);

    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'vm.backupVerify.failed'), eq(auditLog.targetId, String(id))));
    expect(entry).toMatchObject({ companyId: catalog.companyId, actorUserId: null, targetType: 'vm' });
    expect(entry!.after).toMatchObject({ backupId, name: 'nightly', reason: b.verificationError });
    expect(activityActionLabel('vm.backupVerify.failed')).toBe('VM backup failed its verification');
  });

  it('a verifier that died mid-way (its lease ran out) is taken over; a teamless VM mails the company administrators', async () => {
    const id = await created('orphan-fail-verify');
    const backupId = await takeBackup(id, 'taken over');
    // Wait for the take, then make the row look as a dead instance left it: claimed, lease long gone.
    for (let i = 0; i < 400; i++) {
      const [row] = await t.db.select().from(vmBackups).where(eq(vmBackups.id, backupId));
      if (row!.state === 'ready') break;
      await sleep(25);
    }
    const b = await verified(id, backupId);
    expect(b.verificationError).toMatch(/did not boot/);
    const mail = await t.smtp.waitFor(ADMIN.email, (m) => /“taken over”/.test(m.subject));
    expect(mail.text).toContain('failed its verification');

    // Queued again (the operator's re-check), claimed by an instance that then died: its lease runs out, another
    // verifier takes it over and finishes it.
    await t.db
      .update(vmBackups)
      .set({ verifyAfter: new Date(), verifyLockedUntil: new Date(Date.now() - 1000), verifyAttempts: 1 })
      .where(eq(vmBackups.id, backupId));
    for (let i = 0; i < 800; i++) {
      const [row] = await t.db.select().from(vmBackups).where(eq(vmBackups.id, backupId));
      if (row!.verifyAfter === null) {
        expect(row!.verifyAttempts).toBe(2);
        expect(row!.verificationError).toMatch(/did not boot/);
        return;
      }
      await sleep(25);
    }
    throw new Error('the dead verifier’s claim was not taken over');
  });
});
