/**
 * VM backups (issue 24 item 2; docs/decisions/0021-backups.md): list, take, restore in place, restore as a new VM,
 * delete, and the company's list (backups kept after their VM was deleted). A take and a restore in place are
 * operations of the lifecycle table (vm-lifecycle.ts: BACKUP_ACTIONS, OPERATIONS); a take keeps the VM's status (a
 * running VM stays Running), a restore shows Restoring. Backups live outside the VM's disk chain and can outlive it.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, route, timestampSchema } from './common.ts';
import { BACKUPS } from './constants.ts';
import { BACKUP_CONSISTENCIES } from './backup-consistency.ts';
import { vmNameSchema } from './validation.ts';

/**
 * 'queued': the take waits its turn (a few at a time per host, decision 0025); 'creating': it is being copied; 'failed'
 * also when it was interrupted (its API process died) or its host stopped answering: never shown complete.
 */
export const BACKUP_STATES = ['queued', 'creating', 'ready', 'restoring', 'deleting', 'failed'] as const;
export type BackupState = (typeof BACKUP_STATES)[number];

export const BACKUP_NAME_RULE = `Backup name must be 1 to ${BACKUPS.nameMax} characters: letters, digits, spaces, dots, colons, dashes and underscores`;
/** A backup's name as the customer gives it; the driver's own name for it is the portal's (never this text). */
export const backupNameSchema = z
  .string({ error: BACKUP_NAME_RULE })
  .trim()
  .min(1, BACKUP_NAME_RULE)
  .max(BACKUPS.nameMax, BACKUP_NAME_RULE)
  .regex(/^[\p{L}\p{N} .:_-]+$/u, BACKUP_NAME_RULE);

/** The name a backup taken without one gets: "Backup 2026-11-26 07:10" (UTC). */
export function defaultBackupName(at: Date): string {
  return `Backup ${at.toISOString().slice(0, 16).replace('T', ' ')}`;
}

export const backupSchema = z.object({
  id: z.number().int(),
  /** The VM it was taken of; null once that VM was deleted with its backups kept. */
  vmId: z.number().int().nullable(),
  /** The VM's name when the backup was taken. */
  vmName: z.string(),
  name: z.string(),
  state: z.enum(BACKUP_STATES),
  /** Bytes the backup holds on the backup target; null until taken (or when the driver cannot tell). */
  sizeBytes: z.number().int().nullable(),
  /** Holds only what changed since the backup before it. */
  incremental: z.boolean(),
  /**
   * 'application-consistent': the guest's file systems were frozen through its agent at the copy's instant;
   * 'crash-consistent': as a power cut at that instant; null while it is taken, or when it failed (decision 0028).
   */
  consistency: z.enum(BACKUP_CONSISTENCIES).nullable(),
  /** The VM's image and size when it was taken (a restore as a new VM gets them). */
  image: z.string(),
  configurationId: z.number().int(),
  cpu: z.number().int(),
  ram: z.number().int(),
  disk: z.number().int(),
  createdAt: timestampSchema,
  /** When the take finished; null while it runs or when it failed. */
  completedAt: timestampSchema.nullable(),
  /** When the stored copy was last proven good; null: not yet verified. */
  verifiedAt: timestampSchema.nullable(),
  /** Why the last verification failed; null: it did not. */
  verificationError: z.string().nullable(),
  /**
   * What the last successful verification could not check (e.g. a guest without an agent: the copy's checksum held
   * and it booted, but no marker was read); null: everything was (docs/decisions/0024-backup-verification.md).
   */
  verificationNote: z.string().nullable(),
  /**
   * A verification is queued or running (after the take, a "Verify now", or the operator's re-verification schedule:
   * docs/decisions/0026-verify-now-and-reverification.md); the fields above still tell the last one's outcome.
   */
  verifying: z.boolean(),
  /** Why a take failed (state 'failed'), or why the last restore or delete of it failed. */
  error: z.string().nullable(),
});
export type Backup = z.infer<typeof backupSchema>;

export const backupListSchema = z.object({
  backups: z.array(backupSchema),
  /** How many the VM may keep (its reseller's catalog for its size, or BACKUPS.defaultPerVm). */
  limit: z.number().int(),
});

