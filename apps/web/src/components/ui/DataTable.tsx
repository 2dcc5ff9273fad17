/**
 * The generic table of SPEC point 2: header (title, message, icon), search, refresh with a spinner that
 * stays at least ~300 ms after the reload ends (SPEC point 4), optional action, sortable headers,
 * "Page X of Y" paging, and loading / error / no-data states. Paging, search and sort are the caller's
 * (server-side); the table only reports changes.
 */
import ArrowDown from 'lucide-react/icons/arrow-down';
import ArrowUp from 'lucide-react/icons/arrow-up';
import ArrowUpDown from 'lucide-react/icons/arrow-up-down';
import RefreshCw from 'lucide-react/icons/refresh-cw';
import Search from 'lucide-react/icons/search';
import { useRef, useState, type ReactNode } from 'react';
import { REFRESH_SPINNER_MIN_MS } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';
import { Button } from './Button.tsx';
import { Spinner } from './Spinner.tsx';
import { ScrollRegion } from './ScrollRegion.tsx';

export interface Column<Row> {
  key: string;
  header: ReactNode;
  render: (row: Row) => ReactNode;
  sortable?: boolean;
  align?: 'left' | 'center' | 'right';
  /** Hidden on small screens. */
  hideOnSmall?: boolean;
  className?: string;
}

export interface SortState {
  column: string;
  descending: boolean;
}

export interface DataTableProps<Row> {
  title?: string;
  message?: string;
  icon?: ReactNode;
  columns: Column<Row>[];
  rows: Row[] | undefined;
  rowKey: (row: Row) => string | number;
  onRowClick?: (row: Row) => void;
  rowLabel?: (row: Row) => string;
  loading: boolean;
  error?: string | null;
  noDataMessage: string;
  search?: { value: string; onChange: (value: string) => void; placeholder?: string };
  onRefresh?: () => Promise<unknown> | void;
  action?: { label: string; onClick: () => void };
  page: number;
  totalPages: number;
  onPageChange: (page: number) => void;
  sort?: SortState | null;
  onSortChange?: (sort: SortState) => void;
  /** Shown between the header and the rows (a list's filters, a bulk-action bar). */
  toolbar?: ReactNode;
}

const alignClass = { left: 'text-left', center: 'text-center', right: 'text-right' } as const;

