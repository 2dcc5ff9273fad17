/**
 * SQL for durable operations: record, claim under a lease, renew it, finish, and the one joined load of
 * everything an operation needs (VM, configuration, region, provider). Time comes from the injected
 * clock, never from SQL `now()`, so tests drive leases and backoff without sleeping.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import {
  DISK_REPLACING_KINDS,
  operationLane,
  operationSchema,
  type Operation,
  type OperationLane,
  type VmStatus,
} from '@portal/contract/vm-lifecycle';
import type { Db, Tx } from '../../db/client.ts';
import {
  companies,
  configurations,
  hosts,
  operations,
  publicAddresses,
  providers,
  regions,
  virtualMachines,
} from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordSizePeriod } from './size-periods.ts';

export type OperationRow = typeof operations.$inferSelect;
export type VmPatch = Partial<typeof virtualMachines.$inferInsert>;
export type OperationPatch = Partial<typeof operations.$inferInsert>;
/** One walk of a reconcile pass: a provider's provisioned VMs on one host (null: those without a host). */
export interface Walk {
  providerId: number;
  hostId: number | null;
}
/** Who holds a claim: a runner and the attempt it claimed (a claim taken over has a higher attempt). */
export interface Claim {
  op: OperationRow;
  workerId: string;
}

/** Unfinished operation statuses; the partial unique index allows one per VM. */
const ACTIVE = ['pending', 'running'] as const;
/** The VM has no unfinished operation. */
/** What the reconciler reads of an idle VM: its status as read (and when), its machine, its company (metrics). */
const IDLE_MACHINE = {
  id: virtualMachines.id,
  status: virtualMachines.status,
  updatedAt: virtualMachines.updatedAt,
  providerRef: virtualMachines.providerRef,
  companyId: virtualMachines.companyId,
};

/**
 * The VM's lifecycle slot is free. A take beside it (lane 'backup', decision 0025) writes no VM status, so the
 * reconciler and the suspension's sweep still follow the machine while one runs.
 */
const noActiveOperation = sql`not exists (select 1 from operations o where o.vm_id = ${virtualMachines.id} and o.status in ('pending', 'running') and o.lane = 'vm')`;

/** A stored row as the typed `{ kind, payload }` union; a row that does not fit is a permanent failure. */
export function parseOperation(row: Pick<OperationRow, 'kind' | 'payload'>): Operation {
  return operationSchema.parse({ kind: row.kind, payload: row.payload });
}

