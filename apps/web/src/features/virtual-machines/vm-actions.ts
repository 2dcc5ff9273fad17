/**
 * Which of the lifecycle table's actions a VM offers and why one is disabled: one rule for the VM page's action
 * buttons and the list's row menu (issue 25 item 2).
 */
import { TEXT } from '@portal/contract/messages';
import type { Permission } from '@portal/contract/permissions';
import { VM_ACTIONS, actionUnavailableReason, type VmActionName, type VmStatus } from '@portal/contract/vm-actions';

/**
 * The actions offered for a VM in this status, in table order. Start and Stop share a place: Stop while it can run
 * (SPEC: when Running), otherwise Start, enabled only from its own statuses.
 */
export function shownVmActions(status: VmStatus): VmActionName[] {
  const canStop = actionUnavailableReason('stop', status) === null;
  return (Object.keys(VM_ACTIONS) as VmActionName[]).filter((a) =>
    a === 'start' ? !canStop : a === 'stop' ? canStop : true,
  );
}

/** Why the caller cannot run an action now: their role first (from the server's answer), then the VM's status. */
export function vmActionRefusal(
  action: VmActionName,
  status: VmStatus,
  permissions: readonly Permission[],
): string | null {
  return permissions.includes(VM_ACTIONS[action].permission) ? actionUnavailableReason(action, status) : TEXT.roleLacks;
}
