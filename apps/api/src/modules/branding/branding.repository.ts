/**
 * SQL of the custom domains, always by reseller id (brand fields: brand-writer.ts). Writes that can move the
 * primary flag run after lockReseller, so two of them on one reseller take turns instead of deadlocking.
 */
import { and, asc, desc, eq, isNotNull, isNull, ne } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { resellerDomains, resellers } from '../../db/schema.ts';

const domainColumns = {
  host: resellerDomains.host,
  resellerId: resellerDomains.resellerId,
  isPrimary: resellerDomains.isPrimary,
  token: resellerDomains.verificationToken,
  verifiedAt: resellerDomains.verifiedAt,
  lastCheckedAt: resellerDomains.lastCheckedAt,
  lastCheckError: resellerDomains.lastCheckError,
};
export type DomainRow = {
  host: string;
  resellerId: number;
  isPrimary: boolean;
  token: string;
  verifiedAt: Date | null;
  lastCheckedAt: Date | null;
  lastCheckError: string | null;
};

export function createBrandingRepository(db: Db) {
  const ofReseller = (resellerId: number, host: string) =>
    and(eq(resellerDomains.resellerId, resellerId), eq(resellerDomains.host, host));
  return {
    /** Primary first, then by host. */
    async domains(resellerId: number, tx: Db | Tx = db): Promise<DomainRow[]> {
      return tx
        .select(domainColumns)
        .from(resellerDomains)
        .where(eq(resellerDomains.resellerId, resellerId))
        .orderBy(desc(resellerDomains.isPrimary), asc(resellerDomains.host));
    },
    /** Every domain (the operator's list), or one reseller's. */
    async allDomains(resellerId?: number): Promise<DomainRow[]> {
      return db
        .select(domainColumns)
        .from(resellerDomains)
        .where(resellerId === undefined ? undefined : eq(resellerDomains.resellerId, resellerId))
        .orderBy(asc(resellerDomains.resellerId), desc(resellerDomains.isPrimary), asc(resellerDomains.host));
    },
    /** The host's row, whoever holds it. */
    async claimOf(host: string, tx: Db | Tx = db): Promise<DomainRow | null> {
      const [row] = await tx.select(domainColumns).from(resellerDomains).where(eq(resellerDomains.host, host));
      return row ?? null;
    },
    /** Serialises a reseller's domain writes (NO KEY: inserts elsewhere that reference the reseller do not wait). */
    async lockReseller(tx: Tx, resellerId: number): Promise<boolean> {
      const rows = await tx
        .select({ id: resellers.id })
        .from(resellers)
        .where(eq(resellers.id, resellerId))
        .for('no key update');
      return rows.length > 0;
    },
    async insertDomain(tx: Tx, row: { resellerId: number; host: string; token: string; verifiedAt: Date | null }) {
      await tx.insert(resellerDomains).values({
        host: row.host,
        resellerId: row.resellerId,
        isPrimary: false,
        verificationToken: row.token,
        verifiedAt: row.verifiedAt,
        lastCheckedAt: row.verifiedAt,
      });
    },
    /** Removes another reseller's claim on `host` only while it is unproven; whether it did. */
    async deletePendingClaim(tx: Tx, host: string, resellerId: number): Promise<boolean> {
      const rows = await tx
        .delete(resellerDomains)
        .where(and(ofReseller(resellerId, host), isNull(resellerDomains.verifiedAt)))
        .returning({ host: resellerDomains.host });
      return rows.length > 0;
    },
    /** Removes the reseller's domain; whether it was there and was the primary one. */
    async deleteDomain(tx: Tx, resellerId: number, host: string): Promise<{ isPrimary: boolean } | null> {
      const [row] = await tx
        .delete(resellerDomains)
        .where(ofReseller(resellerId, host))
        .returning({ isPrimary: resellerDomains.isPrimary });
      return row ?? null;
    },
    /** Makes `host` the reseller's only primary domain (the other one is cleared first: one primary per reseller). */
    async setPrimary(tx: Tx, resellerId: number, host: string): Promise<void> {
      await tx
        .update(resellerDomains)
        .set({ isPrimary: false })
        .where(and(eq(resellerDomains.resellerId, resellerId), ne(resellerDomains.host, host)));
      await tx.update(resellerDomains).set({ isPrimary: true }).where(ofReseller(resellerId, host));
    },
    async hasPrimary(tx: Tx, resellerId: number): Promise<boolean> {
      const rows = await tx
        .select({ host: resellerDomains.host })
        .from(resellerDomains)
        .where(and(eq(resellerDomains.resellerId, resellerId), eq(resellerDomains.isPrimary, true)));
      return rows.length > 0;
    },
    /** The reseller's earliest-added verified domain, to become primary when the primary one goes. */
    async oldestVerifiedDomain(tx: Tx, resellerId: number): Promise<string | null> {
      const [row] = await tx
        .select({ host: resellerDomains.host })
        .from(resellerDomains)
        .where(and(eq(resellerDomains.resellerId, resellerId), isNotNull(resellerDomains.verifiedAt)))
        .orderBy(asc(resellerDomains.createdAt), asc(resellerDomains.host))
        .limit(1);
      return row?.host ?? null;
    },
    /** A reseller with a verified domain always has a primary one: the oldest verified, if none is. Which became it. */
    async ensurePrimary(tx: Tx, resellerId: number): Promise<string | null> {
      if (await this.hasPrimary(tx, resellerId)) return null;
      const host = await this.oldestVerifiedDomain(tx, resellerId);
      if (host) await this.setPrimary(tx, resellerId, host);
      return host;
    },
    /** Records a check: verified at `at` (error cleared), or the error it found; whether the row was pending. */
    async recordCheck(tx: Tx, resellerId: number, host: string, at: Date, error: string | null): Promise<boolean> {
      const rows = await tx
        .update(resellerDomains)
        .set(
          error === null
            ? { verifiedAt: at, lastCheckedAt: at, lastCheckError: null }
            : { lastCheckedAt: at, lastCheckError: error },
        )
        .where(and(ofReseller(resellerId, host), isNull(resellerDomains.verifiedAt)))
        .returning({ host: resellerDomains.host });
      return rows.length > 0;
    },
    /** Moves a host to another reseller (operator): it is not that reseller's primary until made so. */
    async moveDomain(tx: Tx, host: string, fromResellerId: number, toResellerId: number, token: string) {
      const rows = await tx
        .update(resellerDomains)
        .set({ resellerId: toResellerId, isPrimary: false, verificationToken: token })
        .where(ofReseller(fromResellerId, host))
        .returning({ host: resellerDomains.host });
      return rows.length > 0;
    },
  };
}
export type BrandingRepository = ReturnType<typeof createBrandingRepository>;
