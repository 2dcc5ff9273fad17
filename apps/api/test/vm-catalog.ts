/** The seeded catalog the VM tests create from, read through the API as the portal's create form reads it. */
import { routes } from '@portal/contract/routes';
import type { TestClient } from './harness.ts';

function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the seeded catalog has no ${what}`);
  return value;
}

/** US East, Debian 12, micro (and small to upgrade to) on the first provider offering micro there. */
export async function seededCatalog(client: TestClient) {
  const countries = (await client.call(routes.vms.listCountries)).data;
  const us = found(
    countries.find((c) => c.name === 'United States'),
    'United States',
  );
  const east = found(
    (await client.call(routes.vms.listRegions, { params: { id: us.id } })).data.find((r) => r.name === 'US East'),
    'US East',
  );
  const configs = (await client.call(routes.vms.listConfigurations)).data;
  const micro = found(
    configs.find((c) => c.key === 'micro'),
    'micro configuration',
  );
  const small = found(
    configs.find((c) => c.key === 'small'),
    'small configuration',
  );
  const provider = found(
    (
      await client.call(routes.vms.listProviders, {
        params: { regionId: east.id },
        query: { configurationId: micro.id },
      })
    ).data[0],
    'provider of micro in US East',
  );
  return {
    countries,
    us,
    east,
    configs,
    micro,
    small,
    provider,
    /** A create body for one micro Debian 12 VM in US East. */
    createBody: (name: string) => ({
      regionId: east.id,
      image: 'Debian 12',
      configurationId: micro.id,
      providerId: provider.id,
      name,
      numberOfInstances: 1,
    }),
  };
}
