/** Building blocks shared by every area of the contract: the envelope, list paging, route declarations. */
import './zod-setup.ts';
import { z } from 'zod';
import { LIMITS, MAX_ROWS_PER_PAGE, PG_INT_MAX } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { SINGLE_LINE_PATTERN } from './validation.ts';

/** Every response body is `{ message, data }`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ message: z.string(), data });
}

/** The body of every error answer: a message and, for bad input, the field issues. */
export const errorBodySchema = z.object({
  message: z.string(),
  data: z
    .object({
      requestId: z.string().optional(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    })
    .nullable(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A database id in a path, query or body: 1..PG_INT_MAX (PostgreSQL `integer`), so an overflow is a 400, not a 500. */
export const idSchema = z.coerce
  .number({ error: 'Id must be a number' })
  .int('Id must be a whole number')
  .positive('Id must be positive')
  .max(PG_INT_MAX, VALIDATION.idTooLarge);
export const idParamsSchema = z.object({ id: idSchema });
export const timestampSchema = z.iso.datetime({ offset: true });

export const pageQueryFields = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  rowsPerPage: z.coerce.number().int().min(1).max(MAX_ROWS_PER_PAGE).default(10),
  search: z.string().trim().max(LIMITS.search).regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters).default(''),
};
/** The generic list query of SPEC point 3. */
export const listQuerySchema = z.object({
  ...pageQueryFields,
  excludeTeamId: idSchema.optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export function pagedSchema<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), totalPages: z.number().int().min(0) });
}

/** Accepts an empty payload: `{}` or no body at all. */
export const emptyBodySchema = z.object({}).strict().optional();

/** Who may call a route. */
export type RouteAccess =
  /** anyone */
  | 'public'
  /** a session whose password was accepted but whose emailed code is still due */
  | 'mfaPending'
  /** a fully signed-in portal user */
  | 'user'
  /** the platform operator's API token (never a portal session) */
  | 'operator'
  /** a fully signed-in member of a reseller's staff (the reseller area; issue 13) */
  | 'staff';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteDef {
  method: HttpMethod;
  /** Relative to the API base path; `:name` marks a path parameter. */
  path: string;
  summary: string;
  tag: string;
  access: RouteAccess;
  /** A signed-in user who must set a new password may still call it (the shell, the reset flow, logout). */
  allowDuringPasswordReset?: boolean;
  /**
   * Reseller staff may call it too ('user' routes only): the shell calls every signed-in screen makes (who am I,
   * refresh, password change). Every other 'user' route is the customer portal, which staff never use.
   */
  allowStaff?: boolean;
  /**
   * Not callable with a personal API token ('user' routes): the token routes themselves (a token cannot mint
   * tokens), password and second-factor changes, sign-out. docs/api-tokens.md.
   */
  sessionOnly?: boolean;
  /** Reveals a credential (a VM's password or private key): a read-only API token is refused it, like a write. */
  revealsSecret?: boolean;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Schema of `data` in the success envelope. */
  data: z.ZodType;
}

export function route<const T extends RouteDef>(def: T): T {
  return def;
}

export type RouteData<R extends RouteDef> = z.infer<R['data']>;
export type RouteBody<R extends RouteDef> = R['body'] extends z.ZodType ? z.input<R['body']> : never;
export type RouteQuery<R extends RouteDef> = R['query'] extends z.ZodType ? z.input<R['query']> : never;
