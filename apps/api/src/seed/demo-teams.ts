/** Demo teams and users for a fresh install. Stub: being built. */
import type { Tx } from '../db/client.ts';

export async function seedDemoTeams(_tx: Tx, _ids: { companyId: number; adminUserId: number }): Promise<void> {}
