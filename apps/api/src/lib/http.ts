/**
 * Wires one contract route into Fastify: validation from the contract's schemas, the access rule,
 * rate limits, and the `{ message, data }` envelope. Handlers stay thin: parse, call a service, return.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { envelope, errorBodySchema, type RouteDef } from '@portal/contract/common';
import { API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { COMPANY_POLICY_TEXT, RESELLER_POLICY_TEXT } from '@portal/contract/company-policy';
import { API_MESSAGES } from '@portal/contract/messages';
import type { StaffRole } from '@portal/contract/permissions';
import type { AuthContext, StaffScope } from './auth-context.ts';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerContext<R extends RouteDef, A> {
  params: Out<R['params']>;
  query: Out<R['query']>;
  body: Out<R['body']>;
  auth: A;
  request: FastifyRequest;
  reply: FastifyReply;
}

export interface HandlerResult<R extends RouteDef> {
  message?: string;
  data: z.input<R['data']>;
  status?: number;
}

type AuthFor<R extends RouteDef> = R['access'] extends 'user' | 'mfaPending'
  ? AuthContext
  : R['access'] extends 'staff'
    ? StaffAuthContext
    : AuthContext | null;

/** A signed-in reseller staff member: what a 'staff' route's handler receives. */
export type StaffAuthContext = AuthContext & { state: 'authenticated'; staffRole: StaffRole };

export interface RouteOptions {
  /** Requests per minute per key; the key defaults to the client address. */
  rateLimit?: { max: number; keyGenerator?: (req: FastifyRequest) => string };
  /** A larger body than the app's LIMITS.bodyBytes, for the one route that needs it (the brand's image upload). */
  bodyLimit?: number;
}

export function registerRoute<R extends RouteDef>(
  app: FastifyInstance,
  def: R,
  handler: (ctx: HandlerContext<R, AuthFor<R>>) => Promise<HandlerResult<R>>,
  options: RouteOptions = {},
): void {
  const errorResponses = Object.fromEntries([400, 401, 403, 404, 409, 429, 500].map((s) => [s, errorBodySchema]));
  app.withTypeProvider<ZodTypeProvider>().route({
    method: def.method,
    url: def.path,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    schema: {
      summary: def.summary,
      tags: [def.tag],
      ...(def.params ? { params: def.params } : {}),
      ...(def.query ? { querystring: def.query } : {}),
      ...(def.body ? { body: def.body } : {}),
      ...(def.access === 'operator'
        ? { security: [{ operatorToken: [] }] }
        : def.access === 'public'
          ? {}
          : def.access === 'user' && !def.sessionOnly
            ? { security: [{ session: [] }, { bearerToken: [] }] }
            : { security: [{ session: [] }] }),
      response: { 200: envelope(def.data), ...errorResponses },
    },
    config: options.rateLimit
      ? {
          rateLimit: {
            max: options.rateLimit.max,
            timeWindow: 60_000,
            ...(options.rateLimit.keyGenerator ? { keyGenerator: options.rateLimit.keyGenerator } : {}),
          },
        }
      : { rateLimit: false },
    preHandler: (request, _reply, done) => {
      enforceAccess(def, request);
      done();
    },
    handler: async (request, reply) => {
      const result = await handler({
        params: request.params as Out<R['params']>,
        query: request.query as Out<R['query']>,
        body: request.body as Out<R['body']>,
        auth: request.auth as AuthFor<R>,
        request,
        reply: reply as FastifyReply,
      });
      if (result.status) (reply as FastifyReply).status(result.status);
      return { message: result.message ?? API_MESSAGES.ok, data: result.data };
    },
  });
}

function enforceAccess(def: RouteDef, request: FastifyRequest): void {
  if (request.auth?.token) enforceTokenAccess(def, request);
  switch (def.access) {
    case 'public':
      return;
    case 'operator':
      if (request.operatorTokenId === null) throw new UnauthorizedError('A valid operator API token is required');
      return;
    case 'mfaPending':
      if (!request.auth) throw new UnauthorizedError();
      return;
    case 'user':
      enforceUserAccess(request.auth, def.allowDuringPasswordReset === true, def.allowStaff === true);
      enforceTwoFactorSetUp(def, request.auth);
      return;
    case 'staff':
      enforceStaffAccess(request.auth);
      // The reseller's staff policy holds staff without a strong factor the same way (docs/two-factor.md).
      enforceTwoFactorSetUp(def, request.auth);
      return;
  }
}

