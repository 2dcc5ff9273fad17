/**
 * Contract-driven fuzz of every route: for each route of packages/contract/src/routes.ts, bad and boundary
 * inputs built from its zod schemas (each path parameter, query field and body field replaced by wrong types,
 * huge/negative/overflowing numbers, control characters, unicode, long strings; fields missing; fields
 * added; whole bodies of the wrong shape; bad JSON; wrong content types; CSRF and cookie games), sent signed
 * out, with a sign-in awaiting its code, and signed in. `--requests` (default 20,000) requests at
 * `--concurrency` (default 8); `--seed` makes the draw repeatable. Goal: no 5xx (and no dropped connection).
 */
import { z } from 'zod';
import { idSchema, type RouteDef } from '@portal/contract/common';
import { allRoutes, routes } from '@portal/contract/routes';
import { ApiClient, signIn, type Answer, type RawRequest } from './lib/client.ts';
import { readFileSync } from 'node:fs';
import { tally } from './lib/load.ts';
import { ADMIN, startProofEnv } from './lib/portal.ts';
import { option, saveResult } from './lib/report.ts';
import { fieldsOf, sample } from './lib/zod-sample.ts';

/** Values for JSON fields. */
const BAD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  -0,
  1.5,
  2147483647,
  2147483648,
  -2147483649,
  Number.MAX_SAFE_INTEGER + 2,
  1e308,
  -1e308,
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '0x1f',
  '١٢٣',
  'null',
  'true',
  'a'.repeat(10_000),
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\t',
  '\u202e',
  '😀',
  '\ud800',
  'ſ',
  'ADMIN@EXAMPLE.COM',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://127.0.0.1/x}',
  [],
  [1, 2],
  [null],
  {},
  { $ne: null },
  JSON.parse('{"__proto__":{"isCompanyAdmin":true}}') as unknown,
];
/** Values for path parameters and query fields (sent in the URL). */
const BAD_SCALARS: string[] = [
  '0',
  '-1',
  '1.5',
  '2147483647',
  '2147483648',
  '99999999999999999999',
  '1e3',
  '0x10',
  ' 1',
  '1 ',
  'NaN',
  'Infinity',
  '',
  'null',
  'true',
  '[]',
  '{}',
  '..',
  '😀',
  '\u202e',
  '\u0000',
  'a'.repeat(5000),
  "1' or '1'='1",
  '1;drop table users',
];
/** Path parameter values sent without encoding: broken percent-escapes and traversal. */
const RAW_PATH_VALUES = ['%', '%ff', '%c0%af', '%2e%2e%2f', '..%2f..%2f', '%00', '1%0d%0aX-Injected:1'];
const BAD_JSON_TEXTS = [
  '{',
  '{"a":',
  'nul',
  '[1,',
  '"unterminated',
  '{"a":1}{"b":2}',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"__proto__":{"isCompanyAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '1'.repeat(400),
  '['.repeat(5000) + ']'.repeat(5000),
];
const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  '',
  'application/octet-stream',
  'application/json, text/plain',
  '*/*',
];

/**
 * Routes the server has outside the contract's table (hidden from the API document), fuzzed too. The live
 * status stream (GET /virtualMachines/events) is left out: it holds the connection open by design.
 */
const OFF_CONTRACT_ROUTES: RouteDef[] = [
  {
    method: 'GET',
    path: '/virtualMachines/console/:id',
    summary: 'The console page of a single-use link',
    tag: 'Virtual Machines',
    access: 'public',
    params: z.object({ id: idSchema }),
    query: z.object({ token: z.string().max(100) }),
    data: z.null(),
  },
];
const fuzzedRoutes = () => [...allRoutes(), ...OFF_CONTRACT_ROUTES];

type State = 'signedOut' | 'mfaPending' | 'signedIn';
const STATES: State[] = ['signedOut', 'mfaPending', 'signedIn'];

interface Case {
  route: RouteDef;
  /** What was changed, for the report. */
  variant: string;
  request: RawRequest;
}