export function createOperationsRepository(db: Db, clock: Clock) {
  // Prepared once: it runs every 15 s on every instance, and planning its join took ~8 ms on a million VMs.
  const runningOfSuspended = db
    .select({ vm: virtualMachines })
    .from(virtualMachines)
    .innerJoin(companies, eq(companies.id, virtualMachines.companyId))
    .where(
      and(
        isNotNull(companies.suspendedAt),
        isNull(virtualMachines.deletedAt),
        eq(virtualMachines.status, 'Running'),
        noActiveOperation,
      ),
    )
    .orderBy(asc(virtualMachines.id))
    .prepare('running_of_suspended');
  const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;
  const heldBy = ({ op, workerId }: Claim) =>
    and(
      eq(operations.id, op.id),
      eq(operations.lockedBy, workerId),
      eq(operations.attempts, op.attempts),
      eq(operations.status, 'running'),
    );

  return {
    /** Records an operation, due now. */
    async insert(tx: Tx, values: { vmId: number; requestedByUserId: number | null } & Operation) {
      const [row] = await tx
        .insert(operations)
        .values({ ...values, lane: operationLane(values.kind), runAfter: clock.now() })
        .returning();
      return row!;
    },

    /** The status a VM shows while its newly recorded operation waits and runs. */
    async setStatus(tx: Tx, vmId: number, status: VmStatus) {
      await tx.update(virtualMachines).set({ status, updatedAt: clock.now() }).where(eq(virtualMachines.id, vmId));
    },

    async companySuspended(companyId: number): Promise<boolean> {
      const [row] = await db
        .select({ suspendedAt: companies.suspendedAt })
        .from(companies)
        .where(eq(companies.id, companyId));
      return (row?.suspendedAt ?? null) !== null;
    },

    /** A company's running VMs, oldest first (the suspension's stops, asked at once). */
    async ofCompanyRunning(companyId: number) {
      return db
        .select()
        .from(virtualMachines)
        .where(
          and(
            eq(virtualMachines.companyId, companyId),
            eq(virtualMachines.status, 'Running'),
            isNull(virtualMachines.deletedAt),
          ),
        )
        .orderBy(asc(virtualMachines.id));
    },

    /** Running VMs of suspended companies with no operation under way (the reconciler's suspension sweep). */
    async runningOfSuspendedCompanies() {
      return (await runningOfSuspended.execute()).map((r) => r.vm);
    },

    /** The VM's unfinished operation in this lane (default: its lifecycle slot). */
    async active(vmId: number, lane: OperationLane = 'vm') {
      const [row] = await db
        .select({ id: operations.id, kind: operations.kind })
        .from(operations)
        .where(and(eq(operations.vmId, vmId), eq(operations.lane, lane), inArray(operations.status, [...ACTIVE])))
        .limit(1);
      return row;
    },

    /** The VM row as it is now (an operation beside its lifecycle slot publishes it without changing it). */
    async vm(vmId: number) {
      const [row] = await db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId));
      return row ?? null;
    },

    /**
     * Takes the oldest due operation (or one whose lease ran out) with FOR UPDATE SKIP LOCKED. `working` are the
     * operations this runner is still working on: a lease of theirs that ran out (renewals lost in a database blip)
     * is not taken back by the very runner that holds it, which would run the same step twice at once.
     */
    async claim(workerId: string, leaseMs: number, working: readonly number[] = []): Promise<OperationRow | null> {
      const now = clock.now();
      const notMine = working.length
        ? sql`and id not in (${sql.join(
            working.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
      const [row] = await db
        .update(operations)
        .set({
          status: 'running',
          lockedBy: workerId,
          lockedUntil: new Date(now.getTime() + leaseMs),
          attempts: sql`${operations.attempts} + 1`,
        })
        .where(
          eq(
            operations.id,
            sql`(select id from operations
              where lane = 'vm' and ((status = 'pending' and run_after <= ${at(now)}) or (status = 'running' and locked_until < ${at(now)})) ${notMine}
              order by id limit 1 for update skip locked)`,
          ),
        )
        .returning();
      return row ?? null;
    },

    /**
     * Takes the oldest due operation beside the lifecycle slot (a backup take, decision 0025) whose host has fewer than
     * its limit of them running (the host's `backup_concurrency`, else `perHost`: decision 0027), and whose VM has no operation under way that replaces its disk (a restore, a revert,
     * a rebuild, a move, a delete: the take waits for it). Per host, the count and the claim are made under a lock of
     * the host's row (of the provider's, for VMs without a host), so instances racing for the last slot take it once.
     */
    async claimBeside(workerId: string, leaseMs: number, perHost: number, working: readonly number[] = []) {
      const now = clock.now();
      const notMine = working.length
        ? sql`and o.id not in (${sql.join(
            working.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
      const replacing = sql.join(
        DISK_REPLACING_KINDS.map((k) => sql`${k}`),
        sql`, `,
      );
      const due = await db.execute<{ id: number; host_id: number | null; provider_id: number }>(sql`
        select o.id, v.host_id, v.provider_id from operations o join virtual_machines v on v.id = o.vm_id
        where o.status = 'pending' and o.lane <> 'vm' and o.run_after <= ${at(now)} ${notMine}
          and not exists (select 1 from operations d where d.vm_id = o.vm_id and d.status in ('pending', 'running')
            and d.lane = 'vm' and d.kind in (${replacing}))
        order by o.id limit 50`);
      const full = new Set<string>();
      for (const candidate of due.rows) {
        const hostId = candidate.host_id === null ? null : Number(candidate.host_id);
        const providerId = Number(candidate.provider_id);
        const key = hostId === null ? `p${providerId}` : `h${hostId}`;
        if (full.has(key)) continue;
        const claimed = await db.transaction(async (tx) => {
          // The host's own limit (set by its operator or reseller, decision 0027), else the portal's.
          let limit = perHost;
          if (hostId === null) await tx.execute(sql`select id from providers where id = ${providerId} for update`);
          else {
            const host = await tx.execute<{ backup_concurrency: number | null }>(
              sql`select backup_concurrency from hosts where id = ${hostId} for update`,
            );
            const own = host.rows[0]?.backup_concurrency;
            if (own !== null && own !== undefined) limit = Number(own);
          }
          const onHost =
            hostId === null ? sql`v.host_id is null and v.provider_id = ${providerId}` : sql`v.host_id = ${hostId}`;
          const running = await tx.execute<{ n: number }>(sql`
            select count(*)::int as n from operations o join virtual_machines v on v.id = o.vm_id
            where o.status = 'running' and o.lane <> 'vm' and ${onHost}`);
          if (Number(running.rows[0]?.n ?? 0) >= limit) return 'full' as const;
          const [row] = await tx
            .update(operations)
            .set({
              status: 'running',
              lockedBy: workerId,
              lockedUntil: new Date(now.getTime() + leaseMs),
              attempts: sql`${operations.attempts} + 1`,
            })
            .where(and(eq(operations.id, Number(candidate.id)), eq(operations.status, 'pending')))
            .returning();
          return row ?? null;
        });
        if (claimed === 'full') full.add(key);
        else if (claimed) return claimed;
      }
      return null;
    },

    /**
     * Ends as failed the operations beside the lifecycle slot whose runner died mid-way (their lease ran out: kill -9
     * of the API, decision 0025): a take is never resumed half-known, it is reported interrupted. `working`: this
     * runner's own (a lease it could not renew in a database blip is still its). Answers the operations ended.
     */
    async endInterrupted(reason: string, working: readonly number[] = []) {
      const now = clock.now();
      const notMine = working.length
        ? sql`and ${operations.id} not in (${sql.join(
            working.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
      return db
        .update(operations)
        .set({ status: 'failed', lastError: reason, finishedAt: now, lockedBy: null, lockedUntil: null })
        .where(
          sql`${operations.lane} <> 'vm' and ${operations.status} = 'running' and ${operations.lockedUntil} < ${at(now)} ${notMine}`,
        )
        .returning();
    },

    /**
     * Extends a claim's lease; does nothing once the claim was lost. Never shortens it: two renewals in flight at once
     * (the runner's timer and another caller) may reach the database in either order, and the older one landing last
     * must not bring the end of the lease back (seen in a loaded test run: another runner then took the work over).
     */
    async renewLease(claim: Claim, leaseMs: number): Promise<void> {
      const until = new Date(clock.now().getTime() + leaseMs);
      await db
        .update(operations)
        .set({ lockedUntil: sql`greatest(${operations.lockedUntil}, ${at(until)})` })
        .where(heldBy(claim));
    },

    /**
     * Writes the outcome only if this very claim still holds the operation, together with the VM's new state
     * in one transaction (and its billing size period), so an operation never reads finished while its VM misses the result. Answers the
     * VM as written (null when the claim was lost, or when there was no VM change).
     */
    async finish(
      claim: Claim,
      patch: OperationPatch,
      vmPatch?: VmPatch,
    ): Promise<{ done: boolean; vm: typeof virtualMachines.$inferSelect | null }> {
      return db.transaction(async (tx) => {
        const done = await tx.update(operations).set(patch).where(heldBy(claim)).returning({ id: operations.id });
        if (done.length !== 1) return { done: false, vm: null };
        if (!vmPatch) return { done: true, vm: null };
        const [vm] = await tx
          .update(virtualMachines)
          .set({ ...vmPatch, updatedAt: clock.now() })
          .where(eq(virtualMachines.id, claim.op.vmId))
          .returning();
        // The billing periods follow the VM as written, in this same transaction (size-periods.ts).
        if (vm) await recordSizePeriod(tx, vm, clock.now());
        return { done: true, vm: vm ?? null };
      });
    },

    /** Everything an operation works with, in one query. */
    async target(vmId: number) {
      const [row] = await db
        .select({ vm: virtualMachines, config: configurations, region: regions.name, provider: providers, host: hosts })
        .from(virtualMachines)
        .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
        .innerJoin(regions, eq(regions.id, virtualMachines.regionId))
        .innerJoin(providers, eq(providers.id, virtualMachines.providerId))
        .leftJoin(hosts, eq(hosts.id, virtualMachines.hostId))
        .where(eq(virtualMachines.id, vmId));
      return row;
    },

    /**
     * Every (provider, host) pair that holds provisioned live VMs (host 0: none), in order: one index probe per pair
     * (a loose index scan of vms_provisioned_host_idx), so 100 hosts cost 100 probes whatever the number of VMs.
     */
    async reconcileWalks(): Promise<Walk[]> {
      const res = await db.execute<{ provider_id: number; host_key: number }>(sql`
        with recursive pairs(provider_id, host_key) as (
          (select provider_id, coalesce(host_id, 0) from virtual_machines
            where deleted_at is null and provider_ref is not null order by 1, 2 limit 1)
          union all
          select n.provider_id, n.host_key from pairs p cross join lateral (
            select v.provider_id, coalesce(v.host_id, 0) as host_key from virtual_machines v
            where v.deleted_at is null and v.provider_ref is not null
              and (v.provider_id, coalesce(v.host_id, 0)) > (p.provider_id, p.host_key)
            order by 1, 2 limit 1) n
        )
        select provider_id, host_key from pairs`);
      return res.rows.map((r) => ({ providerId: Number(r.provider_id), hostId: Number(r.host_key) || null }));
    },

    /**
     * One page of one walk's provisioned VMs in these statuses with no operation under way, in id order after
     * `afterId`, straight off vms_provisioned_host_idx: the reconciler reads a host's machines page by page.
     */
    idleMachines: (statuses: readonly VmStatus[], walk: Walk, afterId: number, pageSize: number) =>
      db
        // Only what the comparison and the conditional update need (a pass reads every idle VM: whole rows of five
        // tables cost the portal and PostgreSQL more than the rest of the pass; an adoption loads its target()).
        .select(IDLE_MACHINE)
        .from(virtualMachines)
        .where(
          and(
            isNull(virtualMachines.deletedAt),
            isNotNull(virtualMachines.providerRef),
            eq(virtualMachines.providerId, walk.providerId),
            sql`coalesce(${virtualMachines.hostId}, 0) = ${walk.hostId ?? 0}`,
            inArray(virtualMachines.status, [...statuses]),
            gt(virtualMachines.id, afterId),
            noActiveOperation,
          ),
        )
        .orderBy(asc(virtualMachines.id))
        .limit(pageSize),

    /**
     * The idle VMs among these machines of one host, as idleMachines reads them: the VMs a host's lifecycle events
     * named (the reconciler follows them alone, not the host's whole walk).
     */
    idleMachinesByRef: (statuses: readonly VmStatus[], walk: Walk, refs: readonly string[]) =>
      db
        .select(IDLE_MACHINE)
        .from(virtualMachines)
        .where(
          and(
            // The walk's own index range (vms_provisioned_host_idx), then its few rows compared by name.
            isNull(virtualMachines.deletedAt),
            isNotNull(virtualMachines.providerRef),
            eq(virtualMachines.providerId, walk.providerId),
            sql`coalesce(${virtualMachines.hostId}, 0) = ${walk.hostId ?? 0}`,
            inArray(virtualMachines.providerRef, [...refs]),
            inArray(virtualMachines.status, [...statuses]),
            noActiveOperation,
          ),
        )
        .orderBy(asc(virtualMachines.id)),

    /** The provider and host rows these walks name, by id (the reconciler picks each walk's driver from them). */
    async walkTargets(walks: readonly Walk[]) {
      const providerIds = [...new Set(walks.map((w) => w.providerId))];
      const hostIds = [...new Set(walks.flatMap((w) => (w.hostId ? [w.hostId] : [])))];
      const [providerRows, hostRows] = await Promise.all([
        providerIds.length ? db.select().from(providers).where(inArray(providers.id, providerIds)) : [],
        hostIds.length ? db.select().from(hosts).where(inArray(hosts.id, hostIds)) : [],
      ]);
      return {
        providers: new Map(providerRows.map((p) => [p.id, p])),
        hosts: new Map(hostRows.map((h) => [h.id, h])),
      };
    },

    /**
     * Changes a VM's status only if nothing changed it meanwhile; the VM as written, or null. With `readAt` (the
     * row's updatedAt when it was read), a status changed and changed back since (a stop, then a start) also counts
     * as a change: the reconciler holds a host's rows for a while before comparing them.
     */
    async setStatusIfUnchanged(vmId: number, expected: VmStatus, patch: VmPatch, readAt?: Date) {
      const [row] = await db
        .update(virtualMachines)
        .set({ ...patch, updatedAt: clock.now() })
        .where(
          and(
            eq(virtualMachines.id, vmId),
            eq(virtualMachines.status, expected),
            // Milliseconds: a row inserted with now() holds microseconds, which its Date lost when it was read.
            readAt ? sql`date_trunc('milliseconds', ${virtualMachines.updatedAt}) = ${at(readAt)}` : undefined,
          ),
        )
        .returning();
      return row ?? null;
    },

    async releasePublicAddress(vmId: number) {
      await db.update(publicAddresses).set({ vmId: null, allocatedAt: null }).where(eq(publicAddresses.vmId, vmId));
    },

    /**
     * The VM's machine is powered on and its guest booting (the driver's onBooting): Starting since `at`, while this
     * claim still holds the operation. The VM as written, or null when the claim was lost.
     */
    async markBooting(claim: Claim, at: Date) {
      const [row] = await db
        .update(virtualMachines)
        .set({ status: 'Starting', bootingSince: at, updatedAt: clock.now() })
        .where(
          and(
            eq(virtualMachines.id, claim.op.vmId),
            sql`exists (select 1 from operations o where o.id = ${claim.op.id} and o.locked_by = ${claim.workerId}
              and o.attempts = ${claim.op.attempts} and o.status = 'running')`,
          ),
        )
        .returning();
      return row ?? null;
    },

    /** Sets a VM's reason (why an action waits) without touching its status. */
    async setReason(vmId: number, errorReason: string) {
      const [row] = await db
        .update(virtualMachines)
        .set({ errorReason, updatedAt: clock.now() })
        .where(eq(virtualMachines.id, vmId))
        .returning();
      return row ?? null;
    },

    async configuration(id: number) {
      const [row] = await db.select().from(configurations).where(eq(configurations.id, id));
      return row;
    },
  };
}
export type OperationsRepository = ReturnType<typeof createOperationsRepository>;
export type OperationTarget = NonNullable<Awaited<ReturnType<OperationsRepository['target']>>>;
