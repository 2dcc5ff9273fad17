import { keepPreviousData } from '@tanstack/react-query';
import { USAGE_CSV_PATH } from '@portal/contract/billing';
import { routes } from '@portal/contract/routes';
import { apiUrl } from '../../../lib/api.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';

export function useResellerUsage(month: string) {
  return useRouteQuery(routes.billing.usage, { query: { month } }, { placeholderData: keepPreviousData });
}

export function useCompanyUsage(companyId: number | null, month: string) {
  return useRouteQuery(
    routes.billing.companyUsage,
    { params: { id: companyId ?? 0 }, query: { month } },
    { enabled: companyId !== null },
  );
}

/** The CSV download (outside the JSON envelope): a plain link, the session cookie authorises it. */
export function usageCsvUrl(month: string, companyId?: number): string {
  const q = new URLSearchParams({ month, ...(companyId ? { companyId: String(companyId) } : {}) });
  return `${apiUrl(USAGE_CSV_PATH)}?${q.toString()}`;
}
