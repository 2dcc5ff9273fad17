/**
 * How long each snapshot or backup was kept, for storage billing (issue 24 item 4; docs/billing-webhook.md "Storage"):
 * one `storage_periods` row per object, opened when it became ready and closed when it went. Call these in the same
 * transaction as the object's own row change (its state set ready, its row deleted), so the two never disagree after
 * a crash; both are idempotent (opening twice keeps the first, closing a closed period changes nothing), so a retried
 * step writes nothing twice. SQL over the schema only: the engine's snapshot steps and the backups' code call it.
 */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
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
  // Only an object that never had one: a retried step, or one after the object's period was closed, adds nothing.
  await db.execute(sql`
    insert into storage_periods (kind, object_id, company_id, vm_id, size_bytes, started_at)
    select ${object.kind}, ${object.objectId}, ${vm.companyId}, ${object.vmId}, ${object.sizeBytes}, ${at.toISOString()}::timestamptz
     where not exists (select 1 from storage_periods p where p.kind = ${object.kind} and p.object_id = ${object.objectId})
    on conflict (kind, object_id) where ended_at is null do nothing`);
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

/**
 * The object's size changed at `at` (a backup another was merged into, decision 0027): its open period ends there and
 * the next opens at the same instant with the new size, so each second is billed at the size it had. No open period
 * (not billed yet, or gone) or the same size: nothing changes.
 */
export async function resizeStoragePeriod(
  db: Db | Tx,
  kind: StorageKind,
  objectId: number,
  sizeBytes: number,
  at: Date,
) {
  const [open] = await db
    .select()
    .from(storagePeriods)
    .where(and(eq(storagePeriods.kind, kind), eq(storagePeriods.objectId, objectId), isNull(storagePeriods.endedAt)))
    .for('update');
  if (!open || open.sizeBytes === sizeBytes) return;
  const from = at < open.startedAt ? open.startedAt : at;
  await db.update(storagePeriods).set({ endedAt: from }).where(eq(storagePeriods.id, open.id));
  await db.insert(storagePeriods).values({
    kind,
    objectId,
    companyId: open.companyId,
    vmId: open.vmId,
    sizeBytes,
    startedAt: from,
  });
}

/**
 * The backstop: makes storage_periods agree with the objects' rows at `now`, idempotently.
 * A kept object (a ready snapshot; a backup that completed and is not failed) without a period gets one from when it
 * was taken (the backup's completed_at, the snapshot's created_at); an open period whose object's row is gone (or
 * failed) closes at `now`. The snapshot steps write their periods exactly in their own transactions, so for them
 * this only repairs; backups are written by another module's code, so the billing worker runs this every pass and a
 * deleted backup stops being billed within one minute (billing.module.ts). Two statements per kind, whatever
 * the number of objects.
 */
export async function syncStoragePeriods(db: Db, now: Date): Promise<{ opened: number; closed: number }> {
  const at = now.toISOString();
  const opened = await db.execute(sql`
    insert into storage_periods (kind, object_id, company_id, vm_id, size_bytes, started_at)
    select 'backup', b.id, b.company_id, b.vm_id, coalesce(b.size_bytes, 0), b.completed_at
      from vm_backups b
     where b.state in ('ready', 'restoring', 'deleting') and b.completed_at is not null
       and b.completed_at <= ${at}::timestamptz
       and not exists (select 1 from storage_periods p where p.kind = 'backup' and p.object_id = b.id)
    union all
    select 'snapshot', s.id, v.company_id, s.vm_id, coalesce(s.size_bytes, 0), s.created_at
      from vm_snapshots s join virtual_machines v on v.id = s.vm_id
     where s.state in ('ready', 'reverting', 'deleting') and s.created_at <= ${at}::timestamptz
       and not exists (select 1 from storage_periods p where p.kind = 'snapshot' and p.object_id = s.id)
    on conflict (kind, object_id) where ended_at is null do nothing`);
  const closed = await db.execute(sql`
    update storage_periods p set ended_at = greatest(${at}::timestamptz, p.started_at)
     where p.ended_at is null and (
       (p.kind = 'backup' and not exists (
          select 1 from vm_backups b where b.id = p.object_id and b.state in ('ready', 'restoring', 'deleting')))
       or (p.kind = 'snapshot' and not exists (
          select 1 from vm_snapshots s where s.id = p.object_id and s.state in ('ready', 'reverting', 'deleting'))))`);
  return { opened: affected(opened), closed: affected(closed) };
}

/** Rows a statement changed: node-postgres says rowCount, PGlite affectedRows. */
function affected(res: unknown): number {
  const r = res as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
}
