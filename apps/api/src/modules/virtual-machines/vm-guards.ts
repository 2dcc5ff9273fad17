/**
 * What every VM action's service does before it acts, once for the VM, snapshot and backup services: the VM as the
 * caller may see it (404 otherwise, 403 without the permission), the lifecycle table's rule for the action (409 with
 * why), and the operation queued through the engine (403 for a suspended company, 409 while another one runs).
 */
import { API_MESSAGES } from '@portal/contract/messages';
import {
  actionUnavailableReason,
  type BackupActionName,
  type Operation,
  type SnapshotActionName,
  type VmActionName,
} from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import type { Tx } from '../../db/client.ts';
import type { Requester } from '../../engine/operations/enqueue.ts';
import type { ModuleDeps } from '../module.ts';
import type { Permission } from '../access/permissions.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';

export const BUSY_MESSAGE = 'Another operation is already in progress on this virtual machine. Wait for it to finish.';

type Deps = Pick<ModuleDeps, 'access' | 'engine'> & { vms: Pick<VmRepository, 'byId'> };

export function createVmGuards({ access, engine, vms }: Deps) {
  async function enqueueAs(by: Requester, vm: VmRow, operation: Operation, guard?: (tx: Tx) => Promise<void>) {
    const outcome = await engine.enqueue(vm, operation, by, guard);
    if (outcome === 'suspended') throw new ForbiddenError(API_MESSAGES.companySuspended);
    if (outcome === 'busy') throw new ConflictError(BUSY_MESSAGE);
  }

  return {
    async loadVisible(scope: TenantScope, id: number, permission: Permission): Promise<VmRow> {
      const vm = await vms.byId(id);
      if (!vm) throw new NotFoundError('Virtual machine not found');
      await access.requireVm(scope, vm, permission);
      return vm;
    },

    /** The lifecycle table's rule: the action may start from the VM's status, or a 409 says why not. */
    requireAvailable(vm: VmRow, action: VmActionName | SnapshotActionName | BackupActionName) {
      const reason = actionUnavailableReason(action, vm.status);
      if (reason) throw new ConflictError(reason);
    },

    /** Records an operation and the VM's in-progress status in one transaction (operations/enqueue.ts). */
    async enqueue(
      ctx: { scope: TenantScope; requestId: string },
      vm: VmRow,
      operation: Operation,
      guard?: (tx: Tx) => Promise<void>,
    ) {
      await enqueueAs({ userId: ctx.scope.userId, requestId: ctx.requestId }, vm, operation, guard);
    },
    /** As enqueue, for any requester (the platform itself: a backup schedule, decision 0023). */
    enqueueAs,
  };
}
