/**
 * The billing record of a VM's life (issue 13): one row of `vm_size_periods` per stretch of time the machine existed
 * at one size. Written only from an operation's outcome, in the transaction that writes the VM's new state, so the
 * periods can never disagree with the VM:
 *  - a period opens when the machine was made (the create succeeded), not when the create was accepted: a create
 *    that never made a machine bills nothing;
 *  - a resize that completed closes the period and opens the next one at the new size;
 *  - a completed delete closes the open period.
 * It compares the VM as written with its open period, so it is idempotent and repairs a VM that has none.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Tx } from '../../db/client.ts';
import { vmSizePeriods, type virtualMachines } from '../../db/schema.ts';

type VmRow = typeof virtualMachines.$inferSelect;

export async function recordSizePeriod(tx: Tx, vm: VmRow, at: Date): Promise<void> {
  const exists = vm.providerRef !== null && vm.deletedAt === null;
  const [open] = await tx
    .select()
    .from(vmSizePeriods)
    .where(and(eq(vmSizePeriods.vmId, vm.id), isNull(vmSizePeriods.endedAt)))
    .for('update');
  const sameSize = open?.configurationId === vm.configurationId;
  if (open && (!exists || !sameSize)) {
    await tx
      .update(vmSizePeriods)
      .set({ endedAt: vm.deletedAt ?? at })
      .where(eq(vmSizePeriods.id, open.id));
  }
  if (exists && (!open || !sameSize)) {
    await tx
      .insert(vmSizePeriods)
      .values({ vmId: vm.id, companyId: vm.companyId, configurationId: vm.configurationId, startedAt: at });
  }
}
