/**
 * How long each snapshot or backup was kept, for storage billing (issue 24 item 4; docs/billing-webhook.md "Storage"):
 * one `storage_periods` row per object, opened when it became ready and closed when it went. Call these in the same
 * transaction as the object's own row change (its state set ready, its row deleted), so the two never disagree after
 * a crash; both are idempotent (opening twice keeps the first, closing a closed period changes nothing), so a retried
 * step writes nothing twice. SQL over the schema only: the engine's snapshot steps and the backups' code call it.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { StorageKind } from '@portal/contract/billing';
import type { Db, Tx } from './client.ts';
import { storagePeriods, virtualMachines } from './schema.ts';

export interface StoredObject {
  kind: StorageKind;
  /** vm_snapshots.id or vm_backups.id. */
  objectId: number;
  /** The VM it was taken of; its company is billed (a kept backup's VM may be deleted since). */
  vmId: number;
  sizeBytes: number;
}

/** The object is ready and kept from `at`: its period opens (once; a second call changes nothing). */
export async function openStoragePeriod(db: Db | Tx, object: StoredObject, at: Date): Promise<void> {
  const [vm] = await db
    .select({ companyId: virtualMachines.companyId })
    .from(virtualMachines)
    .where(eq(virtualMachines.id, object.vmId));
  if (!vm) return;
  await db
    .insert(storagePeriods)
    .values({ ...object, companyId: vm.companyId, startedAt: at })
    .onConflictDoNothing({ target: [storagePeriods.kind, storagePeriods.objectId] });
}

/** The objects are gone at `at`: their open periods close (closed ones keep their end). */
export async function closeStoragePeriods(db: Db | Tx, kind: StorageKind, objectIds: number[], at: Date) {
  if (objectIds.length === 0) return;
  await db
    .update(storagePeriods)
    .set({ endedAt: at })
    .where(
      and(eq(storagePeriods.kind, kind), inArray(storagePeriods.objectId, objectIds), isNull(storagePeriods.endedAt)),
    );
}
