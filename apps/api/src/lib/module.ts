/** What every feature module receives from app.ts. Passed explicitly; nothing is global. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database, Db } from '../db/client.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Access } from '../modules/access/access.ts';
import type { Audit } from './audit.ts';
import type { Clock } from './clock.ts';
import type { Random } from './crypto.ts';
import type { AuthContext, TenantScope } from './auth-context.ts';
import type { OneTimeTokens } from '../modules/auth/one-time-tokens.ts';
import type { SessionStore } from '../modules/auth/session-store.ts';
import type { IdentityRepository } from '../modules/auth/identity.repository.ts';

export interface ModuleDeps {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  random: Random;
  secret: string;
  mailer: Mailer;
  access: Access;
  audit: Audit;
  tokens: OneTimeTokens;
  sessions: SessionStore;
  identity: IdentityRepository;
  /** Portal root URL for mailed links. */
  portalUrl: string;
  /** Fallback mail sender when a reseller has none. */
  defaultFrom: string;
  log: FastifyBaseLogger;
}

/** A module's background work (runners, reconcilers), started by server.ts and stopped on close. */
export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

export function scopeOf(auth: AuthContext): TenantScope {
  return { userId: auth.userId, companyId: auth.companyId, isCompanyAdmin: auth.isCompanyAdmin };
}
