/**
 * Quotas (issue 22): what a company's or a team's live VMs take, and the check a create or upgrade makes in the
 * transaction that queues it. In db/ because three modules share it (VMs enforce, the reseller's companies and
 * the customer's teams show and set limits) and modules do not import each other.
 *
 * Race-free by one lock: a check that finds a limit takes the company row FOR NO KEY UPDATE (foreign-key inserts
 * of VMs still pass), then sums usage in a fresh statement, so racing creates of one company queue behind each
 * other and each sees the VMs the previous one committed. Limit changes take the same lock. A company with no
 * limit anywhere on the path skips the lock: its creates stay parallel.
 */
import { QUOTA_TEXT, quotaExceeded, type QuotaLimits, type QuotaUsage } from '@portal/contract/quotas';
import { VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from './client.ts';
import { companies, teams } from './schema.ts';

export const NO_USAGE: QuotaUsage = { vms: 0, vcpus: 0, ramGb: 0, diskGb: 0 };

const limitColumns = (t: typeof companies | typeof teams) => ({
  vms: t.maxVms,
  vcpus: t.maxVcpus,
  ramGb: t.maxRamGb,
  diskGb: t.maxDiskGb,
});

const limitValues = (l: QuotaLimits) => ({
  maxVms: l.vms,
  maxVcpus: l.vcpus,
  maxRamGb: l.ramGb,
  maxDiskGb: l.diskGb,
});

/** Writes a company's limits; the caller holds its row's lock (companyLimits(tx, id, true)). */
export async function setCompanyLimits(tx: Tx, companyId: number, limits: QuotaLimits): Promise<void> {
  await tx.update(companies).set(limitValues(limits)).where(eq(companies.id, companyId));
}

/** Writes a team's limits; the caller holds its company row's lock. */
export async function setTeamLimits(tx: Tx, companyId: number, teamId: number, limits: QuotaLimits): Promise<void> {
  await tx
    .update(teams)
    .set(limitValues(limits))
    .where(and(eq(teams.id, teamId), eq(teams.companyId, companyId)));
}

const hasLimit = (l: QuotaLimits) => l.vms !== null || l.vcpus !== null || l.ramGb !== null || l.diskGb !== null;

/** A company's limits; `lock` takes its row FOR NO KEY UPDATE (inside a transaction). Undefined if there is none. */
export async function companyLimits(db: Db | Tx, companyId: number, lock = false): Promise<QuotaLimits | undefined> {
  const q = db.select(limitColumns(companies)).from(companies).where(eq(companies.id, companyId));
  const [row] = await (lock ? q.for('no key update') : q);
  return row;
}

/** A team's limits, only if it belongs to the company. */
export async function teamLimits(db: Db | Tx, companyId: number, teamId: number): Promise<QuotaLimits | undefined> {
  const [row] = await db
    .select(limitColumns(teams))
    .from(teams)
    .where(and(eq(teams.id, teamId), eq(teams.companyId, companyId)));
  return row;
}

/** Each team of a company with its limits, by name. */
export function teamsWithLimits(db: Db | Tx, companyId: number) {
  return db
    .select({ id: teams.id, name: teams.name, ...limitColumns(teams) })
    .from(teams)
    .where(eq(teams.companyId, companyId))
    .orderBy(asc(sql`lower(${teams.name})`), asc(teams.id));
}

/**
 * Usage of a company's live VMs, grouped by team (null: the VMs in no team). A VM whose upgrade is queued or
 * running counts at the larger of its size and the target's, so two upgrades racing cannot pass a limit either.
 */
export async function usageByTeam(db: Db | Tx, companyId: number): Promise<Map<number | null, QuotaUsage>> {
  const resize = VM_ACTIONS.upgrade.operation;
  const rows = await db.execute<{
    team_id: number | null;
    vms: string | number;
    vcpus: string | number;
    ram: string | number;
    disk: string | number;
  }>(sql`
    select v.team_id, count(*) as vms,
      coalesce(sum(greatest(c.cpu, coalesce(t.cpu, 0))), 0) as vcpus,
      coalesce(sum(greatest(c.ram, coalesce(t.ram, 0))), 0) as ram,
      coalesce(sum(greatest(c.disk, coalesce(t.disk, 0))), 0) as disk
    from virtual_machines v
    join configurations c on c.id = v.configuration_id
    left join operations o on o.vm_id = v.id and o.status in ('pending', 'running') and o.kind = ${resize}
    left join configurations t on t.id = (o.payload ->> 'configurationId')::int
    where v.company_id = ${companyId} and v.deleted_at is null
    group by v.team_id`);
  const out = new Map<number | null, QuotaUsage>();
  for (const r of rows.rows) {
    out.set(r.team_id === null ? null : Number(r.team_id), {
      vms: Number(r.vms),
      vcpus: Number(r.vcpus),
      ramGb: Number(r.ram),
      diskGb: Number(r.disk),
    });
  }
  return out;
}

export function sumUsage(usages: Iterable<QuotaUsage>): QuotaUsage {
  const total = { ...NO_USAGE };
  for (const u of usages) {
    total.vms += u.vms;
    total.vcpus += u.vcpus;
    total.ramGb += u.ramGb;
    total.diskGb += u.diskGb;
  }
  return total;
}

/**
 * Refuses (the text of the 409) what `adding` would take past the company's or the team's limits; null when it
 * fits. Call inside the transaction that inserts the VMs or queues the upgrade, before it does.
 */
export async function quotaRefusal(
  tx: Tx,
  companyId: number,
  teamId: number | null,
  adding: QuotaUsage,
): Promise<string | null> {
  const company = await companyLimits(tx, companyId);
  const team = teamId === null ? undefined : await teamLimits(tx, companyId, teamId);
  if (!(company && hasLimit(company)) && !(team && hasLimit(team))) return null;
  // Locked, the limits are read again: one set meanwhile is the one that applies.
  const locked = (await companyLimits(tx, companyId, true))!;
  const byTeam = await usageByTeam(tx, companyId);
  const over = quotaExceeded(locked, sumUsage(byTeam.values()), adding);
  if (over) return QUOTA_TEXT.exceeded('company', over.key, over.limit, over.used, over.adding);
  if (teamId !== null) {
    const lockedTeam = await teamLimits(tx, companyId, teamId);
    const teamOver = lockedTeam && quotaExceeded(lockedTeam, byTeam.get(teamId) ?? NO_USAGE, adding);
    if (teamOver) return QUOTA_TEXT.exceeded('team', teamOver.key, teamOver.limit, teamOver.used, teamOver.adding);
  }
  return null;
}
