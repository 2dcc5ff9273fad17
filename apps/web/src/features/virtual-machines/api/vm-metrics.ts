/**
 * A VM's metrics history for its graphs (GET /virtualMachines/metrics/:id?range=...). Minute points (1 h, 24 h) are
 * asked again each minute, hourly ones every five, an empty answer every 15 s; an answer that takes longer than 20 s ends in an error with a
 * retry rather than a spinner that never stops.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { GRAPH_TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import type { VmMetricsRange } from '@portal/contract/virtual-machines';
import { ApiError, callApi, type ApiData } from '../../../lib/api.ts';
import { routeKey } from '../../../lib/route-keys.ts';

/** The ranges the VM page offers: every range the route serves (90 d: all the hours the engine keeps). */
export type GraphRange = VmMetricsRange;
export const GRAPH_RANGES: readonly GraphRange[] = ['1h', '24h', '7d', '30d', '90d'];

export const METRICS_TIMEOUT_MS = 20_000;

export type VmMetricsData = ApiData<typeof routes.vms.metrics>;

/** The read's key and its call, shared by the hook and the page's prefetch (vm-page-prefetch.ts). */
export const vmMetricsKey = (id: number, range: GraphRange) =>
  routeKey(routes.vms.metrics, { params: { id }, query: { range } });
export async function fetchVmMetrics(
  id: number,
  range: GraphRange,
  signal: AbortSignal,
  options: { suppress401?: boolean } = {},
): Promise<VmMetricsData> {
  const timeout = AbortSignal.timeout(METRICS_TIMEOUT_MS);
  try {
    return await callApi(routes.vms.metrics, {
      params: { id },
      query: { range },
      signal: AbortSignal.any([signal, timeout]),
      ...options,
    });
  } catch (err) {
    if (timeout.aborted) throw new ApiError(0, GRAPH_TEXT.timedOut);
    throw err;
  }
}

export function useVmMetrics(id: number, range: GraphRange) {
  return useQuery<VmMetricsData, ApiError>({
    queryKey: vmMetricsKey(id, range),
    queryFn: ({ signal }) => fetchVmMetrics(id, range, signal),
    enabled: id > 0,
    placeholderData: keepPreviousData,
    // No point yet (a machine just started): asked again soon, so the first points appear without a reload.
    refetchInterval: (query) =>
      query.state.data?.range === range && query.state.data.points.length === 0
        ? 15_000
        : range === '1h' || range === '24h'
          ? 60_000
          : 300_000,
  });
}
