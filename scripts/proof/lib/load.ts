/** Shared pieces of the load-driven runs: percentiles, a status tally, and a few VMs to read. */
import { routes } from '@portal/contract/routes';
import type { ApiClient } from './client.ts';
import { sleep } from './portal.ts';

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function tally<T extends string | number>(values: T[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

export interface Catalog {
  regionId: number;
  providerId: number;
  micro: number;
  small: number;
}

/** The seeded catalog, read the way the portal's create form reads it (US East, Debian 12, micro). */
export async function readCatalog(admin: ApiClient): Promise<Catalog> {
  const countries = (await admin.call(routes.vms.listCountries)).data as { id: number; name: string }[];
  const us = countries.find((c) => c.name === 'United States') ?? countries[0]!;
  const regions = (await admin.call(routes.vms.listRegions, { params: { id: us.id } })).data as {
    id: number;
    name: string;
  }[];
  const region = regions.find((r) => r.name === 'US East') ?? regions[0]!;
  const configs = (
    await admin.call(routes.vms.fetchConfigurations, { params: { regionId: region.id }, query: { image: 'Debian 12' } })
  ).data as { id: number; key: string }[];
  const micro = configs.find((c) => c.key === 'micro') ?? configs[0]!;
  const small = configs.find((c) => c.key === 'small') ?? configs[1]!;
  const providers = (
    await admin.call(routes.vms.listProviders, {
      params: { regionId: region.id },
      query: { configurationId: micro.id },
    })
  ).data as { id: number }[];
  return { regionId: region.id, providerId: providers[0]!.id, micro: micro.id, small: small.id };
}

/** Creates `count` VMs through the API (10 per call), in `teamId` or outside any team. */
export async function createVms(
  client: ApiClient,
  catalog: Catalog,
  count: number,
  name: string,
  teamId: number | null = null,
): Promise<number[]> {
  const ids: number[] = [];
  let batch = 0;
  for (let left = count; left > 0; left -= 10) {
    const res = await client.call(routes.vms.create, {
      body: {
        regionId: catalog.regionId,
        image: 'Debian 12',
        configurationId: catalog.micro,
        providerId: catalog.providerId,
        name: `${name}-${++batch}`,
        numberOfInstances: Math.min(10, left),
        ...(teamId === null ? {} : { teamId }),
      },
    });
    if (res.status !== 200) throw new Error(`could not create VMs: ${res.status} ${res.message}`);
    ids.push(...(res.data as { ids: number[] }).ids);
  }
  return ids;
}

/** Waits until each VM reads `status` through the API. */
export async function waitForStatus(
  client: ApiClient,
  ids: number[],
  status: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const id of ids) {
    for (;;) {
      const res = await client.call(routes.vms.details, { params: { id } });
      if (
        res.status === 200 &&
        (res.data as { status: string; pendingOperation: string | null }).status === status &&
        !(res.data as { pendingOperation: string | null }).pendingOperation
      )
        break;
      if (Date.now() > deadline)
        throw new Error(
          `VM ${id} did not reach ${status} within ${timeoutMs} ms (${res.status} ${JSON.stringify(res.data)})`,
        );
      await sleep(100);
    }
  }
}