/**
 * What a personal API token may call (docs/api-tokens.md): customer ('user') routes and public ones, never a
 * `sessionOnly` route (token routes, password and second-factor changes, and every 'user' or public route of the
 * sign-in flow: login, logout, shouldResetPassword, single sign-on; its mfaPending ones are not 'user' routes); a
 * read-only token only reads. No path rule: the contract's flag says it.
 */
function enforceTokenAccess(def: RouteDef, request: FastifyRequest): void {
  const token = request.auth!.token!;
  if (def.access !== 'user' && def.access !== 'public') throw new ForbiddenError(API_TOKEN_TEXT.sessionOnly);
  if (def.sessionOnly) throw new ForbiddenError(API_TOKEN_TEXT.sessionOnly);
  if (token.scope === 'read' && (def.method !== 'GET' || def.revealsSecret))
    throw new ForbiddenError(API_TOKEN_TEXT.readOnly);
}

/**
 * A company that requires an authenticator app (docs/two-factor.md "Company policy"): a user without one may call
 * only the set-up's routes, the shell's (those allowed during a forced password reset: check, logout, who am I)
 * and the company's policy, until the app is on.
 */
const TWO_FACTOR_SET_UP_PATHS = ['/users/twoFactor', '/users/passkeys'];
const TWO_FACTOR_SET_UP_READS = [...TWO_FACTOR_SET_UP_PATHS, '/company/policy', '/reseller/policy'];

function enforceTwoFactorSetUp(def: RouteDef, auth: AuthContext): void {
  if (!auth.mustSetUpTwoFactor || def.allowDuringPasswordReset) return;
  // An authenticator app or a passkey (docs/two-factor.md "Passkeys") lifts the hold.
  if ((def.method === 'GET' ? TWO_FACTOR_SET_UP_READS : TWO_FACTOR_SET_UP_PATHS).some((p) => def.path.startsWith(p)))
    return;
  // Staff are held by their reseller's policy: the message says so (docs/two-factor.md "Reseller staff policy").
  throw new ForbiddenError(
    auth.staffRole !== null ? RESELLER_POLICY_TEXT.setUpRequired : COMPANY_POLICY_TEXT.setUpRequired,
  );
}

/** The 'staff' access rule: signed in as reseller staff, past the code, no forced reset pending. */
export function enforceStaffAccess(auth: AuthContext | undefined | null): asserts auth is StaffAuthContext {
  enforceUserAccess(auth, false, true);
  if (auth.staffRole === null) throw new ForbiddenError(API_MESSAGES.staffOnly);
}

export function staffScopeOf(auth: StaffAuthContext): StaffScope {
  return { userId: auth.userId, resellerId: auth.resellerId, role: auth.staffRole, staffCompanyId: auth.companyId };
}

/**
 * The 'user' access rule, also for the few routes outside the contract (the live status stream): signed in,
 * past the code, not held to a forced password reset unless the route allows it (`allowDuringPasswordReset`), and
 * a customer user unless the route is one of the shell calls staff make too (`allowStaff`).
 */
export function enforceUserAccess(
  auth: AuthContext | undefined | null,
  allowDuringPasswordReset = false,
  allowStaff = false,
): asserts auth is AuthContext & { state: 'authenticated' } {
  if (!auth) throw new UnauthorizedError();
  if (auth.state !== 'authenticated') throw new UnauthorizedError(API_MESSAGES.mfaPending);
  if (auth.mustResetPassword && !allowDuringPasswordReset) throw new ForbiddenError(API_MESSAGES.passwordResetRequired);
  if (auth.staffRole !== null && !allowStaff) throw new ForbiddenError(API_MESSAGES.staffUseResellerArea);
}

/** Whether a re-read session may still hold what the 'user' rule opened (a live stream): no logout, no forced reset, no policy hold. */
export function stillUserAccess(
  auth: AuthContext | undefined | null,
): auth is AuthContext & { state: 'authenticated' } {
  return (
    auth?.state === 'authenticated' && !auth.mustResetPassword && auth.staffRole === null && !auth.mustSetUpTwoFactor
  );
}

/** ISO string for a database timestamp. */
export function iso(date: Date | string): string {
  return (date instanceof Date ? date : new Date(date)).toISOString();
}

export function totalPages(total: number, rowsPerPage: number): number {
  return Math.ceil(total / rowsPerPage);
}
