/**
 * Which hosts a reseller may claim as a custom domain, and the proof it owes (issue 21). Never the platform's own
 * names (PUBLIC_URL's host, PLATFORM_HOSTS, localhost), never a public suffix (`com`, `co.uk`, `github.io`, from
 * the Public Suffix List in tldts) or an address; the rest wait for a DNS TXT record before they serve.
 */
import { isIP } from 'node:net';
import { parse } from 'tldts';
import { BRANDING_TEXT, verificationRecordOf, verifyFailedText } from '@portal/contract/reseller-branding';
import { keyedHash } from '../../lib/crypto.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';

/** The platform's own host names: PUBLIC_URL's (or the default localhost) and the operator's list. */
export function platformHostsOf(portalUrl: string, listed: readonly string[]): ReadonlySet<string> {
  return new Set([new URL(portalUrl).hostname.toLowerCase(), 'localhost', ...listed.map((h) => h.toLowerCase())]);
}

/** Why `host` (already lower-case, a DNS name by the contract) may not be claimed; null when it may. */
export function claimRefusal(host: string, platformHosts: ReadonlySet<string>): string | null {
  const parsed = parse(host, { allowPrivateDomains: true });
  if (isIP(host) !== 0 || parsed.isIp) return BRANDING_TEXT.hostAddress;
  // *.localhost resolves to this machine whatever the DNS says (RFC 6761).
  if (platformHosts.has(host) || host.endsWith('.localhost')) return BRANDING_TEXT.hostPlatform;
  // A suffix itself, or a name with no registrable domain: no single owner could prove it.
  if (!parsed.domain || parsed.publicSuffix === host) return BRANDING_TEXT.hostPublicSuffix;
  return null;
}

/**
 * The TXT value a reseller publishes for a host: keyed by the server secret, so it differs per reseller, per host
 * and per installation, and stays the same when the reseller adds the host again (decision 0012's addendum).
 */
export function domainToken(secret: string, resellerId: number, host: string): string {
  return keyedHash(secret, `domain-verify:${resellerId}:${host}`).slice(0, 32);
}

/** Looks for the host's record now: null when found, else the text the owner sees (and the row keeps). */
export async function checkRecord(txt: TxtLookup, host: string, token: string): Promise<string | null> {
  const record = verificationRecordOf(host, token);
  const answer = await txt(record.name);
  if (!answer.ok) return `The DNS lookup of ${record.name} failed (${answer.code}); try again in a few minutes`;
  return answer.values.some((v) => v.trim() === record.value) ? null : verifyFailedText(record);
}
