/**
 * The portal's words around backups beyond the VM page's card (issue 24 items 2 and 4; decision 0021): the delete
 * dialogs' "keep backups" question, the company's Backups screen, restore as a new VM. Zod-free (like
 * vm-actions.ts), so the VM list and the VM page's delete dialog carry no schema for them. The API's own messages
 * stay in backups.ts (BACKUP_TEXT).
 */
export const BACKUP_SCREEN_TEXT = {
  /** The delete dialogs (the VM page's, the list's row menu): shown when the VM has backups; default off. */
  keepOnDelete: "Keep this VM's backups (they stay billed and can be restored as a new VM)",
  hasBackups: (n: number) =>
    n === 1
      ? 'This VM has 1 backup. Unless you keep it, it is deleted with the VM.'
      : `This VM has ${n} backups. Unless you keep them, they are deleted with the VM.`,
  /** The list's bulk delete: one choice for every VM deleted. */
  keepOnBulkDelete: "Keep these VMs' backups (they stay billed and can be restored as new VMs)",

  /** The company's Backups screen (/backups). */
  title: 'Backups',
  subtitle: "Your company's backups, with those kept after their VM was deleted",
  intro:
    "Backups are taken on a VM's page. A VM deleted with its backups kept leaves them here: they stay billed until deleted, and each can be restored as a new VM.",
  empty: "No backups yet. Take one from a VM's page.",
  deletedVm: (name: string) => `deleted VM: ${name}`,
  verifiedAt: (when: string) => `Verified at ${when}`,
  verificationFailed: (why: string) => `Verification failed: ${why}`,
  notVerified: 'Not verified yet',
  /** A verification queued or running (decision 0026): after the take, Verify now, or the operator's schedule. */
  verifying: 'Verifying…',

  /** Restore as a new VM (the screen's rows and the VM page's Backups card). */
  restoreAsNew: 'Restore as new VM',
  restoreAsNewText: (backup: string, vm: string) =>
    `A new VM is made from the backup “${backup}” of ${vm}: same region and size, its disk as it was when the backup was taken.`,
  newVmName: 'Name of the new VM',
  newVmNameDefault: (vm: string) => `${vm}-restored`.slice(0, 63),
} as const;
