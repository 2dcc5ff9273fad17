/**
 * The portal's typed client (issue 26 item 5; docs/cli.md): every route of the contract's route table, called by
 * its key (`client.call('vms.list', { query })`) with the route's zod schemas as the types of its params, query,
 * body and answer. Nothing here lists routes by hand: the keys, the per-group methods (`client.routes.vms.list`)
 * and the friendly namespaces (`client.vm.get`) are all derived from `routes` in @portal/contract. Bearer auth with
 * a personal API token (docs/api-tokens.md); the envelope `{ message, data }` is unwrapped; a failed call throws a
 * PortalError with the status, the server's message and its field issues.
 */
import type { z } from 'zod';
import type { RouteDef } from '@portal/contract/common';
import { buildPath } from '@portal/contract/paths';
import { routes } from '@portal/contract/routes';

export { routes };
export type Routes = typeof routes;
export type RouteGroup = keyof Routes;

/** `group.name` for every route of the table, e.g. `vms.list`, `sshKeys.add`, `teams.list`. */
export type RouteKey = {
  [G in RouteGroup]: `${G & string}.${keyof Routes[G] & string}`;
}[RouteGroup];

export type RouteOf<K extends RouteKey> = K extends `${infer G}.${infer N}`
  ? G extends RouteGroup
    ? N extends keyof Routes[G]
      ? Routes[G][N]
      : never
    : never
  : never;

/** Path parameters: ids may be given as numbers or strings (the server coerces and checks them). */
type ParamsPart<R> = R extends { params: z.ZodType }
  ? { params: { [K in keyof z.input<R['params']>]: string | number } }
  : { params?: never };
type BodyPart<R> = R extends { body: z.ZodType }
  ? undefined extends z.input<R['body']>
    ? { body?: z.input<R['body']> }
    : { body: z.input<R['body']> }
  : { body?: never };
type QueryPart<R> = R extends { query: z.ZodType } ? { query?: Partial<z.input<R['query']>> } : { query?: never };

/**
 * What a call of route R takes: its params, body and query as the contract declares them. Distributed over R first:
 * for the union of every route (while a call's key is still being inferred) the three parts' intersection would
 * otherwise be their cross product, which tsc refuses as "too complex" once the table has ~50 routes with inputs.
 */
export type CallInput<R> = R extends unknown ? ParamsPart<R> & BodyPart<R> & QueryPart<R> : never;
/** What a call of route R answers: the `data` of the envelope, as the contract's schema outputs it. */
export type CallResult<R> = R extends { data: z.ZodType } ? z.output<R['data']> : never;

/** The input argument: optional when nothing in it is required. */
type InputArgs<R> = object extends CallInput<R> ? [input?: CallInput<R>] : [input: CallInput<R>];

export type RouteMethod<R> = (...args: InputArgs<R>) => Promise<CallResult<R>>;
export type GroupMethods<G extends RouteGroup> = { [N in keyof Routes[G]]: RouteMethod<Routes[G][N]> };

/** A field's problem in a 400 answer, as the server reports it. */
export interface PortalIssue {
  path: string;
  message: string;
}

