/**
 * Which reseller a request's host belongs to (issue 13, custom domains): the login page, the tab and the
 * sign-in rule read it before anyone is signed in. One indexed lookup per host, kept in memory for a short while
 * (a page load asks several times: index.html, the brand call, the sign-in). This instance forgets at once when
 * its staff edit a brand or a domain; other instances within HOST_CACHE_MS.
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { distributors, resellerDomains, resellers } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';

export interface HostBrand {
  resellerId: number;
  resellerName: string | null;
  logoUrl: string | null;
  tabLogoUrl: string | null;
  accentColor: string | null;
}

export interface ResellerHosts {
  /** The reseller (and its public brand) of a host; null for a host without a verified domain (SPEC's defaults). */
  resolve(host: string): Promise<HostBrand | null>;
  /** Drops every cached answer (after a brand or domain edit on this instance). */
  forget(): void;
}

/** How long another instance may keep showing a brand after an edit. */
export const HOST_CACHE_MS = 30_000;
/** Hosts are chosen by the client: the cache of unknown ones must not grow without bound. */
const MAX_HOSTS = 1000;

/** Lower-case, without port and trailing dot: `Acme.Example.TEST:8443` → `acme.example.test`. */
export function normaliseHost(raw: string): string {
  let host = raw.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1); // IPv6 literal: never a domain row
  const colon = host.indexOf(':');
  if (colon >= 0) host = host.slice(0, colon);
  return host.replace(/\.+$/, '');
}

export function createResellerHosts(deps: { db: Db; clock: Clock }): ResellerHosts {
  const cache = new Map<string, { brand: HostBrand | null; until: number }>();
  const byHost = deps.db
    .select({
      resellerId: resellers.id,
      resellerName: sql<string | null>`coalesce(${resellers.name}, ${distributors.name})`,
      logoUrl: sql<string | null>`coalesce(${resellers.logoUrl}, ${distributors.logoUrl})`,
      tabLogoUrl: sql<string | null>`coalesce(${resellers.tabLogoUrl}, ${distributors.tabLogoUrl})`,
      accentColor: resellers.accentColor,
    })
    .from(resellerDomains)
    .innerJoin(resellers, eq(resellers.id, resellerDomains.resellerId))
    .innerJoin(distributors, eq(distributors.id, resellers.distributorId))
    // A pending domain serves nothing (issue 21): its host shows the defaults and signs in anyone, as an unknown one.
    .where(and(eq(resellerDomains.host, sql.placeholder('host')), isNotNull(resellerDomains.verifiedAt)))
    .limit(1)
    .prepare('reseller_by_host');

  return {
    async resolve(rawHost) {
      const host = normaliseHost(rawHost);
      if (host === '') return null;
      const now = deps.clock.now().getTime();
      const hit = cache.get(host);
      if (hit && hit.until > now) return hit.brand;
      const [row] = await byHost.execute({ host });
      const brand = row ?? null;
      cache.delete(host);
      cache.set(host, { brand, until: now + HOST_CACHE_MS });
      if (cache.size > MAX_HOSTS) cache.delete(cache.keys().next().value as string);
      return brand;
    },
    forget() {
      cache.clear();
    },
  };
}
