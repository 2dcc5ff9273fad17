/**
 * Backup verification (issue 24 item 3; docs/decisions/0024-backup-verification.md): every backup proven restorable
 * after its take. A job on the backup's own row, beside the VM's operations (it never holds the VM's slot, and a
 * backup kept after its VM was deleted has no VM to hold one): the runner's take step marks the row due
 * (`verify_after`); this worker claims one due row at a time under a lease (FOR UPDATE SKIP LOCKED, so several API
 * instances share the work; a dead instance's claim is taken over when its lease runs out), asks the backup's driver
 * to prove it (`backupProve`: the stored copy's checksum, then a throwaway machine booted from it in isolation that
 * shows the marker of its take), and writes what it found. A failed verification clears `verified_at` (a backup is
 * never shown as good once a verification failed), is audited (`vm.backupVerify.failed`) and mails the VM's team
 * admins (the company administrators when the team has none).
 *
 * Re-verification (decision 0026): each pass first queues again, oldest first, the ready backups of unsuspended
 * companies whose last successful verification (never verified: their take) is older than BACKUP_REVERIFY_DAYS, at
 * most BACKUP_REVERIFY_BATCH due at once; a backup whose verification failed is left as it is (its team was told,
 * "Verify now" asks again). "Verify now" (backups.service) queues one the same way: `verify_after` set only where none
 * is queued or running, so a backup is never verified twice at once.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { companies, providers, teamMembers, users, virtualMachines, vmBackups } from '../../db/schema.ts';
import { createPeriodic } from '../../engine/periodic.ts';
import { portalLink } from '../../mail/portal-links.ts';
import { senderOf } from '../../mail/sender.ts';
import { backupVerificationFailedMail } from '../../mail/templates.ts';
import type { BackupProof, ProviderDriver } from '../../providers/provider.ts';
import type { ModuleDeps, Worker } from '../module.ts';

type BackupRow = typeof vmBackups.$inferSelect;

/** After this many claims that never finished (the verifier died each time), the verification is given up as failed. */
const MAX_ATTEMPTS = 3;

/** What a driver without `backupProve` can prove: the stored copy's checksum alone (backupVerify), said so. */
async function proveWith(driver: ProviderDriver, name: string): Promise<BackupProof> {
  if (driver.backupProve) return driver.backupProve(name);
  if (driver.backupVerify) {
    const error = await driver.backupVerify(name);
    return {
      error,
      note: error ? null : `The stored copy reads back whole; the ${driver.kind} driver cannot boot a copy to check it`,
    };
  }
  return { error: null, note: `The ${driver.kind} driver cannot verify backups` };
}

export type BackupVerifier = Worker & {
  /** One look for due verifications, each run to its end (tests, and the timer). */
  pass(): Promise<void>;
};