/** A seeded PRNG (mulberry32), so a run can be repeated. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const describe = (v: unknown) => {
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 40)}…(${s.length} chars)` : s;
};

const RANDOM_CHARS = 'abcXYZ0189-_.~!$&\'()*+,;=:@/?#[]% "<>\\^`{|}\t\néßñ中文😀\u202e\u0001\u007f';

/** A random path value: a number of random size and sign, or a short string of awkward characters. */
function randomPathValue(random: () => number): string {
  if (random() < 0.5) {
    const magnitude = Math.floor(random() * 25);
    const n = BigInt(Math.floor(random() * 10 ** Math.min(magnitude, 15))) * 10n ** BigInt(Math.max(0, magnitude - 15));
    return `${random() < 0.3 ? '-' : ''}${n}`;
  }
  const chars = [...RANDOM_CHARS];
  return Array.from({ length: 1 + Math.floor(random() * 40) }, () => chars[Math.floor(random() * chars.length)]).join(
    '',
  );
}

export function casesFor(route: RouteDef, random: () => number = Math.random): Case[] {
  const params = Object.keys(fieldsOf(route.params));
  const queryFields = fieldsOf(route.query);
  const bodyFields = fieldsOf(route.body);
  const validParams = Object.fromEntries(params.map((p) => [p, '1']));
  const validQuery = (route.query ? sample(route.query) : {}) as Record<string, unknown> | undefined;
  const validBody = route.body ? sample(route.body) : route.method === 'GET' ? undefined : {};
  const path = (over: Record<string, string> = {}, encode = true) =>
    route.path.replace(/:(\w+)/g, (_, name: string) => {
      const v = over[name] ?? validParams[name] ?? '1';
      return encode ? encodeURIComponent(v) : v;
    });
  const qs = (q: Record<string, unknown>) => {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(q))
      if (v !== undefined) u.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    return u.size ? `?${u.toString()}` : '';
  };
  const baseQuery = Object.fromEntries(
    Object.entries(validQuery ?? {}).filter(([, v]) => v !== undefined && typeof v !== 'object'),
  );
  const json = (body: unknown, extra: Partial<RawRequest> = {}): RawRequest => ({
    method: route.method,
    path: path() + qs(baseQuery),
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    ...extra,
  });
  const out: Case[] = [];
  const add = (variant: string, request: RawRequest) => out.push({ route, variant, request });

  add(
    'valid-looking input',
    validBody === undefined ? { method: route.method, path: path() + qs(baseQuery) } : json(validBody),
  );
  for (const p of params) {
    for (const v of BAD_SCALARS)
      add(`path ${p}=${describe(v)}`, {
        method: route.method,
        path: path({ [p]: v }) + qs(baseQuery),
        ...(validBody === undefined
          ? {}
          : { body: JSON.stringify(validBody), headers: { 'content-type': 'application/json' } }),
      });
    for (const v of RAW_PATH_VALUES) add(`raw path ${p}=${v}`, { method: route.method, path: path({ [p]: v }, false) });
    for (let i = 0; i < 10; i++) {
      const v = randomPathValue(random);
      add(`random path ${p}=${describe(v)}`, { method: route.method, path: path({ [p]: v }) });
    }
  }
  for (const q of Object.keys(queryFields)) {
    for (const v of BAD_SCALARS)
      add(`query ${q}=${describe(v)}`, { method: route.method, path: path() + qs({ ...baseQuery, [q]: v }) });
    add(`query ${q} twice`, { method: route.method, path: `${path()}${qs(baseQuery) || '?'}&${q}=1&${q}=2` });
    add(`query ${q}[]`, { method: route.method, path: `${path()}?${q}[]=1&${q}[a]=2` });
  }
  if (route.method === 'GET') {
    add('unknown query field', {
      method: route.method,
      path: path() + qs({ ...baseQuery, isCompanyAdmin: 'true', companyId: '2' }),
    });
    add('huge query string', { method: route.method, path: `${path()}?search=${'x'.repeat(20_000)}` });
  }
  if (validBody !== undefined) {
    const body = (validBody ?? {}) as Record<string, unknown>;
    for (const f of Object.keys(bodyFields)) {
      for (const v of BAD_VALUES) add(`body ${f}=${describe(v)}`, json({ ...body, [f]: v }));
      const { [f]: _dropped, ...rest } = body;
      add(`body without ${f}`, json(rest));
    }
    add('body with an extra field', json({ ...body, isCompanyAdmin: true, companyId: 2 }));
    for (const v of [null, [], 'text', 123, true, [body]]) add(`whole body ${describe(v)}`, json(v));
    add('deeply nested body', json(JSON.parse('{"a":'.repeat(2000) + '1' + '}'.repeat(2000))));
    add('2 MB body', json({ ...body, padding: 'x'.repeat(2 * 1024 * 1024) }));
    for (const text of BAD_JSON_TEXTS) add(`bad JSON ${describe(text)}`, { ...json(body), body: text });
    for (const ct of CONTENT_TYPES)
      add(`content-type ${describe(ct)}`, { ...json(body), headers: ct ? { 'content-type': ct } : {} });
    add('empty body with JSON type', { ...json(body), body: '' });
    add('no CSRF header', json(body, { noCsrf: true }));
    add(
      'wrong CSRF header',
      json(body, { headers: { 'content-type': 'application/json', 'x-csrf-token': 'f'.repeat(32) } }),
    );
    add(
      'foreign Origin',
      json(body, { headers: { 'content-type': 'application/json', origin: 'http://evil.example' } }),
    );
    add('bad Origin', json(body, { headers: { 'content-type': 'application/json', origin: 'http://[::1' } }));
  }
  const plain = validBody === undefined ? { method: route.method, path: path() + qs(baseQuery) } : json(validBody);
  add('bearer garbage', { ...plain, headers: { ...plain.headers, authorization: 'Bearer op_garbage' } });
  add('bearer empty', { ...plain, headers: { ...plain.headers, authorization: 'Bearer ' } });
  add('bearer huge', { ...plain, headers: { ...plain.headers, authorization: `Bearer ${'a'.repeat(7000)}` } });
  add('forged session cookie', {
    ...plain,
    headers: { ...plain.headers, cookie: 'sid=forged; csrf_token=0123456789abcdef0123456789abcdef' },
  });
  add('cookie with control characters', {
    ...plain,
    headers: { ...plain.headers, cookie: 'sid=%00%ff; csrf_token=%0d%0a' },
  });
  for (const method of ['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'].filter((m) => m !== route.method))
    add(`method ${method}`, { method, path: path() });
  return out;
}

