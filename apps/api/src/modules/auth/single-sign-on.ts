/**
 * Single sign-on per company with OpenID Connect (issue 26 item 3; docs/single-sign-on.md).
 *
 * A company administrator configures the company's issuer, client and email domains (a domain is one company's
 * only); the client secret is sealed at rest. Sign-in: the email's domain names the company, the browser goes to
 * the issuer (authorization code + PKCE + state + nonce; the three are sealed into a short-lived cookie), and the
 * callback checks the ID token with openid-client, requires a verified email of the company's domains and an
 * EXISTING user of THAT company with that email (never created, never another company's), then starts a normal,
 * fully signed-in session: the identity provider's sign-in is the whole sign-in (no emailed code after it).
 * Every request to the issuer goes through the egress rule (lib/egress-fetch.ts): the issuer URL is tenant input.
 */
import { and, eq, inArray, ne } from 'drizzle-orm';
import * as oidc from 'openid-client';
import { RESET_TOKEN_TTL_MS } from '@portal/contract/constants';
import { API_MESSAGES } from '@portal/contract/messages';
import type { AuthUser } from '@portal/contract/auth';
import {
  SSO_FLOW_TTL_MS,
  SSO_TEXT,
  type SsoConnection,
  type SsoSaveBody,
  type ssoSaveBodySchema,
} from '@portal/contract/single-sign-on';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { companySso, companySsoDomains } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { EgressRefusedError, type EgressPolicy } from '../../lib/egress.ts';
import { createEgressFetch } from '../../lib/egress-fetch.ts';
import { BadRequestError, ConflictError, ForbiddenError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { SecretBox } from '../../lib/ssh-keys.ts';
import type { IdentityRepository } from './identity.repository.ts';
import type { OneTimeTokens } from './one-time-tokens.ts';
import type { NewSession, SessionStore } from './session-store.ts';
import { toAuthUser, type ClientInfo } from './auth.service.ts';

export interface SingleSignOnDeps {
  db: Db;
  identity: IdentityRepository;
  sessions: SessionStore;
  tokens: OneTimeTokens;
  clock: Clock;
  box: SecretBox;
  egress: EgressPolicy;
  audit?: Audit;
  /** The redirect URI: the portal's public URL + base path + SSO_CALLBACK_PATH. */
  redirectUri: string;
  /** OIDC_ALLOW_HTTP: plain http issuers (a provider on loopback in tests). */
  allowHttp: boolean;
  /** Logs why a sign-in failed (the user is told only that it did). */
  log?: { warn(obj: object, msg: string): void };
}

interface Flow {
  companyId: number;
  state: string;
  nonce: string;
  verifier: string;
  rememberMe: boolean;
  expiresAt: number;
}

type ConnectionRow = typeof companySso.$inferSelect;

/** The error a refused address became somewhere inside openid-client (it wraps what fetch throws). */
function egressRefusalIn(err: unknown): EgressRefusedError | null {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof EgressRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

export function domainOf(email: string): string {
  return email.trim().toLowerCase().split('@').pop() ?? '';
}

export function createSingleSignOn(deps: SingleSignOnDeps) {
  const { db, clock } = deps;
  const fetchThroughEgress = createEgressFetch(deps.egress, { timeoutMs: 10_000, maxBytes: 512 * 1024 });

  function requireAdmin(auth: AuthContext): void {
    if (!auth.isCompanyAdmin || auth.token) throw new ForbiddenError(SSO_TEXT.adminsOnly);
  }

  function checkScheme(issuer: string): void {
    if (new URL(issuer).protocol !== 'https:' && !deps.allowHttp) throw new BadRequestError(SSO_TEXT.issuerInsecure);
  }

  /** openid-client's view of an issuer: its discovery document, fetched through the egress rule. */
  async function discover(issuer: string, clientId: string, clientSecret: string): Promise<oidc.Configuration> {
    checkScheme(issuer);
    try {
      return await oidc.discovery(
        new URL(issuer),
        clientId,
        { client_secret: clientSecret },
        oidc.ClientSecretBasic(clientSecret),
        {
          [oidc.customFetch]: fetchThroughEgress as oidc.CustomFetch,
          timeout: 10,
          ...(deps.allowHttp ? { execute: [oidc.allowInsecureRequests] } : {}),
        },
      );
    } catch (err) {
      const refused = egressRefusalIn(err);
      if (refused) throw refused;
      deps.log?.warn({ err }, 'single sign-on: discovery failed');
      throw new BadRequestError(SSO_TEXT.issuerUnreachable);
    }
  }

  async function rowOf(companyId: number): Promise<ConnectionRow | undefined> {
    const [row] = await db.select().from(companySso).where(eq(companySso.companyId, companyId)).limit(1);
    return row;
  }
  async function domainsOf(companyId: number): Promise<string[]> {
    const rows = await db
      .select({ domain: companySsoDomains.domain })
      .from(companySsoDomains)
      .where(eq(companySsoDomains.companyId, companyId))
      .orderBy(companySsoDomains.domain);
    return rows.map((r) => r.domain);
  }
  async function connectionOf(companyId: number): Promise<SsoConnection | null> {
    const row = await rowOf(companyId);
    if (!row) return null;
    return {
      issuer: row.issuer,
      clientId: row.clientId,
      hasClientSecret: row.clientSecretSealed !== '',
      domains: await domainsOf(companyId),
      enabled: row.enabled,
      passwordsDisabled: row.passwordsDisabled,
      updatedAt: iso(row.updatedAt),
    };
  }
  const settingsOf = async (companyId: number) => ({
    connection: await connectionOf(companyId),
    redirectUri: deps.redirectUri,
  });
  /** What the audit keeps of a connection: never the secret. */
  const auditable = (c: SsoConnection | null) =>
    c && {
      issuer: c.issuer,
      clientId: c.clientId,
      domains: c.domains,
      enabled: c.enabled,
      passwordsDisabled: c.passwordsDisabled,
    };

  const sealFlow = (flow: Flow) => deps.box.seal(JSON.stringify(flow));
  function openFlow(sealed: string | undefined): Flow | null {
    if (!sealed) return null;
    try {
      const flow = JSON.parse(deps.box.open(sealed)) as Flow;
      return flow.expiresAt > clock.now().getTime() ? flow : null;
    } catch {
      return null;
    }
  }

  return {
    settings: async (auth: AuthContext) => {
      requireAdmin(auth);
      return settingsOf(auth.companyId);
    },

    async test(auth: AuthContext, issuer: string): Promise<{ issuer: string; authorizationEndpoint: string }> {
      requireAdmin(auth);
      const config = await discover(issuer, 'connection-test', 'connection-test');
      const meta = config.serverMetadata();
      return { issuer: meta.issuer, authorizationEndpoint: meta.authorization_endpoint ?? '' };
    },

    async save(auth: AuthContext, input: z.output<typeof ssoSaveBodySchema>, requestId?: string) {
      requireAdmin(auth);
      checkScheme(input.issuer);
      const before = await connectionOf(auth.companyId);
      const existing = await rowOf(auth.companyId);
      const secret = input.clientSecret?.trim() ? input.clientSecret.trim() : null;
      if (!secret && !existing) throw new BadRequestError(SSO_TEXT.secretRequired);
      const domains = [...new Set(input.domains)];
      const taken = await db
        .select({ domain: companySsoDomains.domain })
        .from(companySsoDomains)
        .where(and(inArray(companySsoDomains.domain, domains), ne(companySsoDomains.companyId, auth.companyId)))
        .limit(1);
      if (taken.length > 0) throw new ConflictError(SSO_TEXT.domainTaken);
      // Turned on only with an issuer that answers (through the egress rule).
      if (input.enabled)
        await discover(input.issuer, input.clientId, secret ?? deps.box.open(existing!.clientSecretSealed));
      const sealed = secret ? deps.box.seal(secret) : existing!.clientSecretSealed;
      const values = {
        issuer: input.issuer,
        clientId: input.clientId,
        clientSecretSealed: sealed,
        enabled: input.enabled,
        passwordsDisabled: input.passwordsDisabled,
        updatedAt: clock.now(),
      };
      try {
        await db.transaction(async (tx) => {
          await tx
            .insert(companySso)
            .values({ companyId: auth.companyId, ...values })
            .onConflictDoUpdate({ target: companySso.companyId, set: values });
          await tx.delete(companySsoDomains).where(eq(companySsoDomains.companyId, auth.companyId));
          await tx.insert(companySsoDomains).values(domains.map((domain) => ({ domain, companyId: auth.companyId })));
          const after = {
            ...auditable({ ...values, domains, hasClientSecret: true, updatedAt: '' }),
            secretChanged: secret !== null,
          };
          await deps.audit?.record(
            {
              companyId: auth.companyId,
              actorUserId: auth.userId,
              action: 'company.sso.update',
              targetType: 'company',
              targetId: auth.companyId,
              before: auditable(before),
              after,
              ...(requestId ? { requestId } : {}),
            },
            tx,
          );
        });
      } catch (err) {
        // Another company took one of the domains meanwhile: the primary key says so.
        const code =
          (err as { code?: string; cause?: { code?: string } }).code ??
          (err as { cause?: { code?: string } }).cause?.code;
        if (code === '23505') throw new ConflictError(SSO_TEXT.domainTaken);
        throw err;
      }
      return settingsOf(auth.companyId);
    },

    async disable(auth: AuthContext, requestId?: string) {
      requireAdmin(auth);
      const before = await connectionOf(auth.companyId);
      if (before?.enabled) {
        await db.transaction(async (tx) => {
          await tx
            .update(companySso)
            .set({ enabled: false, updatedAt: clock.now() })
            .where(eq(companySso.companyId, auth.companyId));
          await deps.audit?.record(
            {
              companyId: auth.companyId,
              actorUserId: auth.userId,
              action: 'company.sso.disable',
              targetType: 'company',
              targetId: auth.companyId,
              before: auditable(before),
              after: auditable({ ...before, enabled: false }),
              ...(requestId ? { requestId } : {}),
            },
            tx,
          );
        });
      }
      return settingsOf(auth.companyId);
    },

    /** A session the browser held before this sign-in ends (like the password sign-in's previous session). */
    endSession: (sessionId: string) => deps.sessions.destroy(sessionId),

    /**
     * Whether the user signs in through the company's identity provider only: single sign-on on, "passwords
     * disabled", and the user's email of one of its domains (an administrator of another domain keeps a password).
     */
    async passwordsDisabled(user: { companyId: number; email: string }): Promise<boolean> {
      const [row] = await db
        .select({ companyId: companySsoDomains.companyId })
        .from(companySsoDomains)
        .innerJoin(companySso, eq(companySso.companyId, companySsoDomains.companyId))
        .where(
          and(
            eq(companySsoDomains.domain, domainOf(user.email)),
            eq(companySsoDomains.companyId, user.companyId),
            eq(companySso.enabled, true),
            eq(companySso.passwordsDisabled, true),
          ),
        )
        .limit(1);
      return Boolean(row);
    },

    /** The first step: the identity provider's URL for the email's company, and the flow's sealed cookie. */
    async start(email: string, rememberMe: boolean): Promise<{ url: string; cookie: string }> {
      const [row] = await db
        .select({ companyId: companySsoDomains.companyId })
        .from(companySsoDomains)
        .innerJoin(companySso, eq(companySso.companyId, companySsoDomains.companyId))
        .where(and(eq(companySsoDomains.domain, domainOf(email)), eq(companySso.enabled, true)))
        .limit(1);
      const connection = row && (await rowOf(row.companyId));
      if (!connection) throw new BadRequestError(SSO_TEXT.notConfigured);
      const config = await discover(
        connection.issuer,
        connection.clientId,
        deps.box.open(connection.clientSecretSealed),
      );
      const verifier = oidc.randomPKCECodeVerifier();
      const flow: Flow = {
        companyId: connection.companyId,
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier,
        rememberMe,
        expiresAt: clock.now().getTime() + SSO_FLOW_TTL_MS,
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: deps.redirectUri,
        response_type: 'code',
        scope: 'openid email',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
        login_hint: email.trim().toLowerCase(),
      });
      return { url: url.href, cookie: sealFlow(flow) };
    },

    /**
     * The callback: the identity provider's answer (`query`, the callback's query string) checked against the
     * flow's cookie; on success a fully signed-in session for the matching user of the company.
     */
    async finish(input: {
      query: string;
      cookie: string | undefined;
      client: ClientInfo;
      requestId?: string;
    }): Promise<{ session: NewSession; user: AuthUser; rememberMe: boolean }> {
      const flow = openFlow(input.cookie);
      if (!flow) throw new BadRequestError(SSO_TEXT.failed);
      const connection = await rowOf(flow.companyId);
      if (!connection?.enabled) throw new BadRequestError(SSO_TEXT.failed);
      const config = await discover(
        connection.issuer,
        connection.clientId,
        deps.box.open(connection.clientSecretSealed),
      );
      const query = input.query.replace(/^\?/, '');
      let email: string;
      let verified: boolean;
      try {
        const tokens = await oidc.authorizationCodeGrant(config, new URL(`${deps.redirectUri}?${query}`), {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (!claims) throw new Error('no ID token');
        // A provider that keeps the ID token lean (as the specification's code flow does) answers userinfo.
        const source =
          typeof claims.email === 'string' ? claims : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        email = typeof source.email === 'string' ? source.email.trim().toLowerCase() : '';
        verified = source.email_verified === true;
      } catch (err) {
        const refused = egressRefusalIn(err);
        if (refused) throw refused;
        deps.log?.warn({ err }, 'single sign-on: the answer was refused');
        throw new BadRequestError(SSO_TEXT.failed);
      }
      if (!verified) throw new ForbiddenError(SSO_TEXT.emailNotVerified);
      const domains = await domainsOf(flow.companyId);
      if (!email || !domains.includes(domainOf(email))) throw new ForbiddenError(SSO_TEXT.noAccount);
      const user = await deps.identity.byEmail(email);
      // Only an existing user of this very company: never created, never another company's (whatever its IdP says).
      if (!user || user.companyId !== flow.companyId || user.staffRole !== null) {
        throw new ForbiddenError(SSO_TEXT.noAccount);
      }
      if (user.companySuspendedAt) throw new ForbiddenError(API_MESSAGES.companySuspended);
      const session = await deps.sessions.create({
        userId: user.id,
        state: 'authenticated',
        rememberMe: flow.rememberMe,
        ...input.client,
      });
      await deps.audit?.record({
        companyId: user.companyId,
        actorUserId: user.id,
        action: 'user.signIn.sso',
        targetType: 'user',
        targetId: user.id,
        after: { issuer: connection.issuer },
        ...(input.requestId ? { requestId: input.requestId } : {}),
      });
      const resetKey = user.forcePasswordReset
        ? await deps.tokens.issue(user.id, 'reset_password', RESET_TOKEN_TTL_MS)
        : null;
      return { session, user: toAuthUser(user, resetKey), rememberMe: flow.rememberMe };
    },
  };
}
export type SingleSignOn = ReturnType<typeof createSingleSignOn>;
export type { SsoSaveBody };
