/**
 * The activity screens' filters and page, kept in the address like every list of the portal (reload, back and a
 * shared link return to the same view). Changing a filter goes back to page 1; the address is replaced, not pushed.
 */
import { useSearchParams } from 'react-router';

export interface ActivityUrlFilters {
  userId?: number;
  action?: string;
  from?: string;
  to?: string;
  companyId?: number;
}

const positive = (v: string | null) => {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};
const day = (v: string | null) => (v && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined);

export function useActivityUrl() {
  const [params, setParams] = useSearchParams();
  const filters: ActivityUrlFilters = {
    ...(positive(params.get('user')) ? { userId: positive(params.get('user'))! } : {}),
    ...(params.get('action') ? { action: params.get('action')! } : {}),
    ...(day(params.get('from')) ? { from: day(params.get('from'))! } : {}),
    ...(day(params.get('to')) ? { to: day(params.get('to'))! } : {}),
    ...(positive(params.get('company')) ? { companyId: positive(params.get('company'))! } : {}),
  };
  const page = positive(params.get('page')) ?? 1;
  const names = { userId: 'user', action: 'action', from: 'from', to: 'to', companyId: 'company' } as const;

  const update = (changes: Record<string, string | undefined>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [k, v] of Object.entries(changes)) {
          if (v === undefined || v === '' || (k === 'page' && v === '1')) next.delete(k);
          else next.set(k, v);
        }
        return next;
      },
      { replace: true },
    );

  return {
    filters,
    page,
    /** The dates contradict each other: the screen says so instead of asking. */
    datesInvalid: !!filters.from && !!filters.to && filters.from > filters.to,
    active: Object.keys(filters).length > 0,
    setFilter: (name: keyof ActivityUrlFilters, value: string | undefined) =>
      update({ [names[name]]: value, page: undefined }),
    setPage: (value: number) => update({ page: String(value) }),
    clear: () =>
      update({
        user: undefined,
        action: undefined,
        from: undefined,
        to: undefined,
        company: undefined,
        page: undefined,
      }),
  };
}
