/**
 * The VM lifecycle, in one typed table that the server's checks, the operation runner's dispatch and the
 * portal's buttons and dialogs all read. Adding an action: add a row here (and, if it runs on the host, an
 * operation kind with its payload and a driver call); the portal renders its button from the row.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { VM_STATUSES, type VmStatus } from './constants.ts';
import { TEXT } from './messages.ts';
import type { Permission } from './permissions.ts';

export { VM_STATUSES, type VmStatus };

/** Statuses in which a VM rests; the others only show while an operation runs. */
export const VM_STEADY_STATUSES = ['Running', 'Stopped', 'Shutoff', 'Error'] as const satisfies readonly VmStatus[];
/** Powered off, whether through the portal (Stopped) or from inside the guest or on the host (Shutoff). */
export const VM_OFF_STATUSES = ['Stopped', 'Shutoff'] as const satisfies readonly VmStatus[];

/** A snapshot operation's payload: the snapshot's row, its name, the driver's name for it, the VM's status when queued. */
const snapshotPayloadSchema = z
  .object({
    snapshotId: z.number().int(),
    name: z.string(),
    providerName: z.string(),
    status: z.enum(VM_STEADY_STATUSES),
  })
  .strict();

/** Durable operations: what the runner executes. Each kind carries its own payload. */
export const operationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('create'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('start'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('stop'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('forceStop'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('reset'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('resize'), payload: z.object({ configurationId: z.number().int() }).strict() }),
  z.object({ kind: z.literal('delete'), payload: z.object({}).strict() }),
  // A draining host's machine to another host (docs/draining.md); `status`: the VM's when the move was queued.
  z.object({
    kind: z.literal('move'),
    payload: z
      .object({
        fromHostId: z.number().int(),
        toHostId: z.number().int(),
        status: z.enum(VM_STEADY_STATUSES),
      })
      .strict(),
  }),
  // A reinstall from an image of the VM's region (issue 23 item 6). The chosen keys and user-data are written on the
  // VM when it is queued (user-data sealed); the payload says, for the activity log, what was asked without secrets.
  z.object({
    kind: z.literal('rebuild'),
    payload: z
      .object({
        image: z.string(),
        sshKeys: z.array(z.string()),
        userDataBytes: z.number().int().nullable(),
      })
      .strict(),
  }),
  // Snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md). The row in vm_snapshots is made when the take is
  // queued; `providerName` is the driver's name for it, `status` the VM's when it was queued (a take or a delete keeps
  // the power state, and says Shutoff again rather than Stopped).
  z.object({ kind: z.literal('snapshot'), payload: snapshotPayloadSchema }),
  z.object({ kind: z.literal('snapshotRevert'), payload: snapshotPayloadSchema }),
  z.object({ kind: z.literal('snapshotDelete'), payload: snapshotPayloadSchema }),
]);
export type Operation = z.infer<typeof operationSchema>;
export type OperationKind = Operation['kind'];
export type OperationPayload<K extends OperationKind> = Extract<Operation, { kind: K }>['payload'];
export const OPERATION_KINDS = operationSchema.options.map((o) => o.shape.kind.value) as [
  OperationKind,
  ...OperationKind[],
];

export interface OperationDef {
  runningStatus: VmStatus;
  endsIn: VmStatus | 'deleted' | 'unchanged';
}
/** What an operation shows while it runs and where it ends when it succeeds (literal types kept, so `endsIn` is typed per kind). */
export const OPERATIONS = {
  create: { runningStatus: 'Provisioning', endsIn: 'Running' },
  start: { runningStatus: 'Starting', endsIn: 'Running' },
  stop: { runningStatus: 'Stopping', endsIn: 'Stopped' },
  forceStop: { runningStatus: 'Stopping', endsIn: 'Stopped' },
  reset: { runningStatus: 'Starting', endsIn: 'Running' },
  // A machine keeps its power state through a resize.
  resize: { runningStatus: 'Resizing', endsIn: 'unchanged' },
  delete: { runningStatus: 'Stopping', endsIn: 'deleted' },
  // A reinstall shows what a create shows (no status of its own: the spec fixes them) and always ends running: a
  // fresh system boots to run cloud-init with the new keys and user-data (docs/virtual-machines.md, "Rebuild").
  rebuild: { runningStatus: 'Provisioning', endsIn: 'Running' },
  // The platform places the machine on another host, as a create places a new one: Provisioning, actions closed,
  // until it is there in its previous power state (docs/draining.md says why not Stopping or Resizing).
  move: { runningStatus: 'Provisioning', endsIn: 'unchanged' },
  // Snapshots keep the power state, except a revert: the machine comes back as it was when the snapshot was taken
  // (running with its memory, or powered off; decision 0019).
  snapshot: { runningStatus: 'Snapshotting', endsIn: 'unchanged' },
  snapshotDelete: { runningStatus: 'Snapshotting', endsIn: 'unchanged' },
  snapshotRevert: { runningStatus: 'Reverting', endsIn: 'unchanged' },
} as const satisfies { readonly [K in OperationKind]: OperationDef };

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
export function actionUnavailableReason(action: VmActionName | SnapshotActionName, status: VmStatus): string | null {
  const def: VmActionDef =
    action in SNAPSHOT_ACTIONS ? SNAPSHOT_ACTIONS[action as SnapshotActionName] : VM_ACTIONS[action as VmActionName];
  return def.from.includes(status) ? null : `The VM cannot be ${def.participle} while it is ${status}`;
}
