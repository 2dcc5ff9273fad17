/** The VM catalog seed (countries, regions, images, configurations, providers). Stub: being built. */
import type { Db } from '../db/client.ts';

/** Seeds the catalog when it is empty; safe to call on every start. */
export async function seedCatalog(_db: Db): Promise<void> {}