export async function prove(args: string[]): Promise<boolean> {
  let target = option(args, 'requests', 20_000);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '') : '';
  const concurrency = option(args, 'concurrency', 8);
  const seed = option(args, 'seed', 9);
  const random = prng(seed);
  const env = await startProofEnv({ SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '50', LOG_LEVEL: 'error' });
  const { portal, smtp } = env;
  try {
    // The three kinds of caller, re-established whenever a fuzzed call ends their session (logout, retries).
    // One sign-in at a time, each waiting for its own mail, so no code is read from another login's mail.
    let signingIn: Promise<unknown> = Promise.resolve();
    const makeClient = (state: State): Promise<ApiClient> => {
      const made = signingIn.then(async () => {
        if (state === 'signedIn') return signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
        const c = new ApiClient(portal.api);
        if (state === 'mfaPending') {
          const before = smtp.messages.length;
          await c.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
          await smtp.waitFor(ADMIN.email, (m) => smtp.messages.indexOf(m) >= before, 30_000).catch(() => null);
        }
        return c;
      });
      signingIn = made.catch(() => null);
      return made;
    };
    const clients = new Map<State, ApiClient>();
    for (const s of STATES) clients.set(s, await makeClient(s));
    let reestablished = 0;
    const healthy = async (state: State) => {
      if (state === 'signedOut') return;
      const check = await clients.get(state)!.call(routes.auth.check);
      const ok =
        state === 'signedIn'
          ? check.status === 200 && (check.data as { authed?: boolean } | null)?.authed === true
          : check.status === 200;
      if (!ok) {
        reestablished++;
        clients.set(state, await makeClient(state));
      }
    };

    // `--only TEXT` narrows the run to the cases whose description holds TEXT (e.g. `ud800`, `path id`,
    // `/teams/update`), each sent once in every state: to recheck a finding quickly.
    const all = fuzzedRoutes()
      .flatMap((r) => casesFor(r, random))
      .filter((c) => !only || `${c.route.method} ${c.route.path} ${c.variant}`.includes(only));
    if (all.length === 0) throw new Error(`no fuzz case matches --only ${only}`);
    // Every case in every state, shuffled; cut to --requests, or topped up with more random draws.
    let plan = all.flatMap((c) => STATES.map((state) => ({ ...c, state })));
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [plan[i], plan[j]] = [plan[j]!, plan[i]!];
    }
    if (only) target = plan.length;
    if (plan.length > target) plan = plan.slice(0, target);
    while (plan.length < target)
      plan.push({ ...all[Math.floor(random() * all.length)]!, state: STATES[Math.floor(random() * STATES.length)]! });
    console.log(
      `fuzz: ${all.length} distinct cases over ${fuzzedRoutes().length} routes (the contract's ${allRoutes().length} and ${OFF_CONTRACT_ROUTES.length} outside it) × ${STATES.length} states; sending ${plan.length} requests at ${concurrency} at a time`,
    );

    const statuses: Record<string, number> = {};
    const byRoute: Record<
      string,
      { requests: number; serverErrors: number; noAnswer: number; statuses: Record<string, number> }
    > = {};
    const serverErrors: {
      route: string;
      state: State;
      variant: string;
      status: number;
      message: string;
      request: string;
    }[] = [];
    const noAnswer: { route: string; state: State; variant: string; error: string }[] = [];
    let next = 0;
    let done = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < plan.length) {
          const item = plan[next++]!;
          const client = clients.get(item.state)!;
          const res: Answer = await client.raw(item.request);
          done++;
          const key = `${item.route.method} ${item.route.path}`;
          const r = (byRoute[key] ??= { requests: 0, serverErrors: 0, noAnswer: 0, statuses: {} });
          r.requests++;
          r.statuses[res.status] = (r.statuses[res.status] ?? 0) + 1;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 500) {
            r.serverErrors++;
            serverErrors.push({
              route: key,
              state: item.state,
              variant: item.variant,
              status: res.status,
              message: res.message,
              request: `${item.request.method} ${item.request.path.slice(0, 200)} ${(item.request.body ?? '').slice(0, 200)}`,
            });
          } else if (res.status === 0) {
            r.noAnswer++;
            noAnswer.push({ route: key, state: item.state, variant: item.variant, error: res.error ?? '' });
          }
          // A fuzzed call may have ended the session (logout) or used up the code's tries: start afresh.
          if (item.state !== 'signedOut' && (res.status === 401 || /logout|mfa|login/.test(item.route.path)))
            await healthy(item.state);
          if (done % 2000 === 0)
            console.log(
              `  ${done} requests, ${serverErrors.length} 5xx, ${((Date.now() - started) / 1000).toFixed(0)} s`,
            );
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const stillUp = await new ApiClient(portal.api).call(routes.platform.healthDatabase);
    const errorLog = readFileSync(portal.logFile, 'utf8')
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l));
    const errorLogLines = errorLog.length;
    const figures = {
      requests: done,
      seconds,
      requestsPerSecond: done / seconds,
      seed,
      only: only || null,
      distinctCases: all.length,
      routes: fuzzedRoutes().length,
      statuses,
      serverErrors: serverErrors.length,
      serverErrorsByRoute: tally(serverErrors.map((e) => e.route)),
      firstServerErrors: serverErrors.slice(0, 20),
      noAnswer: noAnswer.length,
      firstNoAnswer: noAnswer.slice(0, 10),
      sessionsReestablished: reestablished,
      serverErrorLogLines: errorLogLines,
      firstServerErrorLogLines: errorLog.slice(0, 5).map((l) => l.slice(0, 1000)),
      healthAfter: stillUp.status,
      byRoute,
    };
    console.log(
      `fuzz: ${done} requests in ${seconds.toFixed(0)} s (${figures.requestsPerSecond.toFixed(0)}/s): statuses ${JSON.stringify(statuses)}`,
    );
    console.log(
      `      5xx: ${serverErrors.length} ${JSON.stringify(figures.serverErrorsByRoute)}; no answer: ${noAnswer.length}; server error log lines: ${errorLogLines}; health after: ${stillUp.status}`,
    );
    for (const e of serverErrors.slice(0, 5))
      console.log(`      5xx: ${e.route} [${e.state}] ${e.variant}: ${e.status} ${e.message}\n           ${e.request}`);
    for (const l of errorLog.slice(0, 3)) console.log(`      server log: ${l.slice(0, 400)}`);
    for (const e of noAnswer.slice(0, 3))
      console.log(`      no answer: ${e.route} [${e.state}] ${e.variant}: ${e.error}`);
    return saveResult('fuzz', figures, [
      { name: `at least ${target} requests`, met: done >= target, value: String(done) },
      {
        name: 'no 5xx',
        met: serverErrors.length === 0,
        value: `${serverErrors.length} (${JSON.stringify(figures.serverErrorsByRoute)})`,
      },
      { name: 'every request answered', met: noAnswer.length === 0, value: `${noAnswer.length} without an answer` },
      { name: 'server healthy afterwards', met: stillUp.status === 200, value: String(stillUp.status) },
    ]);
  } finally {
    await env.close();
  }
}
