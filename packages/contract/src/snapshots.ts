/**
 * VM snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md): list, take, revert, delete. Each change is an
 * operation of the lifecycle table (vm-lifecycle.ts: SNAPSHOT_ACTIONS, OPERATIONS), so the VM shows Snapshotting or
 * Reverting while it runs.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, route, timestampSchema } from './common.ts';
import { SNAPSHOTS } from './constants.ts';

export const SNAPSHOT_STATES = ['creating', 'ready', 'reverting', 'deleting', 'failed'] as const;
export type SnapshotState = (typeof SNAPSHOT_STATES)[number];

export const SNAPSHOT_NAME_RULE = `Snapshot name must be 1 to ${SNAPSHOTS.nameMax} characters: letters, digits, spaces, dots, dashes and underscores`;
/** A snapshot's name as the customer gives it; the driver's own name for it is the portal's (never this text). */
export const snapshotNameSchema = z
  .string({ error: SNAPSHOT_NAME_RULE })
  .trim()
  .min(1, SNAPSHOT_NAME_RULE)
  .max(SNAPSHOTS.nameMax, SNAPSHOT_NAME_RULE)
  .regex(/^[\p{L}\p{N} ._-]+$/u, SNAPSHOT_NAME_RULE);

export const snapshotSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  state: z.enum(SNAPSHOT_STATES),
  /** Bytes the snapshot holds on the host (its disk state, and its memory when taken running); null until taken. */
  sizeBytes: z.number().int().nullable(),
  /** Taken while the VM ran: it holds the memory too, and a revert brings the VM back running. */
  includesMemory: z.boolean().nullable(),
  createdAt: timestampSchema,
  /** Why a take failed (state 'failed'), or why the last revert or delete of it failed. */
  error: z.string().nullable(),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

export const snapshotListSchema = z.object({
  snapshots: z.array(snapshotSchema),
  /** How many the VM may keep (its reseller's catalog for its size, or SNAPSHOTS.defaultPerVm). */
  limit: z.number().int(),
});

const base = { tag: 'Virtual Machines', access: 'user' } as const;
const P = '/virtualMachines';
const snapshotParamsSchema = z.object({ id: idSchema, snapshotId: idSchema });

export const snapshotRoutes = {
  listSnapshots: route({
    ...base,
    method: 'GET',
    path: `${P}/listSnapshots/:id`,
    summary: "A VM's snapshots, newest first, and how many it may keep",
    params: idParamsSchema,
    data: snapshotListSchema,
  }),
  takeSnapshot: route({
    ...base,
    method: 'POST',
    path: `${P}/takeSnapshot/:id`,
    summary: 'Take a snapshot of a VM (running or powered off)',
    params: idParamsSchema,
    body: z.object({ name: snapshotNameSchema }).strict(),
    data: z.object({ id: z.number().int() }),
  }),
  revertSnapshot: route({
    ...base,
    method: 'POST',
    path: `${P}/revertSnapshot/:id/:snapshotId`,
    summary: 'Return a VM to a snapshot (what its disk gained since is lost)',
    params: snapshotParamsSchema,
    data: z.null(),
  }),
  deleteSnapshot: route({
    ...base,
    method: 'DELETE',
    path: `${P}/deleteSnapshot/:id/:snapshotId`,
    summary: 'Delete a snapshot of a VM',
    params: snapshotParamsSchema,
    data: z.null(),
  }),
} as const;
