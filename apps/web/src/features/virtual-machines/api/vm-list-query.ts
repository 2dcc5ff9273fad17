/**
 * The VM list's query as the address holds it (page, search, sort, filters) and its request: pure functions shared
 * by the list's hooks and its route loader's prefetch (vm-list-prefetch.ts), so both ask under one key.
 */
import { PAGE_SIZE, VM_STATUSES, type VmStatus } from '@portal/contract/constants';
import { parsePage, parseSort, type TableSort } from '../../../lib/use-table-state.ts';

/**
 * The columns the list sorts by: the contract's VM_SORT_COLUMNS, whose module brings zod (the entry must not), so
 * repeated here; vm-list-query.test.ts keeps the two equal.
 */
export const VM_LIST_SORT_COLUMNS = ['name', 'configuration'] as const;
export type VmListSortColumn = (typeof VM_LIST_SORT_COLUMNS)[number];

/** What the list asks for (useVmList). */
export interface VmListQuery {
  page: number;
  rowsPerPage: number;
  search: string;
  sortColumn?: VmListSortColumn | undefined;
  sortDescending?: boolean;
  /** The list's filters (issue 25 item 2). */
  status?: VmStatus | undefined;
  regionId?: number | undefined;
  teamId?: number | undefined;
}

const positiveId = (value: string | null): number | undefined => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The list's filters in the address (`status`, `region`, `team`); anything else there is no filter. */
export function vmListFiltersOf(params: URLSearchParams) {
  const raw = params.get('status');
  const status = (VM_STATUSES as readonly string[]).includes(raw ?? '') ? (raw as VmStatus) : undefined;
  return { status, regionId: positiveId(params.get('region')), teamId: positiveId(params.get('team')) };
}

/** A sort from the address is used only if the API knows its column. */
export const vmListSort = (sort: TableSort | null): { column: VmListSortColumn; descending: boolean } | null =>
  sort && (VM_LIST_SORT_COLUMNS as readonly string[]).includes(sort.column)
    ? { column: sort.column as VmListSortColumn, descending: sort.descending }
    : null;

/** GET /virtualMachines/list's request for a query: one function, so the hook and the prefetch share its key. */
export function vmListRequest(q: VmListQuery) {
  const { sortColumn, sortDescending, ...rest } = q;
  return {
    query: { ...rest, sortColumn, sortDescending: sortColumn ? (sortDescending ? 'true' : 'false') : undefined },
  } as const;
}

/** The list's query for an address, as the page builds it from useTableState and useVmListFilters. */
export function vmListQueryOf(params: URLSearchParams): VmListQuery {
  const sort = vmListSort(parseSort(params.get('sort')));
  return {
    page: parsePage(params.get('page')),
    search: (params.get('q') ?? '').trim(),
    rowsPerPage: PAGE_SIZE.virtualMachines,
    ...(sort ? { sortColumn: sort.column, sortDescending: sort.descending } : {}),
    ...vmListFiltersOf(params),
  };
}