export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, rows, loading, error, page, totalPages } = props;
  const [refreshing, setRefreshing] = useState(false);
  const refreshRun = useRef(0);
  const shownPages = Math.max(1, totalPages);

  async function refresh() {
    if (!props.onRefresh) return;
    const run = ++refreshRun.current;
    setRefreshing(true);
    try {
      await props.onRefresh();
    } catch {
      // The query shows its own error; the spinner only has to stop.
    } finally {
      // SPEC point 4: the refreshing state stays at least REFRESH_SPINNER_MIN_MS after loading ends.
      await new Promise((r) => setTimeout(r, REFRESH_SPINNER_MIN_MS));
      if (run === refreshRun.current) setRefreshing(false);
    }
  }

  function toggleSort(column: string) {
    if (!props.onSortChange) return;
    const current = props.sort;
    props.onSortChange({ column, descending: current?.column === column ? !current.descending : false });
  }

  let body: ReactNode;
  if (loading && !rows) {
    body = (
      <div className="flex justify-center py-12">
        <Spinner label="Loading" />
      </div>
    );
  } else if (error) {
    // A failed load (the network gone, say) ends in its message and a way to try again, never a spinner.
    body = (
      <div role="alert" className="flex flex-col items-center gap-3 px-4 py-10 text-center">
        <p className="text-sm text-red-600 dark:text-red-400">{error}</p>
        {props.onRefresh && (
          <Button variant="secondary" onClick={() => void refresh()} disabled={refreshing}>
            {TEXT.tryAgain}
          </Button>
        )}
      </div>
    );
  } else if (!rows || rows.length === 0) {
    body = <p className="px-4 py-10 text-center text-sm text-slate-500 dark:text-slate-400">{props.noDataMessage}</p>;
  } else {
    body = (
      // Scrolls sideways on a phone, and can then be scrolled by keyboard too. Its name differs from the section's:
      // two landmarks of one name would be one too many.
      <ScrollRegion label={props.title ? `${props.title} table` : 'Table'}>
        <table className="min-w-full divide-y divide-slate-200 dark:divide-slate-700 text-sm">
          <thead className="bg-slate-50 dark:bg-slate-800/50">
            <tr>
              {columns.map((col) => {
                const active = props.sort?.column === col.key;
                return (
                  <th
                    key={col.key}
                    scope="col"
                    aria-sort={active ? (props.sort!.descending ? 'descending' : 'ascending') : undefined}
                    className={`px-4 py-2.5 font-medium text-slate-600 dark:text-slate-300 ${alignClass[col.align ?? 'left']} ${col.hideOnSmall ? 'hidden md:table-cell' : ''}`}
                  >
                    {col.sortable ? (
                      <button
                        type="button"
                        onClick={() => toggleSort(col.key)}
                        className="inline-flex items-center gap-1 hover:text-slate-900 dark:hover:text-slate-100"
                      >
                        {col.header}
                        {active ? (
                          props.sort!.descending ? (
                            <ArrowDown className="h-3.5 w-3.5" aria-label="sorted descending" />
                          ) : (
                            <ArrowUp className="h-3.5 w-3.5" aria-label="sorted ascending" />
                          )
                        ) : (
                          <ArrowUpDown className="h-3.5 w-3.5 text-slate-400" aria-hidden />
                        )}
                      </button>
                    ) : (
                      col.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800 bg-white dark:bg-slate-900">
            {rows.map((row) => (
              <tr
                key={props.rowKey(row)}
                onClick={props.onRowClick ? () => props.onRowClick!(row) : undefined}
                // A clickable row is keyboard-operable too: Tab reaches it, Enter or Space opens it.
                tabIndex={props.onRowClick ? 0 : undefined}
                onKeyDown={
                  props.onRowClick
                    ? (e) => {
                        if (e.target !== e.currentTarget || (e.key !== 'Enter' && e.key !== ' ')) return;
                        e.preventDefault();
                        props.onRowClick!(row);
                      }
                    : undefined
                }
                className={
                  props.onRowClick
                    ? 'cursor-pointer hover:bg-brand-50/60 focus-visible:bg-brand-50/60 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-600 dark:hover:bg-slate-800 dark:focus-visible:bg-slate-800'
                    : ''
                }
                aria-label={props.rowLabel?.(row)}
              >
                {columns.map((col) => (
                  <td
                    key={col.key}
                    className={`px-4 py-2.5 text-slate-700 dark:text-slate-300 ${alignClass[col.align ?? 'left']} ${col.hideOnSmall ? 'hidden md:table-cell' : ''} ${col.className ?? ''}`}
                  >
                    {col.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
    );
  }

  return (
    <section
      className="min-w-0 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
      aria-label={props.title}
    >
      {(props.title || props.search || props.onRefresh || props.action) && (
        <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 dark:border-slate-700 px-4 py-3">
          {props.icon && <span className="text-brand-600 dark:text-brand-300">{props.icon}</span>}
          {(props.title || props.message) && (
            <div className="min-w-0 flex-1">
              {props.title && <h2 className="font-semibold text-slate-900 dark:text-slate-100">{props.title}</h2>}
              {props.message && <p className="text-sm text-slate-500 dark:text-slate-400">{props.message}</p>}
            </div>
          )}
          {props.search && (
            <label className="relative block w-full sm:w-auto">
              <span className="sr-only">{props.search.placeholder ?? TEXT.searchDefault}</span>
              {/* sm:w-64: "Search team members..." was cut at w-56 (issue 25 defect 9). */}
              <Search className="pointer-events-none absolute left-2.5 top-2.5 h-4 w-4 text-slate-400" aria-hidden />
              <input
                type="search"
                value={props.search.value}
                placeholder={props.search.placeholder ?? TEXT.searchDefault}
                onChange={(e) => {
                  props.search!.onChange(e.target.value);
                  props.onPageChange(1);
                }}
                className="w-full rounded-md border bg-white dark:bg-slate-900 sm:w-64 border-slate-300 dark:border-slate-600 py-2 pl-8 pr-3 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
              />
            </label>
          )}
          {props.onRefresh && (
            <Button
              variant="secondary"
              onClick={() => void refresh()}
              aria-label="Refresh"
              disabled={refreshing}
              className="px-2.5"
            >
              <RefreshCw className={`h-4 w-4 ${refreshing ? 'motion-safe:animate-spin' : ''}`} aria-hidden />
              {refreshing && (
                <span className="sr-only" role="status">
                  Refreshing
                </span>
              )}
            </Button>
          )}
          {props.action && <Button onClick={props.action.onClick}>{props.action.label}</Button>}
        </div>
      )}
      {props.toolbar}
      {body}
      <div className="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 dark:border-slate-700 px-4 py-2.5 text-sm text-slate-600 dark:text-slate-300">
        <span>{TEXT.pageXofY(Math.min(page, shownPages), shownPages)}</span>
        <div className="flex gap-2">
          <Button
            variant="secondary"
            className="px-3 py-1.5"
            disabled={page <= 1}
            onClick={() => props.onPageChange(page - 1)}
          >
            Previous
          </Button>
          <Button
            variant="secondary"
            className="px-3 py-1.5"
            disabled={totalPages === 0 || page >= totalPages}
            onClick={() => props.onPageChange(page + 1)}
          >
            Next
          </Button>
        </div>
      </div>
    </section>
  );
}
