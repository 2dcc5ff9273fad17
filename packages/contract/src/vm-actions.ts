/**
 * The VM lifecycle's action table without zod: which actions a VM offers, from which statuses, by which permission,
 * with which texts. The portal's VM page and list import it from here, so their chunks load no zod (the details
 * page's first second, bench/web-load); vm-lifecycle.ts keeps the operations' zod schemas and re-exports all of this,
 * so the server and every other importer see one table.
 */
import { VM_STATUSES, type VmStatus } from './constants.ts';
import { TEXT } from './messages.ts';
import type { Permission } from './permissions.ts';
// A type only (erased from the bundle): the operation kinds are the zod union's in vm-lifecycle.ts.
import type { OperationKind } from './vm-lifecycle.ts';

export { VM_STATUSES, type VmStatus };

/** Statuses in which a VM rests; the others only show while an operation runs. */
export const VM_STEADY_STATUSES = ['Running', 'Stopped', 'Shutoff', 'Error'] as const satisfies readonly VmStatus[];
/** Powered off, whether through the portal (Stopped) or from inside the guest or on the host (Shutoff). */
export const VM_OFF_STATUSES = ['Stopped', 'Shutoff'] as const satisfies readonly VmStatus[];

export interface VmActionDef {
  /** The operation it records; null for an action done at once in the database (rename). */
  operation: OperationKind | null;
  /** Statuses it may start from. */
  from: readonly VmStatus[];
  permission: Permission;
  /** Past participle for "The VM cannot be … while it is …". */
  participle: string;
  label: string;
  /** Confirmation dialog (title and question), for actions confirmed with a plain yes/no. */
  confirm?: { title: string; text: string };
  /** Shown once the server accepted the action. */
  accepted?: string;
}

export const VM_ACTIONS = {
  start: {
    operation: 'start',
    from: VM_OFF_STATUSES,
    permission: 'vm.operate',
    participle: 'started',
    label: 'Start',
    confirm: { title: TEXT.startVmTitle, text: TEXT.startVmText },
    accepted: TEXT.vmStarted,
  },
  stop: {
    operation: 'stop',
    from: ['Running'],
    permission: 'vm.operate',
    participle: 'stopped',
    label: 'Stop',
    confirm: { title: TEXT.stopVmTitle, text: TEXT.stopVmText },
    accepted: TEXT.vmStopped,
  },
  forceStop: {
    operation: 'forceStop',
    // Also the way out of a stop the guest ignores.
    from: ['Running', 'Stopping'],
    permission: 'vm.operate',
    participle: 'powered off',
    label: 'Power off',
    confirm: {
      title: 'Power off VM',
      text: 'Are you sure you want to power off the VM? Anything the guest has not saved is lost.',
    },
    accepted: 'VM is being powered off',
  },
  reset: {
    operation: 'reset',
    from: ['Running'],
    permission: 'vm.operate',
    participle: 'reset',
    label: 'Reset',
    confirm: { title: TEXT.resetVmTitle, text: TEXT.resetVmText },
    accepted: TEXT.vmReset,
  },
  upgrade: {
    operation: 'resize',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.modify',
    participle: 'upgraded',
    label: 'Upgrade',
  },
  // Reinstall from an image (issue 23 item 6): destroys the disk as a delete does, hence the delete permission. Not
  // from Error (a machine that was never made has nothing to rebuild) nor while an operation runs.
  rebuild: {
    operation: 'rebuild',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.delete',
    participle: 'rebuilt',
    label: 'Rebuild',
    accepted: 'VM rebuild started',
  },
  rename: {
    operation: null,
    from: VM_STEADY_STATUSES,
    permission: 'vm.modify',
    participle: 'renamed',
    label: 'Rename',
  },
  delete: {
    operation: 'delete',
    from: VM_STEADY_STATUSES,
    permission: 'vm.delete',
    participle: 'deleted',
    label: 'Delete',
    accepted: TEXT.vmDeleted,
  },
} as const satisfies Record<string, VmActionDef>;
export type VmActionName = keyof typeof VM_ACTIONS;

/**
 * The snapshot actions (issue 24 item 1; docs/decisions/0019-snapshots.md): rows like VM_ACTIONS', kept apart because
 * the VM page's Snapshots card offers them, not its actions card.
 */
