/** SQL of the branding screen's domains, always by the staff member's reseller id (brand fields: brand-writer.ts). */
import { and, asc, desc, eq, ne } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { resellerDomains } from '../../db/schema.ts';

export function createBrandingRepository(db: Db) {
  return {
    /** Primary first, then by host. */
    async domains(resellerId: number, tx: Db | Tx = db) {
      return tx
        .select({ host: resellerDomains.host, isPrimary: resellerDomains.isPrimary })
        .from(resellerDomains)
        .where(eq(resellerDomains.resellerId, resellerId))
        .orderBy(desc(resellerDomains.isPrimary), asc(resellerDomains.host));
    },
    /** Whose the host is, if anyone's. */
    async ownerOf(host: string): Promise<number | null> {
      const [row] = await db
        .select({ resellerId: resellerDomains.resellerId })
        .from(resellerDomains)
        .where(eq(resellerDomains.host, host));
      return row?.resellerId ?? null;
    },
    async insertDomain(tx: Tx, resellerId: number, host: string): Promise<void> {
      await tx.insert(resellerDomains).values({ host, resellerId, isPrimary: false });
    },
    /** Removes the reseller's domain; whether it was there and was the primary one. */
    async deleteDomain(tx: Tx, resellerId: number, host: string): Promise<{ isPrimary: boolean } | null> {
      const [row] = await tx
        .delete(resellerDomains)
        .where(and(eq(resellerDomains.resellerId, resellerId), eq(resellerDomains.host, host)))
        .returning({ isPrimary: resellerDomains.isPrimary });
      return row ?? null;
    },
    /** Makes `host` the reseller's only primary domain (the other one is cleared first: one primary per reseller). */
    async setPrimary(tx: Tx, resellerId: number, host: string): Promise<boolean> {
      await tx
        .update(resellerDomains)
        .set({ isPrimary: false })
        .where(and(eq(resellerDomains.resellerId, resellerId), ne(resellerDomains.host, host)));
      const updated = await tx
        .update(resellerDomains)
        .set({ isPrimary: true })
        .where(and(eq(resellerDomains.resellerId, resellerId), eq(resellerDomains.host, host)))
        .returning({ host: resellerDomains.host });
      return updated.length > 0;
    },
    /** The reseller's earliest-added remaining domain, to become primary when the primary one is removed. */
    async oldestDomain(tx: Tx, resellerId: number): Promise<string | null> {
      const [row] = await tx
        .select({ host: resellerDomains.host })
        .from(resellerDomains)
        .where(eq(resellerDomains.resellerId, resellerId))
        .orderBy(asc(resellerDomains.createdAt), asc(resellerDomains.host))
        .limit(1);
      return row?.host ?? null;
    },
  };
}
export type BrandingRepository = ReturnType<typeof createBrandingRepository>;
