/**
 * Page, search and sort of a server-paged table, kept in the address (issue #12: reload, back and a shared
 * link return to the same view). A page with several tables gives each a `prefix` ("members" → members.page,
 * members.q, members.sort). Search resets the page and reaches the query debounced; the address is updated
 * with `replace`, so typing does not fill the history.
 */
import { useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { SEARCH_DEBOUNCE_MS } from '@portal/contract/constants';
import { useDebounced } from './use-debounced.ts';

export interface TableSort {
  column: string;
  descending: boolean;
}

/** The page in the address (also read by route loaders that prefetch a table's first read). */
export function parsePage(value: string | null): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : 1;
}

/** "name" ascending, "-name" descending. */
export function parseSort(value: string | null): TableSort | null {
  if (!value) return null;
  const descending = value.startsWith('-');
  const column = descending ? value.slice(1) : value;
  return column ? { column, descending } : null;
}

export function useTableState(delayMs: number = SEARCH_DEBOUNCE_MS, prefix = '') {
  const [params, setParams] = useSearchParams();
  const key = (name: string) => (prefix ? `${prefix}.${name}` : name);
  const page = parsePage(params.get(key('page')));
  const search = params.get(key('q')) ?? '';
  const sort = parseSort(params.get(key('sort')));

  // Two changes in one event (search, then page 1) must both land: each starts from the latest one.
  const latest = useRef(params);
  useLayoutEffect(() => {
    latest.current = params;
  }, [params]);
  const update = useCallback(
    (changes: Record<string, string | null>) =>
      setParams(
        () => {
          const next = new URLSearchParams(latest.current);
          for (const [name, value] of Object.entries(changes)) {
            const k = prefix ? `${prefix}.${name}` : name;
            if (value === null || value === '' || (name === 'page' && value === '1')) next.delete(k);
            else next.set(k, value);
          }
          latest.current = next;
          return next;
        },
        { replace: true },
      ),
    [setParams, prefix],
  );

  const trimmed = search.trim();
  const query = useMemo(() => ({ page, search: trimmed }), [page, trimmed]);
  const debounced = useDebounced(query, delayMs);
  return {
    page,
    setPage: (value: number) => update({ page: String(value) }),
    search,
    setSearch: (value: string) => update({ q: value, page: null }),
    sort,
    setSort: (value: TableSort | null) =>
      update({ sort: value ? `${value.descending ? '-' : ''}${value.column}` : null, page: null }),
    /** What the query should ask for (debounced). */
    query: debounced,
  };
}
