/**
 * What every feature module receives from app.ts, and the one shape each module has. Passed explicitly;
 * nothing is global. This lives in modules/ (not lib/) because it names the modules' shared services:
 * lib/ and plugins/ import nothing from modules/.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Database, Db, Tx } from '../db/client.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Engine } from '../engine/engine.ts';
import type { Access } from './access/access.ts';
import type { Audit } from '../lib/audit.ts';
import type { Clock } from '../lib/clock.ts';
import type { Random } from '../lib/crypto.ts';
import type { OneTimeTokens } from './auth/one-time-tokens.ts';
import type { SessionCache } from './auth/session-cache.ts';
import type { SessionStore } from './auth/session-store.ts';
import type { IdentityRepository } from './auth/identity.repository.ts';
import type { Metrics } from './platform/metrics.ts';
import type { ResellerHosts } from './branding/reseller-hosts.ts';
import type { BrandWriter } from './branding/brand-writer.ts';
import type { EgressPolicy } from '../lib/egress.ts';
import type { FirstAdminOutcome } from './operator/first-admin.ts';

export { scopeOf } from '../lib/auth-context.ts';

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
  /** This instance's cache of sessions and signed-in profiles (invalidated across instances). */
  sessionCache: SessionCache;
  identity: IdentityRepository;
  /**
   * The engine (engine/engine.ts): drivers, operations (enqueue, a company's stops), live events, hosts, the
   * engine's metrics. Built once in app.ts before any module; its workers are started and stopped by app.ts.
   */
  engine: Engine;
  /** Request counters and timings, installed on the app before the modules (the platform module serves them). */
  metrics: Metrics;
  /** Whether cookies carry the Secure flag (HTTPS). */
  cookieSecure: boolean;
  /** Portal root URL for mailed links. */
  portalUrl: string;
  /** Which reseller a request's host (a custom domain) belongs to, with its public brand (issue 13). */
  resellerHosts: ResellerHosts;
  /** The one save path of a reseller's brand fields (branding screen and reseller import), cache included. */
  brands: BrandWriter;
  /** The one rule for connections made on a tenant's behalf (public unicast + EGRESS_ALLOW, checked at connect). */
  egress: EgressPolicy;
  /** Fallback mail sender when a reseller has none. */
  defaultFrom: string;
  log: FastifyBaseLogger;
  /**
   * Invites a company's first administrator (a user with company administration and a mailed invitation): the
   * reseller area's company create and the operator's company import (modules/operator/first-admin.ts).
   */
  inviteCompanyAdmin: (
    db: Db | Tx,
    companyId: number,
    email: string,
    actorUserId?: number | null,
  ) => Promise<FirstAdminOutcome>;
}

/** A module's background work (runners, reconcilers, sweepers), started by server.ts and stopped on close. */
export interface Worker {
  start(): void;
  stop(): Promise<void>;
}

/** Every module registers itself the same way: its routes on the API scope, and its workers returned. */
export type RegisterModule = (api: FastifyInstance, deps: ModuleDeps) => Promise<Worker[]>;
