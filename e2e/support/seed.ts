/**
 * Seeding the e2e suites share: VMs created through the API waited on to a status, and the demo company's reseller
 * pricing the catalog's micro size (0.05 an hour, 5.00 a month) so that the month so far and the dashboard's spend
 * have something to show.
 */
import { eq } from 'drizzle-orm';
import { routes } from '@portal/contract/routes';
import { companies, configurationPrices } from '../../apps/api/src/db/schema.ts';
import type { TestClient } from '../../apps/api/test/harness.ts';
import { seededCatalog } from '../../apps/api/test/vm-catalog.ts';
import type { Portal } from './portal.ts';

/** Polls the VM's details (every 50 ms, `timeoutMs` at most: 30 s unless told) until it has `status`. */
export async function waitForStatus(admin: TestClient, id: number, status: string, timeoutMs = 30_000) {
  for (let i = 0; i < timeoutMs / 50; i++) {
    if ((await admin.call(routes.vms.details, { params: { id } })).data.status === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`VM ${id} is not ${status}`);
}

/** The seeded catalog (vm-catalog.ts), with micro priced by the demo company's reseller; and that company. */
export async function pricedCatalog(portal: Portal, admin: TestClient) {
  const [demo] = await portal.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const catalog = await seededCatalog(admin);
  await portal.db.insert(configurationPrices).values({
    resellerId: demo!.resellerId,
    configurationId: catalog.micro.id,
    hourlyPrice: '0.05',
    monthlyPrice: '5.00',
  });
  return { demo: demo!, catalog };
}
