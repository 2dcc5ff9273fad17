/**
 * How consistent a backup's copy is (issue 24 item 1; docs/decisions/0028-freeze-and-powered-off-incremental.md),
 * without zod: the portal's backup screens import it (as vm-actions.ts, zod-free.test.ts).
 *
 * - 'application-consistent': the guest's file systems were frozen through its guest agent at the copy's instant
 *   (everything flushed, no write half done), thawed as soon as the copy's job had begun.
 * - 'crash-consistent': the disk as a power cut at that instant would leave it (no agent, or the machine was powered
 *   off: the portal cannot tell a clean shutdown from a forced one). The guest's journal recovers it on boot.
 */
export const BACKUP_CONSISTENCIES = ['application-consistent', 'crash-consistent'] as const;
export type BackupConsistency = (typeof BACKUP_CONSISTENCIES)[number];

/** The small label the Backups card and the Backups screen show, and its longer explanation (the label's title). */
export const BACKUP_CONSISTENCY_TEXT: Record<BackupConsistency, { label: string; title: string }> = {
  'application-consistent': {
    label: 'application-consistent',
    title: "The guest's file systems were frozen through its guest agent for the copy: everything written was on disk.",
  },
  'crash-consistent': {
    label: 'crash-consistent',
    title:
      'A copy as a power cut would leave the disk: the guest had no agent to freeze its file systems, or it was powered off.',
  },
};
