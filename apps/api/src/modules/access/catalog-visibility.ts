/**
 * The one rule for what a reseller's customers may create (docs/decisions/0014-reseller-catalog.md), as SQL
 * conditions the customer's create-VM catalog, the create and upgrade checks and the reseller area all use:
 * - providers: the reseller's own (providers.reseller_id); while it has none, the platform's (reseller_id null);
 * - sizes: those the reseller prices and offers (configuration_prices.offered); while it has priced none, all;
 * - images: those of the region's pools the reseller has not withdrawn (image_withdrawals).
 */
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** Whether a provider row (its reseller_id column) serves the reseller's customers. */
export function providerServes(resellerId: number, providerResellerId: SQLWrapper): SQL {
  return sql`(${providerResellerId} = ${resellerId}
    or (${providerResellerId} is null and not exists (select 1 from providers own where own.reseller_id = ${resellerId})))`;
}

/** Whether a size (its configurations.id column) is offered to the reseller's customers. */
export function sizeOffered(resellerId: number, configurationId: SQLWrapper): SQL {
  return sql`(exists (select 1 from configuration_prices cp
      where cp.reseller_id = ${resellerId} and cp.configuration_id = ${configurationId} and cp.offered)
    or not exists (select 1 from configuration_prices cp where cp.reseller_id = ${resellerId}))`;
}

/**
 * Whether a region (its regions.id column) is listed to the reseller's customers: one of its own providers
 * offers something there; while it has none, every region is listed, as before resellers had providers.
 */
export function regionServed(resellerId: number, regionId: SQLWrapper): SQL {
  return sql`(not exists (select 1 from providers own where own.reseller_id = ${resellerId})
    or exists (select 1 from provider_offerings po join providers p on p.id = po.provider_id
      where po.region_id = ${regionId} and p.reseller_id = ${resellerId} and p.enabled))`;
}

/** Whether an image (its region id and name columns) is offered to the reseller's customers: not withdrawn by it. */
export function imageOffered(resellerId: number, regionId: SQLWrapper, image: SQLWrapper): SQL {
  return sql`not exists (select 1 from image_withdrawals iw
    where iw.reseller_id = ${resellerId} and iw.region_id = ${regionId} and iw.image = ${image})`;
}
