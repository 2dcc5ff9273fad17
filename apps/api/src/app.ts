/** Builds the Fastify app from explicit dependencies; server.ts starts it, tests inject into it. */
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import compress from '@fastify/compress';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { LIMITS } from '@portal/contract/constants';
import { type Config, publicUrl, trustProxyOption } from './config.ts';
import type { Database } from './db/client.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { cryptoRandom, type Random } from './lib/crypto.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { registerActivityModule } from './modules/activity/activity.module.ts';
import { registerAuthModule } from './modules/auth/auth.module.ts';
import { createIdentityRepository } from './modules/auth/identity.repository.ts';
import { createOneTimeTokens } from './modules/auth/one-time-tokens.ts';
import { createSessionStore } from './modules/auth/session-store.ts';
import { registerApiTokensModule } from './modules/api-tokens/api-tokens.module.ts';
import { createApiTokensRepository } from './modules/api-tokens/api-tokens.repository.ts';
import { createPersonalTokenResolver } from './modules/api-tokens/token-resolver.ts';
import { registerHealthModule } from './modules/health/health.routes.ts';
import { startSessionCache } from './modules/auth/auth-changes.ts';
import { forgetOnWrites, type SessionCache } from './modules/auth/session-cache.ts';
import { connectionOf } from './engine/vm-events.ts';
import { createEngine } from './engine/engine.ts';
import { createOperatorTokens } from './modules/operator/operator-tokens.ts';
import { inviteCompanyAdmin } from './modules/operator/first-admin.ts';
import { createAccess } from './modules/access/access.ts';
import { registerTeamsModule } from './modules/teams/teams.module.ts';
import { registerUsersModule } from './modules/users/users.module.ts';
import { registerVirtualMachinesModule } from './modules/virtual-machines/virtual-machines.module.ts';
import { registerCatalogModule } from './modules/catalog/catalog.module.ts';
import { registerSshKeysModule } from './modules/ssh-keys/ssh-keys.module.ts';
import { registerPlatformModule } from './modules/platform/platform.module.ts';
import { registerBillingModule } from './modules/billing/billing.module.ts';
import { registerResellerCompaniesModule } from './modules/reseller-companies/reseller-companies.module.ts';
import { createMetrics } from './modules/platform/metrics.ts';
import { registerBrandingModule } from './modules/branding/branding.module.ts';
import { createResellerHosts } from './modules/branding/reseller-hosts.ts';
import { createBrandWriter } from './modules/branding/brand-writer.ts';
import { createAudit } from './lib/audit.ts';
import { loggableError } from './lib/errors.ts';
import { serializeRequest } from './lib/log-redaction.ts';
import type { ModuleDeps, RegisterModule, Worker } from './modules/module.ts';
import { createProviderRegistry } from './providers/registry.ts';
import type { HostAccess } from './providers/libvirt/host-connection.ts';
import { createResellerKeys } from './engine/hosts/reseller-keys.ts';
import { createSecretBox } from './lib/ssh-keys.ts';
import { createEgressPolicy, type Resolver } from './lib/egress.ts';
import websocket from '@fastify/websocket';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerForwardedHost } from './plugins/forwarded-host.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { checksResponses, fastSerializerCompiler } from './plugins/fast-serializer.ts';
import { registerSecurityHeaders } from './plugins/security-headers.ts';
import { ensureCsrfCookie, registerSession } from './plugins/session.ts';
import { registerStaticWeb } from './plugins/static-web.ts';
import { registerWellFormedText } from './plugins/well-formed-text.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  secret: string;
  clock?: Clock;
  random?: Random;
  /** Fastify logger options; tests pass false. */
  logger?: boolean | object;
  /** Where the built web app lives; defaults to apps/web/dist. */
  webDistDir?: string;
  /** The egress policy's name resolver (tests answer names without DNS); defaults to the system's. */
  resolver?: Resolver;
}

export interface App {
  app: FastifyInstance;
  mailer: Mailer;
  /** The session cache (on PostgreSQL it follows `auth_changes`; tests wait for a notification to reach it). */
  sessionCache: SessionCache;
  /** Starts background workers (mail retries, …). */
  startWorkers(): void;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));

