/**
 * A VM's snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md): the rules over the engine. Each change is an
 * operation queued through the engine (the VM shows Snapshotting or Reverting, audited as vm.snapshot,
 * vm.snapshotRevert, vm.snapshotDelete); the row is written in the transaction that queues it.
 */
import type { SnapshotState } from '@portal/contract/snapshots';
import { SNAPSHOT_ACTIONS, SNAPSHOT_TEXT, type VM_STEADY_STATUSES } from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';
import type { SnapshotRepository, SnapshotRow } from './snapshots.repository.ts';
import { BUSY_MESSAGE, createVmGuards } from './vm-guards.ts';

type Deps = Pick<ModuleDeps, 'access' | 'engine'> & { vms: Pick<VmRepository, 'byId'>; repo: SnapshotRepository };
type Ctx = { scope: TenantScope; requestId: string; resellerId: number };
type SteadyStatus = (typeof VM_STEADY_STATUSES)[number];

/** The driver's name for a snapshot: the portal's, never the customer's text. */
export const providerSnapshotName = (id: number) => `portal-snap-${id}`;

export function createSnapshotService(deps: Deps) {
  const { repo } = deps;
  const { loadVisible, requireAvailable, enqueue } = createVmGuards(deps);

  /** A snapshot of this VM for an action: 404 when it is not this VM's, 409 when its state does not allow it. */
  async function snapshotFor(vm: VmRow, snapshotId: number, allowed: readonly SnapshotState[]) {
    const snap = await repo.byId(vm.id, snapshotId);
    if (!snap) throw new NotFoundError(SNAPSHOT_TEXT.notFound);
    if (!allowed.includes(snap.state)) throw new ConflictError(SNAPSHOT_TEXT.notReady(snap.state));
    return snap;
  }

  /** Queues a revert or a delete of a snapshot, its row moved to `to` in the same transaction. */
  async function act(
    ctx: Ctx,
    vmId: number,
    snapshotId: number,
    action: 'snapshotRevert' | 'snapshotDelete',
    allowed: readonly SnapshotState[],
    to: SnapshotState,
  ) {
    const vm = await loadVisible(ctx.scope, vmId, SNAPSHOT_ACTIONS[action].permission);
    const snap = await snapshotFor(vm, snapshotId, allowed);
    // libvirt brings the machine's definition back with the snapshot: not to a size the VM has been upgraded from.
    if (action === 'snapshotRevert' && snap.configurationId !== null && snap.configurationId !== vm.configurationId)
      throw new ConflictError(SNAPSHOT_TEXT.otherSize);
    requireAvailable(vm, action);
    const payload = payloadOf(snap, vm.status as SteadyStatus);
    await enqueue(ctx, vm, { kind: SNAPSHOT_ACTIONS[action].operation, payload }, async (tx) => {
      if (!(await repo.setState(tx, snap.id, allowed, to))) throw new ConflictError(BUSY_MESSAGE);
    });
  }

  return {
    async list(scope: TenantScope, vmId: number, resellerId: number) {
      const vm = await loadVisible(scope, vmId, 'vm.view');
      const [rows, limit] = await Promise.all([repo.list(vm.id), repo.limit(resellerId, vm.configurationId)]);
      return { snapshots: rows.map(toSnapshot), limit };
    },

    /** Takes a snapshot (running: with its memory; powered off: its disks). Answers the new snapshot's id. */
    async take(ctx: Ctx, vmId: number, name: string) {
      const vm = await loadVisible(ctx.scope, vmId, SNAPSHOT_ACTIONS.snapshot.permission);
      requireAvailable(vm, 'snapshot');
      const limit = await repo.limit(ctx.resellerId, vm.configurationId);
      const id = await repo.nextId();
      const providerName = providerSnapshotName(id);
      const payload = { snapshotId: id, name, providerName, status: vm.status as SteadyStatus };
      // The limit and the name are checked again in the transaction: one operation per VM, so no take races it.
      await enqueue(ctx, vm, { kind: SNAPSHOT_ACTIONS.snapshot.operation, payload }, async (tx) => {
        if ((await repo.counted(tx, vm.id)) >= limit) throw new ConflictError(SNAPSHOT_TEXT.limit(limit));
        if (await repo.nameTaken(tx, vm.id, name)) throw new BadRequestError(SNAPSHOT_TEXT.nameTaken);
        await repo.insert(tx, { id, vmId: vm.id, name, providerName, configurationId: vm.configurationId });
      });
      return { id };
    },

    /** Returns the VM to a ready snapshot. */
    revert: (ctx: Ctx, vmId: number, snapshotId: number) =>
      act(ctx, vmId, snapshotId, 'snapshotRevert', ['ready'], 'reverting'),

    /** Deletes a snapshot, ready or failed (a failed take may have left something on the host: the driver looks). */
    delete: (ctx: Ctx, vmId: number, snapshotId: number) =>
      act(ctx, vmId, snapshotId, 'snapshotDelete', ['ready', 'failed'], 'deleting'),
  };
}
export type SnapshotService = ReturnType<typeof createSnapshotService>;

function payloadOf(snap: SnapshotRow, status: SteadyStatus) {
  return { snapshotId: snap.id, name: snap.name, providerName: snap.providerName, status };
}

function toSnapshot(row: SnapshotRow) {
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    sizeBytes: row.sizeBytes,
    includesMemory: row.includesMemory,
    createdAt: iso(row.createdAt),
    error: row.error,
  };
}