export const SNAPSHOT_ACTIONS = {
  // Taking one is vm.operate (it loses nothing). Going back to one erases what the disk
  // gained since, and deleting one erases what it kept: vm.delete, as a rebuild, which erases the disk.
  snapshot: {
    operation: 'snapshot',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.operate',
    participle: 'snapshotted',
    label: 'Take snapshot',
    accepted: 'Snapshot is being taken',
  },
  snapshotRevert: {
    operation: 'snapshotRevert',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.delete',
    participle: 'reverted',
    label: 'Revert',
    accepted: 'VM is being reverted to the snapshot',
  },
  snapshotDelete: {
    operation: 'snapshotDelete',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.delete',
    participle: 'changed',
    label: 'Delete',
    accepted: 'Snapshot is being deleted',
  },
} as const satisfies Record<string, VmActionDef>;
export type SnapshotActionName = keyof typeof SNAPSHOT_ACTIONS;

/**
 * The backup actions (issue 24 item 2; docs/decisions/0021-backups.md), offered by the VM page's Backups card. A take
 * keeps the VM's status (the machine keeps running); a restore erases what the disk gained since, a delete what the
 * backup kept: vm.delete, as snapshots. A backup's delete touches no machine (operation null), from any status.
 */
export const BACKUP_ACTIONS = {
  backup: {
    operation: 'backup',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.operate',
    participle: 'backed up',
    label: 'Take backup',
    accepted: 'Backup is being taken',
  },
  backupRestore: {
    operation: 'backupRestore',
    from: ['Running', 'Stopped', 'Shutoff'],
    permission: 'vm.delete',
    participle: 'restored',
    label: 'Restore',
    accepted: 'VM is being restored from the backup',
  },
  backupDelete: {
    operation: null,
    from: VM_STATUSES,
    permission: 'vm.delete',
    participle: 'changed',
    label: 'Delete',
    accepted: 'Backup deleted',
  },
  // Verify now (issue 24 item 3; decision 0026): the backup's verification queued again, as after its take. It only
  // reads the copy (a throwaway machine boots from it, never the VM): vm.operate, as a take, from any status.
  backupVerify: {
    operation: null,
    from: VM_STATUSES,
    permission: 'vm.operate',
    participle: 'changed',
    label: 'Verify now',
    accepted: 'The backup will be verified shortly',
  },
} as const satisfies Record<string, VmActionDef>;
export type BackupActionName = keyof typeof BACKUP_ACTIONS;

/** What the VM page's Snapshots card says (issue 24 item 1). */
export const SNAPSHOT_TEXT = {
  title: 'Snapshots',
  empty: 'No snapshots yet.',
  nameLabel: 'Snapshot name',
  limit: (max: number) =>
    max === 0
      ? "Snapshots are not offered for this VM's size."
      : `A VM can keep at most ${max} snapshots. Delete one to take another.`,
  nameTaken: 'This VM already has a snapshot with this name',
  notFound: 'Snapshot not found',
  notReady: (state: string) => `The snapshot cannot be used while it is ${state}`,
  otherSize:
    'The VM was upgraded after this snapshot was taken: reverting to it would bring its old size back. Take a new snapshot instead.',
  revertTitle: 'Revert to snapshot',
  revertText: (name: string) =>
    `Are you sure you want to revert the VM to the snapshot “${name}”? Everything written to its disk since the snapshot was taken is lost. A snapshot taken while the VM ran brings it back running, as it was at that moment.`,
  deleteTitle: 'Delete snapshot',
  deleteText: (name: string) => `Are you sure you want to delete the snapshot “${name}”? It cannot be undone.`,
} as const;

/** What the rebuild dialog says (issue 23 item 6). */
export const REBUILD_TEXT = {
  title: (name: string) => `Rebuild ${name}`,
  warning:
    'Rebuilding erases the VM’s disk and installs the chosen image. Its name, size, addresses and team stay, and so do the portal’s password and key. The chosen SSH keys and user-data replace the ones it has; the VM starts when it is ready.',
  imageLabel: 'Image',
  chooseImage: 'Select an image',
  confirmLabel: (name: string) => `Type ${name} to confirm`,
} as const;

/** Why an action cannot start from a status, or null when it can. Same words on server and portal. */
export function actionUnavailableReason(
  action: VmActionName | SnapshotActionName | BackupActionName,
  status: VmStatus,
): string | null {
  const def: VmActionDef =
    action in SNAPSHOT_ACTIONS
      ? SNAPSHOT_ACTIONS[action as SnapshotActionName]
      : action in BACKUP_ACTIONS
        ? BACKUP_ACTIONS[action as BackupActionName]
        : VM_ACTIONS[action as VmActionName];
  return def.from.includes(status) ? null : `The VM cannot be ${def.participle} while it is ${status}`;
}