export function createBackupVerifier(
  deps: Pick<
    ModuleDeps,
    'db' | 'clock' | 'config' | 'engine' | 'audit' | 'mailer' | 'identity' | 'portalUrl' | 'defaultFrom' | 'log'
  >,
): BackupVerifier {
  const { db, clock, engine, log } = deps;
  const leaseMs = deps.config.BACKUP_VERIFY_LEASE_MS;
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

  /** The oldest due verification no live verifier holds, claimed under a lease (null: none due). */
  async function claim(): Promise<BackupRow | null> {
    const now = clock.now();
    const [row] = await db
      .update(vmBackups)
      .set({
        verifyLockedUntil: new Date(now.getTime() + leaseMs),
        verifyAttempts: sql`${vmBackups.verifyAttempts} + 1`,
      })
      .where(
        eq(
          vmBackups.id,
          sql`(select id from vm_backups
            where verify_after is not null and verify_after <= ${at(now)} and state in ('ready', 'restoring')
              and (verify_locked_until is null or verify_locked_until < ${at(now)})
            order by verify_after, id limit 1 for update skip locked)`,
        ),
      )
      .returning();
    return row ?? null;
  }

  /** Writes the outcome if this claim still holds the row (its lease may have been taken over); answers whether it did. */
  async function record(row: BackupRow, proof: BackupProof): Promise<boolean> {
    const held = and(
      eq(vmBackups.id, row.id),
      eq(vmBackups.verifyAttempts, row.verifyAttempts),
      sql`${vmBackups.verifyAfter} is not null`,
    );
    return db.transaction(async (tx) => {
      const done = await tx
        .update(vmBackups)
        .set({
          verifiedAt: proof.error ? null : clock.now(),
          verificationError: proof.error,
          verificationNote: proof.error ? null : proof.note,
          verifyAfter: null,
          verifyLockedUntil: null,
        })
        .where(held)
        .returning({ id: vmBackups.id });
      if (done.length !== 1) return false;
      if (proof.error)
        await deps.audit.record(
          {
            companyId: row.companyId,
            actorUserId: null,
            action: 'vm.backupVerify.failed',
            targetType: 'vm',
            targetId: row.vmId,
            before: { name: row.vmName },
            after: { backupId: row.id, name: row.name, providerName: row.providerName, reason: proof.error },
          },
          tx,
        );
      return true;
    });
  }

  /**
   * Who hears of a failed verification: the Admins of the VM's team (its team now, or the one it had at the take once
   * it is gone); the company's administrators when there is no team or it has no Admin.
   */
  async function recipients(row: BackupRow): Promise<{ id: number; email: string }[]> {
    const vm =
      row.vmId === null
        ? null
        : ((
            await db
              .select({ teamId: virtualMachines.teamId })
              .from(virtualMachines)
              .where(eq(virtualMachines.id, row.vmId))
          )[0] ?? null);
    const teamId = vm ? vm.teamId : row.teamId;
    if (teamId !== null) {
      const admins = await db
        .select({ id: users.id, email: users.email })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(
          and(
            eq(teamMembers.teamId, teamId),
            eq(teamMembers.roleId, ADMIN_ROLE_ID),
            eq(users.companyId, row.companyId),
          ),
        )
        .orderBy(asc(users.id));
      if (admins.length > 0) return admins;
    }
    return db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(and(eq(users.companyId, row.companyId), eq(users.isCompanyAdmin, true)))
      .orderBy(asc(users.id));
  }

  async function notify(row: BackupRow, reason: string) {
    for (const to of await recipients(row)) {
      const user = await deps.identity.byId(to.id);
      if (!user) continue;
      const link = portalLink(
        deps.portalUrl,
        user.portalHost ?? null,
        row.vmId === null ? '/backups' : `/virtualMachineDetails/${row.vmId}`,
        {},
      );
      const takenAt = `${(row.completedAt ?? row.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      await deps.mailer.enqueue({
        to: to.email,
        from: senderOf(user, deps.defaultFrom),
        ...backupVerificationFailedMail(user.resellerName ?? 'Portal', {
          backupName: row.name,
          vmName: row.vmName,
          takenAt,
          reason,
          link,
        }),
      });
    }
  }

  async function verify(row: BackupRow) {
    let proof: BackupProof;
    if (row.verifyAttempts > MAX_ATTEMPTS) {
      proof = { error: `The verification did not finish in ${MAX_ATTEMPTS} attempts`, note: null };
    } else {
      try {
        const [provider] = await db.select().from(providers).where(eq(providers.id, row.providerId)).limit(1);
        const host = row.hostId === null ? null : await engine.hostsRepository.byId(row.hostId);
        if (!provider) throw new Error('The backup’s provider no longer exists');
        proof = await proveWith(engine.registry.driverFor(provider, host), row.providerName);
      } catch (err) {
        // The host did not answer, or the driver could not run the check: nothing was proven either way. Tried again
        // later (a minute per attempt so far); after MAX_ATTEMPTS it fails, saying why.
        const why = err instanceof Error ? err.message : String(err);
        if (row.verifyAttempts < MAX_ATTEMPTS) {
          log.warn({ backupId: row.id, err }, 'backup verification could not run; it will be tried again');
          await db
            .update(vmBackups)
            .set({
              verifyAfter: new Date(clock.now().getTime() + 60_000 * row.verifyAttempts),
              verifyLockedUntil: null,
            })
            .where(and(eq(vmBackups.id, row.id), eq(vmBackups.verifyAttempts, row.verifyAttempts)));
          return;
        }
        proof = { error: `The verification could not run: ${why}`, note: null };
      }
    }
    if (!(await record(row, proof))) return;
    if (proof.error) {
      log.warn({ backupId: row.id, reason: proof.error }, 'backup verification failed');
      await notify(row, proof.error).catch((err: unknown) =>
        log.error({ err, backupId: row.id }, 'could not mail the failed backup verification'),
      );
    } else log.info({ backupId: row.id, note: proof.note }, 'backup verified');
  }

  /**
   * Queues again the backups whose last proof is older than BACKUP_REVERIFY_DAYS (decision 0026): ready, none queued
   * or running, no failed verification, the company not suspended; oldest proof first, so that at most
   * BACKUP_REVERIFY_BATCH are due at once (what a take or "Verify now" queued counts too). Answers how many.
   */
  async function requeueStale(): Promise<number> {
    const days = deps.config.BACKUP_REVERIFY_DAYS;
    if (days === 0 || deps.config.BACKUP_VERIFY === 'off') return 0;
    const [due] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(vmBackups)
      .where(sql`${vmBackups.verifyAfter} is not null`);
    const room = deps.config.BACKUP_REVERIFY_BATCH - (due?.n ?? 0);
    if (room <= 0) return 0;
    const now = clock.now();
    const cutoff = new Date(now.getTime() - days * 86_400_000);
    const lastProof = sql`coalesce(${vmBackups.verifiedAt}, ${vmBackups.completedAt}, ${vmBackups.createdAt})`;
    // Picked, then queued, in one transaction (an `IN (subquery LIMIT n FOR UPDATE SKIP LOCKED)` may be evaluated
    // more than once by the planner and queue more than n).
    const queued = await db.transaction(async (tx) => {
      const stale = await tx
        .select({ id: vmBackups.id })
        .from(vmBackups)
        .innerJoin(companies, eq(companies.id, vmBackups.companyId))
        .where(
          and(
            eq(vmBackups.state, 'ready'),
            isNull(vmBackups.verifyAfter),
            isNull(vmBackups.verificationError),
            isNull(companies.suspendedAt),
            sql`${lastProof} < ${at(cutoff)}`,
          ),
        )
        .orderBy(lastProof, vmBackups.id)
        .limit(room)
        .for('update', { of: vmBackups, skipLocked: true });
      if (stale.length === 0) return [];
      return (
        tx
          .update(vmBackups)
          .set({ verifyAfter: now, verifyAttempts: 0, verifyLockedUntil: null })
          // verify_after still null: a take's end or a Verify now that queued it meanwhile is left as it is.
          .where(
            and(
              inArray(
                vmBackups.id,
                stale.map((r) => r.id),
              ),
              isNull(vmBackups.verifyAfter),
            ),
          )
          .returning({ id: vmBackups.id })
      );
    });
    if (queued.length > 0) log.info({ backupIds: queued.map((r) => r.id), days }, 'backups queued for re-verification');
    return queued.length;
  }

  async function pass() {
    await requeueStale();
    // One at a time per instance: a verification boots a machine (decision 0024).
    for (;;) {
      const row = await claim();
      if (!row) return;
      await verify(row);
    }
  }

  const periodic = createPeriodic(pass, {
    intervalMs: deps.config.BACKUP_VERIFY_INTERVAL_MS,
    log,
    what: 'backup verification pass',
  });
  return {
    pass: () => periodic.pass(),
    start: () => {
      if (deps.config.BACKUP_VERIFY !== 'off') periodic.start();
    },
    stop: () => periodic.stop(),
  };
}