/** What the portal says about backups (issue 24 item 2): the API's messages and the VM page's Backups card. */
export const BACKUP_TEXT = {
  title: 'Backups',
  empty: 'No backups yet.',
  nameLabel: 'Backup name (optional)',
  limit: (max: number) =>
    max === 0
      ? "Backups are not offered for this VM's size."
      : `A VM can keep at most ${max} backups. Delete one to take another.`,
  notFound: 'Backup not found',
  notReady: (state: string) => `The backup cannot be used while it is ${state}`,
  otherSize:
    'The VM was upgraded after this backup was taken: restoring it in place would not fit its size. Restore it as a new VM instead.',
  notSupported: "This VM's provider does not keep backups.",
  restoreTitle: 'Restore backup',
  restoreText: (name: string) =>
    `Are you sure you want to restore the VM from the backup “${name}”? Everything written to its disk since the backup was taken is lost. The VM is powered off for the restore and started again if it was running.`,
  restoreAsNewTitle: 'Restore as a new VM',
  deleteTitle: 'Delete backup',
  deleteText: (name: string) => `Are you sure you want to delete the backup “${name}”? It cannot be undone.`,
  taken: 'Backup is being taken',
  restoring: 'VM is being restored from the backup',
  restoringAsNew: 'A new VM is being created from the backup',
  deleted: 'Backup deleted',
  // Failure and concurrency (issue 24 item 5; docs/decisions/0025-backup-concurrency.md).
  takeBusy: 'A backup of this virtual machine is already queued or being taken. Wait for it to finish.',
  interrupted:
    'Interrupted: the portal stopped while the backup was being taken, so it was not completed. Take another one.',
  hostDown: (host: string, why: string) =>
    `Host ${host} stopped answering during the backup, so it was not completed (${why}). Take another one when the host is back.`,
  removedBeforeStart: 'The backup was removed before its turn came.',
  // Verify now (issue 24 item 3; docs/decisions/0026-verify-now-and-reverification.md).
  alreadyVerifying: 'This backup is already being verified. Wait for the verification to finish.',
  verifyOff: 'Backup verification is turned off on this portal.',
} as const;

const base = { tag: 'Virtual Machines', access: 'user' } as const;
const P = '/virtualMachines';
const backupParamsSchema = z.object({ id: idSchema, backupId: idSchema });

export const backupRoutes = {
  listBackups: route({
    ...base,
    method: 'GET',
    path: `${P}/listBackups/:id`,
    summary: "A VM's backups, newest first, and how many it may keep",
    params: idParamsSchema,
    data: backupListSchema,
  }),
  takeBackup: route({
    ...base,
    method: 'POST',
    path: `${P}/takeBackup/:id`,
    summary: 'Take a backup of a VM (running or powered off; a running VM keeps running)',
    params: idParamsSchema,
    body: z.object({ name: backupNameSchema.optional() }).strict().optional(),
    data: z.object({ id: z.number().int() }),
  }),
  restoreBackup: route({
    ...base,
    method: 'POST',
    path: `${P}/restoreBackup/:id/:backupId`,
    summary: 'Return a VM to one of its backups (what its disk gained since is lost)',
    params: backupParamsSchema,
    data: z.null(),
  }),
  restoreBackupAsNew: route({
    ...base,
    method: 'POST',
    path: `${P}/restoreBackupAsNew/:backupId`,
    summary:
      "A new VM from a backup of the company's (also one kept after its VM was deleted), in the same region and size",
    params: z.object({ backupId: idSchema }),
    body: z.object({ name: vmNameSchema }).strict(),
    data: z.object({ id: z.number().int() }),
  }),
  deleteBackup: route({
    ...base,
    method: 'DELETE',
    path: `${P}/deleteBackup/:id/:backupId`,
    summary: 'Delete a backup of a VM',
    params: backupParamsSchema,
    data: z.null(),
  }),
  verifyBackup: route({
    ...base,
    method: 'POST',
    path: `${P}/verifyBackup/:id/:backupId`,
    summary:
      'Verify a ready backup of a VM again now: a throwaway machine boots from its copy in isolation (the VM is not touched)',
    params: backupParamsSchema,
    data: z.null(),
  }),
  listCompanyBackups: route({
    ...base,
    method: 'GET',
    path: '/backups',
    summary: "The company's backups the caller may see, newest first, with those kept after their VM was deleted",
    data: z.object({ backups: z.array(backupSchema) }),
  }),
  deleteKeptBackup: route({
    ...base,
    method: 'DELETE',
    path: '/backups/:backupId',
    summary: 'Delete a backup kept after its VM was deleted (or any backup of the company by its id)',
    params: z.object({ backupId: idSchema }),
    data: z.null(),
  }),
  verifyKeptBackup: route({
    ...base,
    method: 'POST',
    path: '/backups/:backupId/verify',
    summary: 'Verify a ready backup of the company again now by its id (also one kept after its VM was deleted)',
    params: z.object({ backupId: idSchema }),
    data: z.null(),
  }),
} as const;
