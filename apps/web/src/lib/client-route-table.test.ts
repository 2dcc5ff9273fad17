/** The portal's schemaless route table (apps/web/route-table.ts) serves every route's method and path. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type * as RoutesModule from '@portal/contract/routes';
import { allRoutes, routes } from '@portal/contract/routes';
import { clientRouteTableSource } from '../../route-table.ts';

const dir = mkdtempSync(join(tmpdir(), 'route-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loadClientTable(): Promise<typeof RoutesModule> {
  const file = join(dir, 'routes.mjs');
  writeFileSync(file, await clientRouteTableSource());
  return (await import(/* @vite-ignore */ file)) as typeof RoutesModule;
}

describe('the portal route table', () => {
  it('has every route of the contract with its method and path, and builds paths the same way', async () => {
    const client = await loadClientTable();
    expect(client.allRoutes().map((r) => `${r.method} ${r.path}`)).toEqual(
      allRoutes().map((r) => `${r.method} ${r.path}`),
    );
    expect(client.routes.vms.details).toEqual({ method: 'GET', path: routes.vms.details.path });
    expect(client.buildPath(client.routes.vms.details.path, { id: 7 })).toBe(
      routes.vms.details.path.replace(':id', '7'),
    );
  });

  it('refuses to hand out a schema instead of returning undefined', async () => {
    const client = await loadClientTable();
    expect(() => client.routes.platform.sendSupportEmail.body).toThrow(/platform\.sendSupportEmail\.body/);
  });
});
