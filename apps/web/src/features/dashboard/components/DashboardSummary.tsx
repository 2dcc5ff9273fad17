/** The dashboard summary: the VM Usage card (counts per size this month, last month, this year). */
import BarChart3 from 'lucide-react/icons/bar-chart-3';
import { VM_SIZES } from '@portal/contract/constants';
import { ERRORS, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';

export function DashboardSummary() {
  const data = useRouteQuery(routes.vms.dashboard);
  const rows = VM_SIZES.map((size) => ({
    ...size,
    current: data.data?.currentMonth[size.key] ?? 0,
    previous: data.data?.previousMonth[size.key] ?? 0,
    ytd: data.data?.ytd[size.key] ?? 0,
  })).filter((r) => r.current || r.previous || r.ytd);

  return (
    <section
      aria-label="VM Usage"
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <div className="flex items-center gap-3 border-b border-slate-200 dark:border-slate-700 px-4 py-3">
        <BarChart3 className="h-5 w-5 text-brand-600 dark:text-brand-300" />
        <div>
          <h2 className="font-semibold text-slate-900 dark:text-slate-100">VM Usage</h2>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            Virtual machines that existed in each period, by size
          </p>
        </div>
      </div>
      {data.isPending ? (
        <div className="flex justify-center py-10">
          <Spinner />
        </div>
      ) : data.error ? (
        <p role="alert" className="px-4 py-8 text-center text-sm text-red-600 dark:text-red-400">
          {withDetail(ERRORS.fetchDashboard, errorMessage(data.error))}
        </p>
      ) : (
        // SPEC point 2: the card keeps its table; with no VMs yet the empty message sits inside it (issue #12).
        <div className="relative overflow-x-auto">
          <table className="min-w-full divide-y divide-slate-200 dark:divide-slate-700 text-sm">
            <thead className="bg-slate-50 dark:bg-slate-800/50 text-slate-600 dark:text-slate-300">
              <tr>
                <th className="px-4 py-2.5 text-left font-medium">Name</th>
                <th className="hidden px-4 py-2.5 text-left font-medium md:table-cell">Configuration</th>
                <th className="px-4 py-2.5 text-center font-medium">Current Month</th>
                <th className="px-4 py-2.5 text-center font-medium">Previous Month</th>
                <th className="px-4 py-2.5 text-center font-medium">Year To Date</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {rows.length === 0 && (
                <tr>
                  <td colSpan={5} className="px-4 py-8 text-center text-sm text-slate-500 dark:text-slate-400">
                    No virtual machines yet this year
                  </td>
                </tr>
              )}
              {rows.map((r) => (
                <tr key={r.key} data-size={r.key}>
                  <td className="px-4 py-2.5 font-medium text-slate-900 dark:text-slate-100">{r.name}</td>
                  <td className="hidden px-4 py-2.5 text-slate-600 dark:text-slate-300 md:table-cell">{`${r.cpu} cores / ${r.ram} GB RAM / ${r.disk} GB disk`}</td>
                  <td className="px-4 py-2.5 text-center">{r.current}</td>
                  <td className="px-4 py-2.5 text-center">{r.previous}</td>
                  <td className="px-4 py-2.5 text-center">{r.ytd}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
