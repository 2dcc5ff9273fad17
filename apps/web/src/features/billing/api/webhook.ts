import { keepPreviousData } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.billing;

export const useWebhook = () => useRouteQuery(r.getWebhook);
export const useSaveWebhook = () => useRouteMutation(r.setWebhook, { invalidates: [r.getWebhook] });
export const useRotateSecret = () => useRouteMutation(r.rotateSecret, { invalidates: [r.getWebhook] });
export const useSendNow = () => useRouteMutation(r.sendNow, { invalidates: [r.deliveries] });
export const useRetryDelivery = () => useRouteMutation(r.retryDelivery, { invalidates: [r.deliveries] });

export function useDeliveries(page: number, rowsPerPage: number) {
  return useRouteQuery(r.deliveries, { query: { page, rowsPerPage } }, { placeholderData: keepPreviousData });
}
