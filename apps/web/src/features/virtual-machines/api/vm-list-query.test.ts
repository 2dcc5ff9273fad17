/** The list's query from its address: what the route loader prefetches is what the list then asks for. */
import { describe, expect, it } from 'vitest';
import { PAGE_SIZE } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { VM_SORT_COLUMNS } from '@portal/contract/virtual-machines';
import { hashKey } from '@tanstack/react-query';
import { routeKey } from '../../../lib/route-keys.ts';
import { VM_LIST_SORT_COLUMNS, vmListQueryOf, vmListRequest } from './vm-list-query.ts';

const keyOf = (address: string) =>
  hashKey(routeKey(routes.vms.list, vmListRequest(vmListQueryOf(new URLSearchParams(address)))));

describe('the VM list query from the address', () => {
  it('sorts by the columns the API knows', () => {
    expect([...VM_LIST_SORT_COLUMNS]).toEqual([...VM_SORT_COLUMNS]);
  });

  it('asks for page 1 of everything by default, under the key the list page builds', () => {
    expect(vmListQueryOf(new URLSearchParams(''))).toEqual({
      page: 1,
      search: '',
      rowsPerPage: PAGE_SIZE.virtualMachines,
      status: undefined,
      regionId: undefined,
      teamId: undefined,
    });
    // The page's own request: table.query, rowsPerPage, no sort, the three filters unset (useVmList).
    const page = routeKey(routes.vms.list, {
      query: {
        page: 1,
        search: '',
        rowsPerPage: PAGE_SIZE.virtualMachines,
        status: undefined,
        regionId: undefined,
        teamId: undefined,
        sortColumn: undefined,
        sortDescending: undefined,
      },
    });
    expect(keyOf('')).toBe(hashKey(page));
  });

  it('reads page, search, sort and filters as the list does', () => {
    expect(
      vmListRequest(vmListQueryOf(new URLSearchParams('page=3&q=+web+&sort=-name&status=Stopped&region=2&team=7'))),
    ).toEqual({
      query: {
        page: 3,
        search: 'web',
        rowsPerPage: PAGE_SIZE.virtualMachines,
        sortColumn: 'name',
        sortDescending: 'true',
        status: 'Stopped',
        regionId: 2,
        teamId: 7,
      },
    });
    expect(vmListRequest(vmListQueryOf(new URLSearchParams('sort=configuration'))).query).toMatchObject({
      sortColumn: 'configuration',
      sortDescending: 'false',
    });
  });

  it('drops what the list drops: an unknown sort column or status, a region or team that is not an id', () => {
    expect(keyOf('sort=created&status=Sleeping&region=x&team=-1&page=0')).toBe(keyOf(''));
  });
});
