/**
 * Queues work on an existing VM: the operation, the VM's in-progress status and the audit entry in one transaction,
 * then the live status event. The one way it is done, whoever asks: the portal's actions (vm.service.ts), the
 * suspension's stops and the reconciler's suspension sweep. One operation per VM (a race is decided by the
 * partial unique index). The caller tells the runner there is work (it also polls).
 *
 * A suspended company's VMs take only operations that leave the machine off (stop, power off, delete). Its users
 * have no session, so this refuses what could still slip through (a request past its session check when the
 * suspension landed, another instance's session cache not told yet) and any path added later (docs/reseller-area.md).
 */
import {
  actionUnavailableReason,
  VM_ACTIONS,
  VM_OFF_STATUSES,
  OPERATIONS,
  operationLane,
  type Operation,
  type OperationKind,
} from '@portal/contract/vm-lifecycle';
import type { Db, Tx } from '../../db/client.ts';
import type { virtualMachines } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { publishVm, type VmEvents } from '../vm-events.ts';
import { createOperationsRepository } from './operations.repository.ts';

/** The audit entry's cause of the stops a suspension queues (at once, and by the reconciler's sweep). */
export const SUSPENSION_CAUSE = 'company suspended';

/** 'busy': another operation is under way on the VM; 'suspended': refused, its company is suspended. */
export type EnqueueOutcome = 'queued' | 'busy' | 'suspended';

export interface Requester {
  /** Null for the platform itself (the suspension sweep): the activity log shows 'System'. */
  userId: number | null;
  requestId?: string;
  /** Why, when it is not the requester's own wish (kept in the audit entry). */
  cause?: string;
}

/** Whether an operation leaves the machine powered off (or gone): what a suspended company's VMs may still take. */
export function leavesMachineOff(kind: OperationKind): boolean {
  const endsIn: string = OPERATIONS[kind].endsIn;
  return endsIn === 'deleted' || (VM_OFF_STATUSES as readonly string[]).includes(endsIn);
}

/** As leavesMachineOff, and a move of a machine that is off (a move keeps the power state: engine/drain). */
function keepsMachineOff(operation: Operation): boolean {
  if (operation.kind === 'move') return (VM_OFF_STATUSES as readonly string[]).includes(operation.payload.status);
  return leavesMachineOff(operation.kind);
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export type Enqueue = (
  vm: typeof virtualMachines.$inferSelect,
  operation: Operation,
  by: Requester,
  /** Runs first in the transaction; what it throws refuses the operation (the upgrade's quota check). */
  guard?: (tx: Tx) => Promise<void>,
) => Promise<EnqueueOutcome>;

export function createEnqueue(deps: { db: Db; audit: Audit; events: VmEvents; clock: Clock }): Enqueue {
  const { db, audit } = deps;
  const operations = createOperationsRepository(db, deps.clock);
  return async (vm, operation, by, guard) => {
    if (!keepsMachineOff(operation) && (await operations.companySuspended(vm.companyId))) return 'suspended';
    // One unfinished operation per VM and lane: a take runs beside the lifecycle slot (decision 0025).
    if (await operations.active(vm.id, operationLane(operation.kind))) return 'busy';
    const running = OPERATIONS[operation.kind].runningStatus;
    // A backup keeps the VM's status (decision 0021): a running VM stays Running while it is copied. Its status is not
    // written at all: a stop queued meanwhile beside it must not be overwritten by the status read before.
    const status = running === 'unchanged' ? null : running;
    try {
      await db.transaction(async (tx) => {
        await guard?.(tx);
        await operations.insert(tx, { vmId: vm.id, requestedByUserId: by.userId, ...operation });
        if (status) await operations.setStatus(tx, vm.id, status);
        await audit.record(
          {
            companyId: vm.companyId,
            actorUserId: by.userId,
            action: `vm.${operation.kind}`,
            targetType: 'vm',
            targetId: vm.id,
            // The name too, so the activity log still names a deleted VM.
            before: { status: vm.status, name: vm.name },
            after: by.cause ? { ...operation.payload, cause: by.cause } : operation.payload,
            ...(by.requestId ? { requestId: by.requestId } : {}),
          },
          tx,
        );
      });
    } catch (err) {
      if (isUniqueViolation(err)) return 'busy';
      throw err;
    }
    // Published as it is now (a take's watchers refresh its Backups card from the event).
    const now = status ? { ...vm, status } : await operations.vm(vm.id);
    if (now) publishVm(deps.events, now);
    return 'queued';
  };
}

/**
 * The stops a suspension asks for, whoever notices it: the suspension itself (its staff member acts) and the
 * reconciler's sweep (the platform acts). Each VM that can be stopped gets a stop with the suspension as its cause;
 * one busy with another operation is left to the next sweep. A VM that fails is reported and the rest go on.
 * Answers how many stops were queued.
 */
export async function queueSuspensionStops(
  enqueue: Enqueue,
  vms: (typeof virtualMachines.$inferSelect)[],
  by: Omit<Requester, 'cause'>,
  onError: (vm: typeof virtualMachines.$inferSelect, err: unknown) => void,
): Promise<number> {
  let queued = 0;
  const stop = { kind: VM_ACTIONS.stop.operation, payload: {} };
  for (const vm of vms) {
    if (actionUnavailableReason('stop', vm.status)) continue;
    try {
      if ((await enqueue(vm, stop, { ...by, cause: SUSPENSION_CAUSE })) === 'queued') queued++;
    } catch (err) {
      onError(vm, err);
    }
  }
  return queued;
}
