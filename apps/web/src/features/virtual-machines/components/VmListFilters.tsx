/**
 * The VM list's filters (issue 25 item 2): status, region and team, kept in the address (`status`, `region`,
 * `team`) so reload, back and forward and a shared link keep them. A change is a new history entry (back undoes
 * it) and goes back to page 1. The regions and teams offered are those of the caller's VMs (GET listFacets).
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { VM_STATUSES } from '@portal/contract/vm-actions';
import { vmListFiltersOf } from '../api/vm-list-query.ts';
import { useVmFacets } from '../api/vms.ts';

export function useVmListFilters() {
  const [params, setParams] = useSearchParams();
  // Read as the route loader's prefetch reads them (vm-list-prefetch.ts), so the first page's key is the same.
  const { status, regionId, teamId } = vmListFiltersOf(params);
  const set = useCallback(
    (name: 'status' | 'region' | 'team', value: string) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        next.delete('page');
        return next;
      }),
    [setParams],
  );
  return { status, regionId, teamId, set, active: !!(status || regionId || teamId) };
}

const selectClass =
  'block w-full min-w-0 rounded-md border border-slate-300 bg-white py-1.5 pl-2 pr-6 text-sm text-slate-800 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-200 sm:w-44';

export function VmListFilters({ filters }: { filters: ReturnType<typeof useVmListFilters> }) {
  const facets = useVmFacets();
  const regions = facets.data?.regions ?? [];
  const teams = facets.data?.teams ?? [];
  return (
    <div
      role="group"
      aria-label="Filters"
      className="grid grid-cols-3 gap-2 border-b border-slate-200 px-4 py-2.5 dark:border-slate-700 sm:flex sm:flex-wrap sm:items-end"
    >
      <label className="block min-w-0 text-xs font-medium text-slate-600 dark:text-slate-300">
        Status
        <select
          className={`mt-1 ${selectClass}`}
          value={filters.status ?? ''}
          onChange={(e) => filters.set('status', e.target.value)}
        >
          <option value="">All</option>
          {VM_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="block min-w-0 text-xs font-medium text-slate-600 dark:text-slate-300">
        Region
        <select
          className={`mt-1 ${selectClass}`}
          value={filters.regionId ?? ''}
          onChange={(e) => filters.set('region', e.target.value)}
        >
          <option value="">All</option>
          {/* A region from the address that the caller's VMs are not in stays choosable, so the select shows it. */}
          {filters.regionId && !regions.some((r) => r.id === filters.regionId) && (
            <option value={filters.regionId}>{`Region ${filters.regionId}`}</option>
          )}
          {regions.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </select>
      </label>
      <label className="block min-w-0 text-xs font-medium text-slate-600 dark:text-slate-300">
        Team
        <select
          className={`mt-1 ${selectClass}`}
          value={filters.teamId ?? ''}
          onChange={(e) => filters.set('team', e.target.value)}
        >
          <option value="">All</option>
          {filters.teamId && !teams.some((t) => t.id === filters.teamId) && (
            <option value={filters.teamId}>{`Team ${filters.teamId}`}</option>
          )}
          {teams.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
