/**
 * /reseller/usage: a month of usage of the reseller's companies (UTC), totals per company; a company opens to its
 * VMs × sizes × hours × amount, and the snapshots and backups it kept (GB-months × price; issue 24 item 4). The CSV
 * is the same figures, downloaded.
 */
import ChevronDown from 'lucide-react/icons/chevron-down';
import ChevronRight from 'lucide-react/icons/chevron-right';
import Download from 'lucide-react/icons/download';
import { Fragment, useState } from 'react';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useCompanyUsage, useResellerUsage, usageCsvUrl } from '../api/usage.ts';
import { MonthSelect } from '../components/MonthSelect.tsx';
import { lastClosedMonth } from '../components/month.ts';
import { ScrollRegion } from '../../../components/ui/ScrollRegion.tsx';
import type { CompanyUsage } from '@portal/contract/billing';

const cell = 'px-3 py-2';
const num = `${cell} text-right tabular-nums`;

const STORAGE_KIND_TEXT = { snapshot: 'Snapshots', backup: 'Backups' } as const;

function CompanyLines({ companyId, month, currency }: { companyId: number; month: string; currency: string }) {
  const detail = useCompanyUsage(companyId, month);
  if (detail.isPending) return <Spinner />;
  if (detail.error) return <p className="text-sm text-red-600">{errorMessage(detail.error)}</p>;
  const storage = detail.data.storageLines;
  return (
    <>
      {detail.data.lines.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No VM existed this month.</p>
      ) : (
        <VmLines lines={detail.data.lines} currency={currency} />
      )}
      {storage.length > 0 && (
        <table className="mt-3 w-full text-sm" aria-label="Storage usage">
          <thead className="text-xs uppercase text-slate-500 dark:text-slate-400">
            <tr>
              <th className={`${cell} text-left`}>VM</th>
              <th className={`${cell} text-left`}>Storage</th>
              <th className={`${cell} text-right`}>GB-months</th>
              <th className={`${cell} text-right`}>Per GB-month</th>
              <th className={`${cell} text-right`}>Amount ({currency})</th>
            </tr>
          </thead>
          <tbody>
            {storage.map((l) => (
              <tr key={`${l.vmId}-${l.kind}`} className="border-t border-slate-100 dark:border-slate-800">
                <td className={cell}>{l.vmName ?? '—'}</td>
                <td className={cell}>{STORAGE_KIND_TEXT[l.kind]}</td>
                <td className={num}>{l.gbMonths}</td>
                <td className={num}>{l.gbMonthPrice ?? '—'}</td>
                <td className={num}>{l.amount ?? 'no price'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function VmLines({ lines, currency }: { lines: CompanyUsage['lines']; currency: string }) {
  return (
    <table className="w-full text-sm" aria-label="VM usage">
      <thead className="text-xs uppercase text-slate-500 dark:text-slate-400">
        <tr>
          <th className={`${cell} text-left`}>VM</th>
          <th className={`${cell} text-left`}>Size</th>
          <th className={`${cell} text-right`}>Hours</th>
          <th className={`${cell} text-right`}>Hourly</th>
          <th className={`${cell} text-right`}>Monthly cap</th>
          <th className={`${cell} text-right`}>Amount ({currency})</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr key={`${l.vmId}-${l.configurationId}`} className="border-t border-slate-100 dark:border-slate-800">
            <td className={cell}>{l.vmName}</td>
            <td className={cell}>{l.configurationName}</td>
            <td className={num}>{l.hours}</td>
            <td className={num}>{l.hourlyPrice ?? '—'}</td>
            <td className={num}>{l.monthlyPrice ?? '—'}</td>
            <td className={num}>{l.amount ?? 'no price'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function UsagePage() {
  const [month, setMonth] = useState(lastClosedMonth);
  const [open, setOpen] = useState<number | null>(null);
  const usage = useResellerUsage(month);
  return (
    <PageLayout title="Usage" secondaryTitle="Hours each VM existed at each size, per company (UTC months)">
      <div className="mb-4 flex flex-wrap items-end gap-3">
        <label className="text-sm font-medium text-slate-700 dark:text-slate-300">
          Month
          <MonthSelect
            value={month}
            onChange={setMonth}
            className="mt-1 block rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900"
          />
        </label>
        <a
          href={usageCsvUrl(month)}
          download
          className="inline-flex items-center gap-2 rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-300"
        >
          <Download className="h-4 w-4" /> Download CSV
        </a>
      </div>
      {usage.isPending ? (
        <Spinner />
      ) : usage.error ? (
        <p className="text-sm text-red-600">{errorMessage(usage.error)}</p>
      ) : (
        <ScrollRegion
          label="Usage per company"
          className="rounded-lg border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900"
        >
          <table className="w-full text-sm" aria-label="Usage per company">
            <thead className="bg-slate-50 text-xs uppercase text-slate-600 dark:bg-slate-800 dark:text-slate-300">
              <tr>
                <th className={`${cell} text-left`}>Company</th>
                <th className={`${cell} text-right`}>VMs</th>
                <th className={`${cell} text-right`}>Hours</th>
                <th className={`${cell} text-right`}>VM amount ({usage.data.currency})</th>
                <th className={`${cell} text-right`}>Storage ({usage.data.currency})</th>
                <th className={`${cell} text-right`}>Total ({usage.data.currency})</th>
              </tr>
            </thead>
            <tbody>
              {usage.data.companies.length === 0 && (
                <tr>
                  <td colSpan={6} className={`${cell} text-center text-slate-500 dark:text-slate-400`}>
                    No companies yet.
                  </td>
                </tr>
              )}
              {usage.data.companies.map((c) => (
                <Fragment key={c.companyId}>
                  <tr className="border-t border-slate-100 dark:border-slate-800">
                    <td className={cell}>
                      <button
                        type="button"
                        aria-expanded={open === c.companyId}
                        onClick={() => setOpen(open === c.companyId ? null : c.companyId)}
                        className="inline-flex items-center gap-1 font-medium text-slate-800 hover:underline dark:text-slate-100"
                      >
                        {open === c.companyId ? (
                          <ChevronDown className="h-4 w-4" />
                        ) : (
                          <ChevronRight className="h-4 w-4" />
                        )}
                        {c.companyName}
                      </button>
                    </td>
                    <td className={num}>{c.vmCount}</td>
                    <td className={num}>{c.hours}</td>
                    <td className={num}>
                      {c.amount}
                      {c.unpricedLines > 0 && (
                        <span className="ml-1 text-xs text-amber-600">(+{c.unpricedLines} unpriced)</span>
                      )}
                    </td>
                    <td className={num}>
                      {c.storageAmount}
                      {c.unpricedStorageLines > 0 && (
                        <span className="ml-1 text-xs text-amber-600">(+{c.unpricedStorageLines} unpriced)</span>
                      )}
                    </td>
                    <td className={num}>{c.totalAmount}</td>
                  </tr>
                  {open === c.companyId && (
                    <tr>
                      <td colSpan={6} className="bg-slate-50 px-6 py-3 dark:bg-slate-800/50">
                        <CompanyLines companyId={c.companyId} month={month} currency={usage.data.currency} />
                        <a
                          href={usageCsvUrl(month, c.companyId)}
                          download
                          className="mt-2 inline-block text-sm text-brand-700 dark:text-brand-300 hover:underline"
                        >
                          Download this company's CSV
                        </a>
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
            <tfoot>
              <tr className="border-t-2 border-slate-200 font-semibold dark:border-slate-700">
                <td className={cell}>Total</td>
                <td className={num} />
                <td className={num}>{usage.data.hours}</td>
                <td className={num}>{usage.data.amount}</td>
                <td className={num}>{usage.data.storageAmount}</td>
                <td className={num}>{usage.data.totalAmount}</td>
              </tr>
            </tfoot>
          </table>
        </ScrollRegion>
      )}
    </PageLayout>
  );
}