/** A call the server refused (status >= 400), or one that got no usable answer (status 0). */
export class PortalError extends Error {
  override readonly name = 'PortalError';
  constructor(
    readonly status: number,
    message: string,
    readonly issues: PortalIssue[] = [],
    readonly requestId?: string,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** The API's base URL, with its base path: `https://portal.example/irontech/api/v1`. */
  baseUrl: string;
  /** A personal API token, `vmp_…` (docs/api-tokens.md). */
  token?: string;
  /** Check every answer's `data` against the contract's schema (a mismatch throws a PortalError, status 0). */
  validateResponses?: boolean;
  /** Milliseconds before a call is abandoned (default 30 s). */
  timeoutMs?: number;
  /** Another fetch (tests, proxies); Node 20's global fetch by default. */
  fetch?: typeof fetch;
}

/**
 * The friendly namespaces: a group of the table under a short name, with a few aliases for the words scripts
 * expect (`vm.get` is `vms.details`). Every other route of the group is there under its own name too.
 */
const FRIENDLY = {
  vm: { group: 'vms', aliases: { get: 'details' } },
  sshKeys: { group: 'sshKeys', aliases: { create: 'add', delete: 'remove' } },
  teams: { group: 'teams', aliases: { get: 'details' } },
  apiTokens: { group: 'apiTokens', aliases: {} },
} as const;
type Friendly = typeof FRIENDLY;
type FriendlyNamespace<F extends Friendly[keyof Friendly]> = GroupMethods<F['group']> & {
  [A in keyof F['aliases']]: F['aliases'][A] extends keyof Routes[F['group']]
    ? RouteMethod<Routes[F['group']][F['aliases'][A]]>
    : never;
};

export type PortalClient = {
  /** Calls any route of the contract by its key. */
  call<K extends RouteKey>(key: K, ...args: InputArgs<RouteOf<K>>): Promise<CallResult<RouteOf<K>>>;
  /** The same, with the server's message beside the data. */
  callWithMessage<K extends RouteKey>(
    key: K,
    ...args: InputArgs<RouteOf<K>>
  ): Promise<{ message: string; data: CallResult<RouteOf<K>> }>;
  /** Every group of the table, every route a method: `client.routes.vms.listConfigurations()`. */
  routes: { [G in RouteGroup]: GroupMethods<G> };
} & { [N in keyof Friendly]: FriendlyNamespace<Friendly[N]> };

function routeByKey(key: string): RouteDef {
  const [group, name] = key.split('.');
  const def = (routes as unknown as Record<string, Record<string, RouteDef> | undefined>)[group ?? '']?.[name ?? ''];
  if (!def) throw new PortalError(0, `Unknown route ${key}`);
  return def;
}

function parseJson(text: string): { message?: unknown; data?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as { message?: unknown; data?: unknown }) : null;
  } catch {
    return null;
  }
}

function queryString(query: Record<string, unknown> | undefined): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, String(item));
    else q.set(k, String(v));
  }
  return q.size ? `?${q.toString()}` : '';
}

export function createClient(options: ClientOptions): PortalClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;

  async function send(
    def: RouteDef,
    input: { params?: object; body?: unknown; query?: object } = {},
  ): Promise<{ message: string; data: unknown }> {
    const url =
      base +
      buildPath(def.path, input.params as Record<string, string | number> | undefined) +
      queryString(input.query as Record<string, unknown> | undefined);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const hasBody = def.method !== 'GET';
    if (hasBody) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await doFetch(url, {
        method: def.method,
        headers,
        ...(hasBody ? { body: JSON.stringify(input.body ?? {}) } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new PortalError(0, `Cannot reach ${base}: ${(err as Error).message}`);
    }
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) {
      const data = (parsed?.data ?? null) as { issues?: PortalIssue[]; requestId?: string } | null;
      const message =
        typeof parsed?.message === 'string' ? parsed.message : `${response.status} ${response.statusText}`.trim();
      throw new PortalError(response.status, message, data?.issues ?? [], data?.requestId);
    }
    if (!parsed || typeof parsed.message !== 'string') {
      throw new PortalError(response.status, `Not a portal API answer from ${url}`);
    }
    let data = parsed.data;
    if (options.validateResponses) {
      const checked = def.data.safeParse(data);
      if (!checked.success) {
        throw new PortalError(
          0,
          `The answer of ${def.method} ${def.path} does not match the contract`,
          checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        );
      }
      data = checked.data;
    }
    return { message: parsed.message, data };
  }

  const bind = (def: RouteDef) => async (input?: object) => (await send(def, input)).data;
  const group = (name: string) =>
    Object.fromEntries(
      Object.entries((routes as unknown as Record<string, Record<string, RouteDef>>)[name] ?? {}).map(([n, def]) => [
        n,
        bind(def),
      ]),
    );

  const client: Record<string, unknown> = {
    call: async (key: string, input?: object) => (await send(routeByKey(key), input)).data,
    callWithMessage: async (key: string, input?: object) => send(routeByKey(key), input),
    routes: Object.fromEntries(Object.keys(routes).map((g) => [g, group(g)])),
  };
  for (const [name, spec] of Object.entries(FRIENDLY)) {
    const methods = group(spec.group);
    for (const [alias, target] of Object.entries(spec.aliases as Record<string, string>)) {
      methods[alias] = methods[target]!;
    }
    client[name] = methods;
  }
  return client as PortalClient;
}
