/**
 * Personal API tokens as callers (docs/api-tokens.md): `Authorization: Bearer vmp_…` becomes the token's user,
 * narrowed by the token's scope. Nothing is cached: every call reads the token row (one indexed read by the
 * secret's SHA-256, joined with its user and company), so a revocation or an expiry is refused at once on every
 * instance, and a suspended company's or a changed user's tokens follow the database.
 */
import { createHash } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { API_TOKEN_PREFIX } from '@portal/contract/api-tokens';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ApiTokensRepository } from './api-tokens.repository.ts';

/** The last-used time and address are written at most this often per token (and whenever the address changes). */
const TOUCH_EVERY_MS = 60_000;

export type TokenResolution = { auth: AuthContext } | { refused: 'invalid' | 'address' };

export interface PersonalTokenResolver {
  resolve(secret: string, ip: string): Promise<TokenResolution>;
}

/** The stored form of a secret: its SHA-256 (a 256-bit random secret needs no salt or slow hash). */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether `ip` is in the allow-list (empty: anywhere). IPv4-mapped IPv6 addresses count as their IPv4 address. */
export function addressAllowed(allowList: readonly string[], ip: string): boolean {
  if (allowList.length === 0) return true;
  const address = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (!family) return false;
  const list = new BlockList();
  for (const entry of allowList) {
    const [net = '', bits] = entry.split('/');
    const type = isIPv4(net) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(net, type);
    else list.addSubnet(net, Number(bits), type);
  }
  return list.check(address, family);
}

export function createPersonalTokenResolver(deps: { repo: ApiTokensRepository; clock: Clock }): PersonalTokenResolver {
  return {
    async resolve(secret, ip) {
      if (!secret.startsWith(API_TOKEN_PREFIX) || secret.length > 200) return { refused: 'invalid' };
      const row = await deps.repo.byHash(hashTokenSecret(secret));
      const now = deps.clock.now();
      if (
        !row ||
        row.revokedAt !== null ||
        row.expiresAt.getTime() <= now.getTime() ||
        row.suspendedAt !== null ||
        row.staffRole !== null ||
        row.tokenCompanyId !== row.companyId
      )
        return { refused: 'invalid' };
      if (!addressAllowed(row.ipAllowList, ip)) return { refused: 'address' };
      if (
        row.lastUsedAt === null ||
        now.getTime() - row.lastUsedAt.getTime() >= TOUCH_EVERY_MS ||
        row.lastUsedIp !== ip
      )
        await deps.repo.touch(row.id, now, ip);
      return {
        auth: {
          sessionId: `token:${row.id}`,
          state: 'authenticated',
          rememberMe: false,
          userId: row.userId,
          companyId: row.companyId,
          email: row.email,
          isCompanyAdmin: row.isCompanyAdmin,
          resellerId: row.resellerId,
          staffRole: null,
          mustResetPassword: row.mustResetPassword,
          mustSetUpTwoFactor: Boolean(row.mustSetUpTwoFactor),
          token: {
            id: row.id,
            name: row.name,
            scope: row.scope,
            teamIds: row.scope === 'act' && row.teamIds && row.teamIds.length > 0 ? row.teamIds : null,
          },
        },
      };
    },
  };
}
