/** Typed errors; one handler (plugins/errors.ts) maps them to statuses and the envelope. */
import { API_MESSAGES } from '@portal/contract/messages';

export class AppError extends Error {
  /** Response headers that go with the answer (e.g. Retry-After). */
  headers?: Record<string, string>;
  constructor(
    readonly statusCode: number,
    message: string,
    readonly issues?: { path: string; message: string }[],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The same error, answered with these headers too. */
  withHeaders(headers: Record<string, string>): this {
    this.headers = { ...this.headers, ...headers };
    return this;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string = API_MESSAGES.invalidRequest, issues?: { path: string; message: string }[]) {
    super(400, message, issues);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message: string = API_MESSAGES.notAuthenticated) {
    super(401, message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message: string = API_MESSAGES.forbidden) {
    super(403, message);
  }
}
export class NotFoundError extends AppError {
  constructor(message: string = API_MESSAGES.notFound) {
    super(404, message);
  }
}
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(message: string = API_MESSAGES.tooManyRequests) {
    super(429, message);
  }
}
/** Something the answer depends on (mail, the database) is down for now: try again later. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(503, message);
    this.withHeaders({ 'retry-after': String(retryAfterSeconds) });
  }
}
/** A provider (hypervisor, cluster) could not be reached or refused the work. */
export class ProviderUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}

/** SQLSTATE codes the error handler turns into client answers (PostgreSQL and PGlite report the same). */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  /** e.g. a NUL character in text: input the contract should already have refused. */
  invalidByteSequence: '22021',
} as const;

/** What may be logged of a database error: never `detail` or `where` (they quote row values), nor any parameters. */
export interface DatabaseErrorInfo {
  code: string;
  message: string;
  severity?: string;
  table?: string;
  column?: string;
  constraint?: string;
  routine?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The database's own error (pg's or PGlite's DatabaseError) in an error or its causes: Drizzle wraps
 * it in a DrizzleQueryError whose message and `params` carry the query's bound values.
 */
export function databaseErrorOf(err: unknown): DatabaseErrorInfo | null {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && isRecord(current); depth++) {
    const code = current.code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof current.severity === 'string') {
      const info: DatabaseErrorInfo = { code, message: str(current.message) ?? 'database error' };
      for (const key of ['severity', 'table', 'column', 'constraint', 'routine'] as const) {
        const v = str(current[key]);
        if (v !== undefined) info[key] = v;
      }
      return info;
    }
    current = current.cause;
  }
  return null;
}

/** A failed Drizzle query: its message and `params` hold the bound values (sign-in codes, tokens, personal data). */
function isQueryError(err: unknown): err is Error & { query?: unknown; params?: unknown } {
  return err instanceof Error && ('params' in err || err.constructor.name === 'DrizzleQueryError');
}

/** The stack frames without the message (a query error's message lists its parameters). */
function framesOf(e: Error): string {
  if (typeof e.stack !== 'string') return '';
  const header = `${e.name}: ${e.message}`;
  if (e.stack.startsWith(header)) return e.stack.slice(header.length).replace(/^\n/, '');
  return e.stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

/**
 * What is logged in place of a failed query: the SQL text (placeholders only), the database's code,
 * message and the names of what it refused (table, constraint), and the stack frames.
 */
export class LoggedQueryError extends Error {
  /** The class of the original error, e.g. DrizzleQueryError. */
  readonly source: string;
  readonly query?: string;
  readonly code?: string;
  readonly severity?: string;
  readonly table?: string;
  readonly column?: string;
  readonly constraint?: string;
  readonly routine?: string;

  constructor(original: Error & { query?: unknown }, db: DatabaseErrorInfo | null) {
    super(db ? `${db.code} ${db.message}` : 'query failed');
    this.name = 'LoggedQueryError';
    this.source = original.constructor.name || original.name || 'Error';
    if (typeof original.query === 'string') this.query = original.query.slice(0, 2000);
    if (db) {
      const { message: _message, ...names } = db;
      Object.assign(this, names);
    }
    this.stack = `${this.name}: ${this.message}\n${framesOf(original)}`;
  }
}

/**
 * A form of `err` that is safe to log. Database errors become a LoggedQueryError — never the bound
 * parameters or row values (Drizzle's message, `params`, the database's `detail`). Anything else is
 * returned unchanged for the logger's usual error serializer.
 */
export function loggableError(err: unknown): unknown {
  if (err instanceof LoggedQueryError) return err;
  const db = databaseErrorOf(err);
  if (!db && !isQueryError(err)) return err;
  const original = err instanceof Error ? err : Object.assign(new Error('database error'), { stack: '' });
  return new LoggedQueryError(original, db);
}

/** Socket-level failures reaching the database server (pg reports these as the error's `code`). */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/** pg's messages for a connection that died or could not be made (no code of their own). */
const CONNECTION_LOST =
  /connection terminated|terminating connection|connection timeout|timeout exceeded when trying to connect|client has encountered a connection error|cannot use a pool after calling end|connection refused/i;

/**
 * True when `err` (or one of its causes) says the database cannot be reached right now: the answer is
 * then 503 with Retry-After, not a 500. SQLSTATE class 08 (connection exception) and 57P01–57P03
 * (the server shutting down or starting) count too.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && isRecord(current); depth++) {
    const code = typeof current.code === 'string' ? current.code : '';
    if (CONNECTION_ERROR_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
    if (typeof current.message === 'string' && CONNECTION_LOST.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
