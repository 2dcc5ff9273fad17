/**
 * The one typed client, driven by the contract's route table: `callApi(routes.auth.login, { body })`.
 * Reads the `{ message, data }` envelope, revives dates, sends the CSRF header, and sends a 401 to
 * /login unless the caller suppresses that.
 */
import type { z } from 'zod';
import type { RouteDef } from '@portal/contract/common';
import { API_MESSAGES } from '@portal/contract/messages';
import { buildPath } from '@portal/contract/routes';
import { portalConfig } from './config.ts';
import { csrfToken } from './csrf.ts';
import { reviveDates, type Revived } from './date-format.ts';
import {
  isGatewayFailure,
  NETWORK_TEXT,
  READ_TIMEOUT_MS,
  reportAnswer,
  reportNetworkFailure,
  WRITE_TIMEOUT_MS,
} from './network.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** No answer within the request's time (status 0): a message with Try again, no automatic retry. */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Path parameters, query and body of one route, typed from its contract schemas (parsed shapes). */
type ParamsPart<R extends RouteDef> = R['params'] extends z.ZodType
  ? { params: z.output<R['params']> }
  : { params?: never };
type QueryPart<R extends RouteDef> = R['query'] extends z.ZodType
  ? { query?: Partial<z.output<R['query']>> }
  : { query?: never };
type BodyPart<R extends RouteDef> = R['body'] extends z.ZodType
  ? undefined extends z.output<R['body']>
    ? { body?: z.output<R['body']> }
    : { body: z.output<R['body']> }
  : { body?: never };
export type RouteRequest<R extends RouteDef> = ParamsPart<R> & QueryPart<R> & BodyPart<R>;

export type CallOptions<R extends RouteDef> = RouteRequest<R> & {
  /** Do not send the user to /login on a 401 (the caller handles it). */
  suppress401?: boolean;
  signal?: AbortSignal;
  /** Give up after this long (default: READ_TIMEOUT_MS for GET, WRITE_TIMEOUT_MS otherwise; lib/network.ts). */
  timeoutMs?: number;
};

export type ApiData<R extends RouteDef> = Revived<z.output<R['data']>>;

type UnauthorizedHandler = () => void;
let onUnauthorized: UnauthorizedHandler = () => {};
/** The app registers what a 401 does (clear stored auth, go to /login). */
export function setUnauthorizedHandler(handler: UnauthorizedHandler): void {
  onUnauthorized = handler;
}

let onTwoFactorSetUp: () => void = () => {};
/** The app registers what a 403 "set up an authenticator app first" does (go to /security; docs/two-factor.md). */
export function setTwoFactorSetUpHandler(handler: () => void): void {
  onTwoFactorSetUp = handler;
}

const NO_ANSWER = 'Cannot reach the server. Check your connection and try again.';

export function apiUrl(path: string): string {
  return `${portalConfig.apiBasePath}${path}`;
}

export async function callApi<R extends RouteDef>(
  route: R,
  options: CallOptions<R> = {} as CallOptions<R>,
): Promise<ApiData<R>> {
  const { data } = await callApiWithMessage(route, options);
  return data;
}

export async function callApiWithMessage<R extends RouteDef>(
  route: R,
  options: CallOptions<R> = {} as CallOptions<R>,
): Promise<{ message: string; data: ApiData<R> }> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries((options.query ?? {}) as Record<string, unknown>)) {
    if (v !== undefined && v !== null && v !== '') query.set(k, String(v));
  }
  const path =
    buildPath(route.path, options.params as Record<string, string | number> | undefined) +
    (query.size ? `?${query.toString()}` : '');
  const unsafe = route.method !== 'GET';
  // No request waits for ever (issue 25 item 6): past its time it is aborted and ends in a message.
  const timeout = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      timeout.abort();
    },
    options.timeoutMs ?? (unsafe ? WRITE_TIMEOUT_MS : READ_TIMEOUT_MS),
  );
  const onCallerAbort = () => timeout.abort();
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  if (options.signal?.aborted) timeout.abort();
  let response: Response;
  let body: { message?: string; data?: unknown } = {};
  try {
    try {
      response = await fetch(apiUrl(path), {
        method: route.method,
        credentials: 'include',
        headers: unsafe ? { 'content-type': 'application/json', 'x-csrf-token': csrfToken() } : {},
        ...(unsafe ? { body: JSON.stringify(options.body ?? {}) } : {}),
        signal: timeout.signal,
      });
    } catch (err) {
      if (timedOut) throw new ApiError(0, NETWORK_TEXT.timeout, true);
      if ((err as Error).name === 'AbortError') throw err;
      reportNetworkFailure();
      throw new ApiError(0, NO_ANSWER);
    }
    try {
      body = (await response.json()) as typeof body;
    } catch {
      if (timedOut) throw new ApiError(0, NETWORK_TEXT.timeout, true);
      // A reverse proxy's own 502/503/504 page (not our envelope): the portal's server did not answer.
      if (isGatewayFailure(response.status)) {
        reportNetworkFailure();
        throw new ApiError(0, NO_ANSWER);
      }
      body = { message: response.statusText };
    }
    reportAnswer();
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
  if (!response.ok) {
    const message = body.message || `Request failed (${response.status})`;
    if (response.status === 401 && !options.suppress401) onUnauthorized();
    if (
      response.status === 403 &&
      (message === API_MESSAGES.twoFactorSetUpRequired || message === API_MESSAGES.staffTwoFactorSetUpRequired)
    )
      onTwoFactorSetUp();
    throw new ApiError(response.status, message);
  }
  return { message: body.message ?? '', data: reviveDates(body.data) as ApiData<R> };
}

/** The server's message of an error, for "{prefix}: {detail}" texts. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