/** The feature modules, each registering its routes under the API base path and returning its workers. */
const MODULES: RegisterModule[] = [
  registerAuthModule,
  registerHealthModule,
  registerTeamsModule,
  registerUsersModule,
  registerVirtualMachinesModule,
  registerPlatformModule,
  registerBrandingModule,
  registerBillingModule,
  registerActivityModule,
  registerResellerCompaniesModule,
  registerCatalogModule,
  registerSshKeysModule,
  registerApiTokensModule,
];

type LoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

/** The server's logger settings (tests that read the log add a `stream`). */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // Never log credentials.
    redact: [
      'req.headers.cookie',
      'req.headers.authorization',
      'req.headers["x-csrf-token"]',
      'res.headers["set-cookie"]',
    ],
    // Nor the keys some URLs carry (the console's token, mailed links): lib/log-redaction.ts.
    serializers: { req: serializeRequest },
    hooks: {
      // A failed query's message and params hold its bound values (sign-in codes, tokens): wherever one
      // is logged as `{ err }` or as the error itself, only its SQL text and database code/message go out.
      logMethod(args, method) {
        const [first, ...rest] = args as unknown[];
        if (first instanceof Error) {
          const safe = loggableError(first);
          if (safe !== first)
            return method.apply(this, [{ err: safe }, ...(rest.length > 0 ? rest : ['query failed'])] as Parameters<
              typeof method
            >);
        } else if (first !== null && typeof first === 'object' && 'err' in first) {
          const safe = loggableError((first as { err: unknown }).err);
          if (safe !== (first as { err: unknown }).err)
            return method.apply(this, [{ ...first, err: safe }, ...rest] as Parameters<typeof method>);
        }
        return method.apply(this, args);
      },
    },
  };
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database } = deps;
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? cryptoRandom;
  const db = database.db;
  const cookieSecure = config.COOKIE_SECURE ?? config.PUBLIC_URL?.startsWith('https://') ?? false;

  const app = Fastify({
    logger: deps.logger ?? loggerOptions(config.LOG_LEVEL),
    // Errors, warnings and the app's own lines still log at LOG_LEVEL; the per-request pair only when asked.
    logController: new LogController({ disableRequestLogging: !config.LOG_REQUESTS }),
    bodyLimit: LIMITS.bodyBytes,
    // Off unless configured: otherwise any client could pick its own address with X-Forwarded-For
    // and step around every per-address rate limit.
    trustProxy: trustProxyOption(config.TRUST_PROXY),
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  });
  // First of all hooks: the host every later reader sees (plugins/forwarded-host.ts).
  registerForwardedHost(app, { trust: config.TRUST_FORWARDED_HOST });
  app.setValidatorCompiler(validatorCompiler);
  // The contract's zod check on every answer in tests; a compiled serializer of the same schema in production.
  app.setSerializerCompiler(checksResponses(config.RESPONSE_CHECK) ? serializerCompiler : fastSerializerCompiler);
  // Hooks that never wait take `done` rather than being async: no promise per request on every call.
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader('x-request-id', request.id);
    done();
  });
  registerErrorHandling(app);
  registerWellFormedText(app);
  const metrics = createMetrics();
  metrics.install(app);

  registerSecurityHeaders(
    app,
    {
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'https:'],
          styleSrc: ["'self'", "'unsafe-inline'"],
          scriptSrc: ["'self'"],
          connectSrc: ["'self'"],
          frameSrc: ["'self'"],
          frameAncestors: ["'self'"],
          upgradeInsecureRequests: null,
        },
      },
      strictTransportSecurity: cookieSecure,
    },
    { apiBasePath: config.API_BASE_PATH },
  );
  // Answers above 1 KB go out compressed (issue #12). The live event stream is hijacked and never buffered
  // here; static files are sent precompressed by plugins/static-web.ts (already encoded, so skipped).
  await app.register(compress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    customTypes: /^(application\/json|text\/html|text\/css|text\/plain|application\/javascript|image\/svg\+xml)/,
  });
  await app.register(cookie);
  // The console's VNC and serial relays (modules/virtual-machines/console-socket.ts).
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => ({ statusCode: 429, message: 'Too many requests. Please wait and try again.' }),
  });
  await registerOpenApi(app, config.API_BASE_PATH);

  const mailer = createMailer({ db, smtpUrl: config.SMTP_URL, log: app.log });
  const sessionCache = await startSessionCache({
    enabled: config.SESSION_CACHE,
    clock,
    connection: database.pool ? connectionOf(database.pool) : null,
    pool: database.pool,
    log: app.log,
  });
  forgetOnWrites(app, sessionCache.cache);
  const sessions = createSessionStore({ db, secret: deps.secret, clock, random, cache: sessionCache.cache });
  const operatorTokens = createOperatorTokens({ db, secret: deps.secret, random });
  const identity = createIdentityRepository(db);
  const tokens = createOneTimeTokens({ db, secret: deps.secret, clock, random });

  const resellerHosts = createResellerHosts({ db, clock });
  const brands = createBrandWriter({ db, resellerHosts, sessionCache: sessionCache.cache });

  const personalTokens = createPersonalTokenResolver({ repo: createApiTokensRepository(db), clock });
  registerSession(app, {
    sessions,
    operatorTokens,
    personalTokens,
    bearerFailuresPerMinute: config.AUTH_RATE_LIMIT_PER_MINUTE,
    cookieSecure,
    apiBasePath: config.API_BASE_PATH,
  });

  const egress = createEgressPolicy({
    allow: config.EGRESS_ALLOW,
    ...(deps.resolver ? { lookup: deps.resolver } : {}),
  });
  // Reseller hosts are reached through the egress policy, with each reseller's portal key (issue 21).
  const resellerKeys = createResellerKeys({ db, secrets: createSecretBox(deps.secret) });
  const hostAccess: HostAccess = {
    egress: { resolveAllowed: (host) => egress.resolveAllowed(host) },
    allowTcp: config.RESELLER_HOST_TCP,
    resellerKey: (resellerId) => resellerKeys.get(resellerId),
  };
  const audit = createAudit(db);
  // QEMU machines live beside the embedded database, so they outlive a restart of the portal.
  const registry = createProviderRegistry({}, { simulatorStepMs: config.SIMULATOR_STEP_MS, clock }, hostAccess);
  // The engine, once, before any module: modules reach it through ModuleDeps `engine` (engine/engine.ts).
  const engine = await createEngine({
    config,
    database,
    clock,
    audit,
    secret: deps.secret,
    registry,
    hostAccess: { egress, allowTcp: config.RESELLER_HOST_TCP },
    resellerKeys,
    log: app.log,
  });
  const moduleDeps: ModuleDeps = {
    config,
    database,
    db,
    clock,
    random,
    secret: deps.secret,
    mailer,
    access: createAccess(db),
    audit,
    tokens,
    sessions,
    sessionCache: sessionCache.cache,
    identity,
    engine,
    metrics,
    cookieSecure,
    portalUrl: publicUrl(config),
    defaultFrom: config.MAIL_FROM ?? 'portal@localhost',
    resellerHosts,
    brands,
    egress,
    log: app.log,
    inviteCompanyAdmin: (tx, companyId, email, actorUserId = null) =>
      inviteCompanyAdmin(
        tx,
        { tokens, mailer, audit, portalUrl: publicUrl(config), defaultFrom: config.MAIL_FROM ?? 'portal@localhost' },
        companyId,
        email,
        actorUserId,
      ),
  };
  const workers: Worker[] = [];
  await app.register(
    async (api) => {
      for (const register of MODULES) workers.push(...(await register(api, moduleDeps)));
    },
    { prefix: config.API_BASE_PATH },
  );

  await registerStaticWeb(app, {
    distDir: deps.webDistDir ?? resolve(here, '../../web/dist'),
    basePath: config.BASE_PATH,
    apiBasePath: config.API_BASE_PATH,
    serveSourceMaps: config.SERVE_SOURCE_MAPS,
    // The tab is the reseller's before any script runs (issue 13, custom domains).
    brandOf: (host) => resellerHosts.resolve(host),
    onPage: (req, reply) => ensureCsrfCookie(req, reply, cookieSecure),
  });

  return {
    app,
    mailer,
    sessionCache: sessionCache.cache,
    startWorkers() {
      mailer.start();
      engine.start();
      for (const w of workers) w.start();
    },
    async close() {
      for (const w of workers) await w.stop();
      await engine.stop();
      // The hosts' virsh sessions (they would end on their own after a minute idle, or with the portal).
      registry.close();
      await app.close();
      await sessionCache.stop();
      await mailer.stop();
    },
  };
}
