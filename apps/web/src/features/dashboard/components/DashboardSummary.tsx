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
    <section aria-label="VM Usage" className="rounded-lg border border-slate-200 bg-white shadow-sm">
      <div className="flex items-center gap-3 border-b border-slate-200 px-4 py-3">
        <BarChart3 className="h-5 w-5 text-brand-600" />
        <div>
          <h2 className="font-semibold text-slate-900">VM Usage</h2>
          <p className="text-sm text-slate-500">Virtual machines that existed in each period, by size</p>
        </div>
      </div>
      {data.isPending ? (
        <div className="flex justify-center py-10">
          <Spinner />
        </div>
      ) : data.error ? (
        <p role="alert" className="px-4 py-8 text-center text-sm text-red-600">
          {withDetail(ERRORS.fetchDashboard, errorMessage(data.error))}
        </p>
      ) : rows.length === 0 ? (
        <p className="px-4 py-8 text-center text-sm text-slate-500">No virtual machines yet this year</p>
      ) : (
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <thead className="bg-slate-50 text-slate-600">
            <tr>
              <th className="px-4 py-2.5 text-left font-medium">Name</th>
              <th className="hidden px-4 py-2.5 text-left font-medium md:table-cell">Configuration</th>
              <th className="px-4 py-2.5 text-center font-medium">Current Month</th>
              <th className="px-4 py-2.5 text-center font-medium">Previous Month</th>
              <th className="px-4 py-2.5 text-center font-medium">Year To Date</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map((r) => (
              <tr key={r.key} data-size={r.key}>
                <td className="px-4 py-2.5 font-medium text-slate-900">{r.name}</td>
                <td className="hidden px-4 py-2.5 text-slate-600 md:table-cell">{`${r.cpu} cores / ${r.ram} GB RAM / ${r.disk} GB disk`}</td>
                <td className="px-4 py-2.5 text-center">{r.current}</td>
                <td className="px-4 py-2.5 text-center">{r.previous}</td>
                <td className="px-4 py-2.5 text-center">{r.ytd}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
