/**
 * Usage for billing: a UTC month of one reseller's companies, as JSON, CSV and the webhook payload. Every query is
 * scoped by the staff member's reseller; a company of another reseller is "not found".
 */
import {
  BILLING_MESSAGES,
  BILLING_PAYLOAD_REVISION,
  BILLING_PAYLOAD_VERSION,
  USAGE_CSV_COLUMNS,
  type CompanyUsage,
  type ResellerUsage,
  type StorageUsageLine,
  type UsageLine,
} from '@portal/contract/billing';
import type { Clock } from '../../lib/clock.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { sumDecimals } from '../../db/priced-usage.ts';
import type { UsageRepository } from './usage.repository.ts';

/** First instant of the month and of the next one (UTC). `month` is a validated 'YYYY-MM'. */
export function monthRange(month: string): { from: Date; to: Date } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return { from: new Date(Date.UTC(y, m - 1, 1)), to: new Date(Date.UTC(y, m, 1)) };
}

/** The month before the one `now` is in (UTC), 'YYYY-MM'. */
export function previousMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

type Line = UsageLine & { companyId: number };
type StorageLine = StorageUsageLine & { companyId: number };

function totals(lines: Line[]) {
  return { hours: sumDecimals(lines.map((l) => l.hours)), amount: sumDecimals(lines.map((l) => l.amount)) };
}

/** Storage's additions: its amount, and the VMs' plus storage's (the VM fields keep their meaning). */
function storageTotals(lines: Line[], storage: StorageLine[]) {
  const storageAmount = sumDecimals(storage.map((l) => l.amount));
  return { storageAmount, totalAmount: sumDecimals([totals(lines).amount, storageAmount]) };
}

const storageKindColumn = { snapshot: 'snapshot_storage', backup: 'backup_storage' } as const;

/** One CSV field: quoted when it holds a comma, quote or line break; a leading = + - @ is defused (spreadsheets). */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function createUsageService(deps: { repo: UsageRepository; clock: Clock }) {
  const { repo, clock } = deps;

  async function window(resellerId: number, month: string, companyId?: number) {
    const reseller = await repo.reseller(resellerId);
    if (!reseller) throw new NotFoundError();
    const { from, to } = monthRange(month);
    const now = clock.now();
    const until = now < to ? now : to;
    const companies = await repo.companies(resellerId, companyId);
    if (companyId !== undefined && companies.length === 0) throw new NotFoundError(BILLING_MESSAGES.companyNotFound);
    const w = { resellerId, from, until, ...(companyId ? { companyId } : {}) };
    const [lines, storage]: [Line[], StorageLine[]] =
      until > from ? await Promise.all([repo.lines(w), repo.storageLines(w)]) : [[], []];
    return {
      reseller,
      companies,
      lines,
      storage,
      head: { month, from: from.toISOString(), to: to.toISOString(), currency: reseller.currency },
    };
  }

  function strip({ companyId: _c, ...line }: Line): UsageLine {
    return line;
  }
  function stripStorage({ companyId: _c, ...line }: StorageLine): StorageUsageLine {
    return line;
  }

  return {
    monthRange,

    async resellerUsage(resellerId: number, month: string): Promise<ResellerUsage> {
      const { companies, lines, storage, head } = await window(resellerId, month);
      const rows = companies.map((c) => {
        const mine = lines.filter((l) => l.companyId === c.id);
        const kept = storage.filter((l) => l.companyId === c.id);
        return {
          companyId: c.id,
          companyName: c.name,
          vmCount: new Set(mine.map((l) => l.vmId)).size,
          ...totals(mine),
          unpricedLines: mine.filter((l) => l.amount === null).length,
          ...storageTotals(mine, kept),
          unpricedStorageLines: kept.filter((l) => l.amount === null).length,
        };
      });
      return { ...head, companies: rows, ...totals(lines), ...storageTotals(lines, storage) };
    },

    async companyUsage(resellerId: number, companyId: number, month: string): Promise<CompanyUsage> {
      const { companies, lines, storage, head } = await window(resellerId, month, companyId);
      const company = companies[0]!;
      return {
        ...head,
        company: { id: company.id, name: company.name },
        lines: lines.map(strip),
        ...totals(lines),
        storageLines: storage.map(stripStorage),
        ...storageTotals(lines, storage),
      };
    },

    /** The CSV export: a header row, then one row per company × VM × size (companies by name). */
    async csv(resellerId: number, month: string, companyId?: number): Promise<string> {
      const { companies, lines, storage, head } = await window(resellerId, month, companyId);
      const rows = [USAGE_CSV_COLUMNS.join(',')];
      for (const c of companies) {
        for (const l of lines.filter((x) => x.companyId === c.id)) {
          rows.push(
            [
              month,
              c.id,
              c.name,
              l.vmId,
              l.vmName,
              l.configurationKey,
              l.configurationName,
              l.seconds,
              l.hours,
              l.hourlyPrice,
              l.monthlyPrice,
              l.amount,
              head.currency,
              'vm',
              null,
              null,
            ]
              .map(csvField)
              .join(','),
          );
        }
        for (const l of storage.filter((x) => x.companyId === c.id)) {
          rows.push(
            [
              month,
              c.id,
              c.name,
              l.vmId,
              l.vmName,
              null,
              null,
              null,
              null,
              null,
              null,
              l.amount,
              head.currency,
              storageKindColumn[l.kind],
              l.gbMonths,
              l.gbMonthPrice,
            ]
              .map(csvField)
              .join(','),
          );
        }
      }
      return `${rows.join('\r\n')}\r\n`;
    },

    /** The usage.month webhook payloads of a month: one per company (docs/billing-webhook.md). */
    async monthPayloads(resellerId: number, month: string, companyId?: number) {
      const { reseller, companies, lines, storage, head } = await window(resellerId, month, companyId);
      const createdAt = clock.now().toISOString();
      return companies.map((c) => {
        const mine = lines.filter((l) => l.companyId === c.id);
        const kept = storage.filter((l) => l.companyId === c.id);
        return {
          companyId: c.id,
          payload: {
            version: BILLING_PAYLOAD_VERSION,
            revision: BILLING_PAYLOAD_REVISION,
            event: 'usage.month',
            idempotencyKey: `usage.month:${reseller.id}:${c.id}:${month}`,
            createdAt,
            reseller: { id: reseller.id, externalId: reseller.externalId },
            company: { id: c.id, externalId: c.externalId, name: c.name },
            period: { month, from: head.from, to: head.to, closed: clock.now() >= monthRange(month).to },
            currency: head.currency,
            lines: mine.map(strip),
            storageLines: kept.map(stripStorage),
            totals: {
              vmCount: new Set(mine.map((l) => l.vmId)).size,
              ...totals(mine),
              ...storageTotals(mine, kept),
            },
          },
        };
      });
    },
  };
}
export type UsageService = ReturnType<typeof createUsageService>;
