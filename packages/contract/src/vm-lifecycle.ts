/**
 * The VM lifecycle, in one typed table that the server's checks, the operation runner's dispatch and the
 * portal's buttons and dialogs all read. Adding an action: add a row to VM_ACTIONS in vm-actions.ts (the table
 * without zod, re-exported here) and, if it runs on the host, an operation kind here with its payload and a driver
 * call; the portal renders its button from the row.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { VM_STATUSES, type VmStatus } from './constants.ts';
import { VM_STEADY_STATUSES } from './vm-actions.ts';

export { VM_STATUSES, type VmStatus };
// The action table lives in vm-actions.ts (no zod, for the portal's VM pages); it is part of this module's surface.
export {
  VM_STEADY_STATUSES,
  VM_OFF_STATUSES,
  VM_ACTIONS,
  SNAPSHOT_ACTIONS,
  SNAPSHOT_TEXT,
  BACKUP_ACTIONS,
  REBUILD_TEXT,
  actionUnavailableReason,
  type VmActionDef,
  type VmActionName,
  type SnapshotActionName,
  type BackupActionName,
} from './vm-actions.ts';

/** A snapshot operation's payload: the snapshot's row, its name, the driver's name for it, the VM's status when queued. */
const snapshotPayloadSchema = z
  .object({
    snapshotId: z.number().int(),
    name: z.string(),
    providerName: z.string(),
    status: z.enum(VM_STEADY_STATUSES),
  })
  .strict();

/** A backup operation's payload: the backup's row, its name, the driver's name for it, the VM's status when queued. */
const backupPayloadSchema = z
  .object({
    backupId: z.number().int(),
    name: z.string(),
    providerName: z.string(),
    status: z.enum(VM_STEADY_STATUSES),
  })
  .strict();

/** Durable operations: what the runner executes. Each kind carries its own payload. */
export const operationSchema = z.discriminatedUnion('kind', [
  // `fromBackup`: a restore as a new VM (issue 24 item 2): the new machine's disk is a copy of that backup.
  z.object({
    kind: z.literal('create'),
    payload: z
      .object({ fromBackup: z.object({ backupId: z.number().int(), providerName: z.string() }).strict().optional() })
      .strict(),
  }),
  z.object({ kind: z.literal('start'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('stop'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('forceStop'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('reset'), payload: z.object({}).strict() }),
  z.object({ kind: z.literal('resize'), payload: z.object({ configurationId: z.number().int() }).strict() }),
  // `keepBackups` (issue 24 item 2): the VM's backups stay (the company's list shows them); absent or false: deleted.
  z.object({ kind: z.literal('delete'), payload: z.object({ keepBackups: z.boolean().optional() }).strict() }),
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
  // Backups (issue 24 item 2; docs/decisions/0021-backups.md). The row in vm_backups is made when the take is queued.
  // A backup's delete is no operation of the VM's (a kept backup has none; it does not touch the machine).
  z.object({ kind: z.literal('backup'), payload: backupPayloadSchema }),
  z.object({ kind: z.literal('backupRestore'), payload: backupPayloadSchema }),
]);
export type Operation = z.infer<typeof operationSchema>;
export type OperationKind = Operation['kind'];
export type OperationPayload<K extends OperationKind> = Extract<Operation, { kind: K }>['payload'];
export const OPERATION_KINDS = operationSchema.options.map((o) => o.shape.kind.value) as [
  OperationKind,
  ...OperationKind[],
];

/**
 * The slot an operation holds on its VM (docs/decisions/0025-backup-concurrency.md). 'vm': the lifecycle slot, one
 * operation at a time per VM (every kind unless it says otherwise). 'backup': beside it, one at a time per VM and a
 * limited number per host (BACKUP_CONCURRENCY_PER_HOST): a take never holds the VM's other actions for its copy.
 */
export const OPERATION_LANES = ['vm', 'backup'] as const;
export type OperationLane = (typeof OPERATION_LANES)[number];

export interface OperationDef {
  /** What the VM shows while it runs; 'unchanged': the status it had (a backup of a running VM keeps it Running). */
  runningStatus: VmStatus | 'unchanged';
  endsIn: VmStatus | 'deleted' | 'unchanged';
  /** The slot it holds (absent: 'vm'). An operation beside the lifecycle slot never writes the VM's status. */
  lane?: OperationLane;
  /** It replaces, moves or removes the VM's disk: an operation of another lane waits for it to end before it starts. */
  replacesDisk?: true;
}
/** What an operation shows while it runs and where it ends when it succeeds (literal types kept, so `endsIn` is typed per kind). */
export const OPERATIONS = {
  create: { runningStatus: 'Provisioning', endsIn: 'Running', replacesDisk: true },
  start: { runningStatus: 'Starting', endsIn: 'Running' },
  stop: { runningStatus: 'Stopping', endsIn: 'Stopped' },
  forceStop: { runningStatus: 'Stopping', endsIn: 'Stopped' },
  reset: { runningStatus: 'Starting', endsIn: 'Running' },
  // A machine keeps its power state through a resize.
  resize: { runningStatus: 'Resizing', endsIn: 'unchanged' },
  delete: { runningStatus: 'Stopping', endsIn: 'deleted', replacesDisk: true },
  // A reinstall shows what a create shows (no status of its own: the spec fixes them) and always ends running: a
  // fresh system boots to run cloud-init with the new keys and user-data (docs/virtual-machines.md, "Rebuild").
  rebuild: { runningStatus: 'Provisioning', endsIn: 'Running', replacesDisk: true },
  // The platform places the machine on another host, as a create places a new one: Provisioning, actions closed,
  // until it is there in its previous power state (docs/draining.md says why not Stopping or Resizing).
  move: { runningStatus: 'Provisioning', endsIn: 'unchanged', replacesDisk: true },
  // Snapshots keep the power state, except a revert: the machine comes back as it was when the snapshot was taken
  // (running with its memory, or powered off; decision 0019).
  snapshot: { runningStatus: 'Snapshotting', endsIn: 'unchanged' },
  snapshotDelete: { runningStatus: 'Snapshotting', endsIn: 'unchanged' },
  snapshotRevert: { runningStatus: 'Reverting', endsIn: 'unchanged', replacesDisk: true },
  // A backup is taken while the machine keeps running (or stays off): no status of its own (decision 0021), and
  // beside the VM's lifecycle slot, so a stop or a start during the copy is not refused (decision 0025). A restore in
  // place holds the slot: it powers the machine off, writes the disk back and starts it again if it ran.
  backup: { runningStatus: 'unchanged', endsIn: 'unchanged', lane: 'backup' },
  backupRestore: { runningStatus: 'Restoring', endsIn: 'unchanged', replacesDisk: true },
} as const satisfies { readonly [K in OperationKind]: OperationDef };

/** The slot an operation of this kind holds on its VM (decision 0025). */
export function operationLane(kind: OperationKind): OperationLane {
  const def: OperationDef = OPERATIONS[kind];
  return def.lane ?? 'vm';
}

/** The kinds that replace, move or remove a VM's disk: a take waits while one of them is under way (decision 0025). */
export const DISK_REPLACING_KINDS = OPERATION_KINDS.filter((kind) => (OPERATIONS[kind] as OperationDef).replacesDisk);
