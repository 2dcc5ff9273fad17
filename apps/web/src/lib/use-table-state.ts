/** Page + search state of a server-paged table; the search resets the page and reaches the query debounced. */
import { useState } from 'react';
import { SEARCH_DEBOUNCE_MS } from '@portal/contract/constants';
import { useDebounced } from './use-debounced.ts';

export function useTableState(delayMs: number = SEARCH_DEBOUNCE_MS) {
  const [page, setPage] = useState(1);
  const [search, setSearchText] = useState('');
  const debounced = useDebounced({ page, search: search.trim() }, delayMs);
  return {
    page,
    setPage,
    search,
    setSearch: (value: string) => {
      setSearchText(value);
      setPage(1);
    },
    /** What the query should ask for (debounced). */
    query: debounced,
  };
}
