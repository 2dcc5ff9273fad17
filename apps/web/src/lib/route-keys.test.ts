/** Keys come from the route and its request; invalidating a route reaches all its entries and nothing else. */
import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { invalidateRoutes, removeRoute, routeKey } from './route-keys.ts';

function seeded() {
  const client = new QueryClient();
  const keys = {
    details1: routeKey(routes.vms.details, { params: { id: 1 } }),
    details2: routeKey(routes.vms.details, { params: { id: 2 } }),
    list: routeKey(routes.vms.list, { query: { page: 1, search: '' } }),
    teamsList: routeKey(routes.teams.list, { query: { page: 1 } }),
    teamDetails: routeKey(routes.teams.details, { params: { id: 1 } }),
  };
  for (const key of Object.values(keys)) client.setQueryData(key, { seeded: true });
  const stale = (key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated ?? null;
  return { client, keys, stale };
}

describe('route keys', () => {
  it('differ by params and query, and agree for equal requests whatever the key order', () => {
    expect(routeKey(routes.vms.details, { params: { id: 1 } })).not.toEqual(
      routeKey(routes.vms.details, { params: { id: 2 } }),
    );
    const client = new QueryClient();
    client.setQueryData(routeKey(routes.vms.list, { query: { page: 2, search: 'web' } }), 'cached');
    expect(client.getQueryData(routeKey(routes.vms.list, { query: { search: 'web', page: 2 } }))).toBe('cached');
    expect(routeKey(routes.vms.listCountries)).toEqual(['GET', '/virtualMachines/listCountries', null, null]);
  });

  it('invalidates every entry of the named routes and leaves other routes alone', async () => {
    const { client, keys, stale } = seeded();
    await invalidateRoutes(client, routes.vms.details, routes.vms.list);
    expect([stale(keys.details1), stale(keys.details2), stale(keys.list)]).toEqual([true, true, true]);
    // '/teams/:id' and '/teams/list' are different routes, not a prefix of each other.
    expect([stale(keys.teamsList), stale(keys.teamDetails)]).toEqual([false, false]);
    await invalidateRoutes(client, routes.teams.list);
    expect([stale(keys.teamsList), stale(keys.teamDetails)]).toEqual([true, false]);
  });

  it('removes one route from the cache', () => {
    const { client, keys } = seeded();
    removeRoute(client, routes.vms.details);
    expect(client.getQueryData(keys.details1)).toBeUndefined();
    expect(client.getQueryData(keys.list)).toEqual({ seeded: true });
  });
});
