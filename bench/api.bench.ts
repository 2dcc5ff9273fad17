/**
 * The honest benchmark (issue #14): every server in its own process, the load generator (wrk) in its own,
 * and in one run three targets side by side — the bare Fastify route, the limit (a minimal Fastify + `pg`
 * server running the portal's own SQL, targets/limit.ts) and the portal — for the VM list, `GET /auth/check`
 * and the VM details call. Each target is measured REPEATS times, interleaved (so a noisy moment hits every
 * target alike); the medians of req/s, p50, p99 and CPU per request (server process, PostgreSQL's backends)
 * are printed with the ratios portal/limit and portal/bare, and saved to bench/results/. Between the repeats,
 * pgbench runs the list statement alone (lib/sql-ceiling.ts): the most any server could answer on this machine.
 * For `auth/check`, a bare route also sends the portal's own answer (same body and headers, targets/bare.ts
 * `/answer`): the part of the gap to the bare route that is the answer's size, not the portal's layers.
 *
 *   npm run bench:api                     1M VMs / 100k users / 20k teams, 15 s per run, 3 repeats
 *   BENCH_VMS=20000 BENCH_USERS=5000 BENCH_TEAMS=1000 BENCH_SECONDS=3 BENCH_REPEATS=1 npm run bench:api
 * Other knobs: BENCH_CONNECTIONS (64), BENCH_THREADS (2), BENCH_POOL_SIZE (10, both servers), BENCH_ONLY
 * (comma list of list,check,details), BENCH_LABEL (added to the result file's name), BENCH_PG_ROOT (where
 * the seeded cluster lives; kept between runs and keyed by the seed size, so a re-run does not seed again),
 * BENCH_BASELINE (a directory with another checkout of the repository, its node_modules linked: its portal is
 * loaded as a fourth target, `before`, for a before/after in the same run), BENCH_PORTAL_ENV (extra settings
 * for the portal, e.g. SESSION_CACHE=false), BENCH_PG_SOCKET=1 (servers reach PostgreSQL over its Unix socket).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { keyedHash } from '../apps/api/src/lib/crypto.ts';
import { startBenchCluster } from './lib/bench-cluster.ts';
import { listSqlCeiling } from './lib/sql-ceiling.ts';
import { postgresCpuDeltaUs, postgresCpuUs, processCpuUs } from './lib/proc-cpu.ts';
import { BENCH_ADMIN, seedOnce, type SeedSize } from './lib/seed.ts';
import { wrk, type WrkResult } from './lib/wrk.ts';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const size: SeedSize = {
  vms: env('BENCH_VMS', 1_000_000),
  users: env('BENCH_USERS', 100_000),
  teams: env('BENCH_TEAMS', 20_000),
  companies: 100,
};
const SECONDS = env('BENCH_SECONDS', 15);
const REPEATS = env('BENCH_REPEATS', 3);
const CONNECTIONS = env('BENCH_CONNECTIONS', 64);
const THREADS = env('BENCH_THREADS', 2);
const POOL_SIZE = env('BENCH_POOL_SIZE', 10);
const WARMUP_SECONDS = Math.min(3, SECONDS);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'list,check,details').split(','));
const SECRET = 'bench-secret-that-is-long-enough-0123456';
const API = '/irontech/api/v1';
/** Headers Node writes itself for every answer. */
const PER_CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const key = `${size.vms}-${size.users}-${size.teams}`;
const cluster = startBenchCluster(key, 56000 + (Number.parseInt(keyedHash('port', key).slice(0, 4), 16) % 900));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

try {
  const seedSeconds = await seedOnce(cluster.url, size);
  console.log(
    seedSeconds
      ? `seeded ${JSON.stringify(size)} in ${seedSeconds.toFixed(1)} s`
      : `reusing the seeded cluster ${cluster.dataDir}`,
  );

  // A signed-in browser: a session row made the way the session store makes one (keyed hash of the token).
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  const token = randomBytes(32).toString('base64url');
  await client.query(
    `insert into sessions (id, user_id, state, remember_me, expires_at) select $1, id, 'authenticated', true, now() + interval '1 day' from users where email = $2`,
    [keyedHash(SECRET, `session:${token}`), BENCH_ADMIN.email],
  );
  // The caller's first VM (the details call) and its company (the list statement pgbench runs alone).
  const { id: vmId, company_id: companyId } = (
    await client.query<{ id: number; company_id: number }>(
      `select v.id, u.company_id from virtual_machines v join users u on u.company_id = v.company_id where u.email = $1 order by v.id limit 1`,
      [BENCH_ADMIN.email],
    )
  ).rows[0]!;
  await client.end();
  const headers = { cookie: `csrf_token=${'c'.repeat(32)}; sid=${token}` };

  const targetEnv = {
    ...process.env,
    DATABASE_URL: cluster.url,
    BENCH_SECRET: SECRET,
    BENCH_POOL_SIZE: String(POOL_SIZE),
    NODE_ENV: 'production',
  };
  const portalEnv = Object.fromEntries(
    (process.env.BENCH_PORTAL_ENV ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const start = (file: string, extraEnv: Record<string, string> = {}) =>
    new Promise<{ pid: number; base: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL(`./targets/${file}`, import.meta.url))],
        { env: { ...targetEnv, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      children.push(child);
      child.on('exit', (code) => reject(new Error(`${file} exited (${code})`)));
      child.stdout!.on('data', (d: Buffer) => {
        const m = /READY (\d+)/.exec(d.toString());
        if (m) resolve({ pid: child.pid!, base: `http://127.0.0.1:${m[1]}` });
      });
    });
  const [bare, limit, portal] = [await start('bare.ts'), await start('limit.ts'), await start('portal.ts', portalEnv)];
  const before = process.env.BENCH_BASELINE
    ? await start('portal.ts', { BENCH_PORTAL_ROOT: process.env.BENCH_BASELINE })
    : null;

  const LIST_SEARCH = 'vm-12';
  const LIST_ROWS = 10;
  const listQuery = `page=1&rowsPerPage=${LIST_ROWS}&search=${LIST_SEARCH}&sortColumn=name&sortDescending=false`;
  type Target = { name: string; pid: number; url: string; auth: boolean };
  const bareTarget: Target = { name: 'bare', pid: bare.pid, url: `${bare.base}/bare`, auth: false };
  const portalPaths = {
    list: `/virtualMachines/list?${listQuery}`,
    check: '/auth/check',
    details: `/virtualMachines/details/${vmId}`,
  };
  const limitPaths = { list: `/list?${listQuery}`, check: '/auth/check', details: `/vm/${vmId}` };
  const scenarios: Record<string, Target[]> = {};
  for (const s of ['list', 'check', 'details'] as const) {
    scenarios[s] = [
      bareTarget,
      { name: 'limit', pid: limit.pid, url: `${limit.base}${limitPaths[s]}`, auth: true },
      { name: 'portal', pid: portal.pid, url: `${portal.base}${API}${portalPaths[s]}`, auth: true },
    ];
    if (before)
      scenarios[s].push({ name: 'before', pid: before.pid, url: `${before.base}${API}${portalPaths[s]}`, auth: true });
  }

  // Every target must answer 200 with the same shape before it is loaded.
  for (const [scenario, targets] of Object.entries(scenarios)) {
    if (!ONLY.has(scenario)) continue;
    const bodies = await Promise.all(
      targets.map(async (t) => {
        const res = await fetch(t.url, { headers: t.auth ? headers : {} });
        if (res.status !== 200) throw new Error(`${scenario}/${t.name} answered ${res.status}: ${await res.text()}`);
        return res.json() as Promise<{ data: unknown }>;
      }),
    );
    const diffs = differences(bodies[1]!.data, bodies[2]!.data);
    if (diffs.length) {
      console.warn(
        `${scenario}: the limit and the portal answer differently (limit vs portal):\n  ${diffs.slice(0, 12).join('\n  ')}`,
      );
    }
  }

  // The portal's own answer to `auth/check` from a bare route (targets/bare.ts `/answer`): what the answer costs by
  // itself — 1.1 KB and the security headers — apart from the portal's layers.
  if (ONLY.has('check')) {
    // Asked as wrk asks (no Accept-Encoding): fetch() would get the compressed answer and its headers.
    const res = await getAsWrk(`${portal.base}${API}${portalPaths.check}`, headers);
    const answerHeaders = Object.fromEntries(
      Object.entries(res.headers).filter(([name]) => !PER_CONNECTION_HEADERS.has(name) && name !== 'x-request-id'),
    );
    const file = fileURLToPath(new URL(`./results/.answer-${process.pid}.json`, import.meta.url));
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(file, JSON.stringify({ headers: answerHeaders, body: JSON.parse(res.body) }));
    const answer = await start('bare.ts', { BENCH_ANSWER_FILE: file });
    rmSync(file);
    scenarios.check!.push({ name: 'answer', pid: answer.pid, url: `${answer.base}/answer`, auth: true });
  }

  async function measure(t: Target, seconds: number) {
    const cpu0 = processCpuUs(t.pid);
    const pg0 = postgresCpuUs(cluster.postmasterPid());
    const r: WrkResult = await wrk(t.url, {
      seconds,
      connections: CONNECTIONS,
      threads: THREADS,
      headers: t.auth ? headers : {},
    });
    const cpu = processCpuUs(t.pid) - cpu0;
    const pgCpu = postgresCpuDeltaUs(pg0, postgresCpuUs(cluster.postmasterPid()));
    return {
      requestsPerSecond: r.requests / (r.durationUs / 1e6),
      p50Ms: r.p50Us / 1000,
      p99Ms: r.p99Us / 1000,
      errors: r.errors,
      non2xx: r.non2xx,
      serverCpuUsPerRequest: cpu / r.requests,
      postgresCpuUsPerRequest: pgCpu / r.requests,
    };
  }
  type Measure = Awaited<ReturnType<typeof measure>>;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const medians = (runs: Measure[]) => ({
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    serverCpuUsPerRequest: median(runs.map((r) => r.serverCpuUsPerRequest)),
    postgresCpuUsPerRequest: median(runs.map((r) => r.postgresCpuUsPerRequest)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  });

  // Warm every target (JIT, prepared statements, caches), then measure the repeats interleaved.
  const all = new Map<string, Target>([['bare', bareTarget]]);
  for (const [scenario, targets] of Object.entries(scenarios))
    if (ONLY.has(scenario)) for (const t of targets) if (t !== bareTarget) all.set(`${scenario}/${t.name}`, t);
  for (const t of all.values()) await measure(t, WARMUP_SECONDS);
  const runs = new Map<string, Measure[]>([...all.keys()].map((k) => [k, []]));
  const ceilings: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    if (ONLY.has('list')) {
      const tps = await listSqlCeiling({
        url: cluster.url,
        clients: POOL_SIZE,
        seconds: SECONDS,
        companyId,
        search: LIST_SEARCH,
        rowsPerPage: LIST_ROWS,
      });
      if (tps !== null) {
        ceilings.push(tps);
        console.log(`  run ${i + 1} list SQL alone  ${tps.toFixed(0).padStart(6)} tps (pgbench, ${POOL_SIZE} clients)`);
      }
    }
    for (const [k, t] of all) {
      const m = await measure(t, SECONDS);
      runs.get(k)!.push(m);
      console.log(
        `  run ${i + 1} ${k.padEnd(16)} ${m.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${m.p50Ms.toFixed(1)} ms  p99 ${m.p99Ms.toFixed(1)} ms  ${m.serverCpuUsPerRequest.toFixed(0)} µs node + ${m.postgresCpuUsPerRequest.toFixed(0)} µs pg${m.non2xx || m.errors ? `  (non-2xx ${m.non2xx}, errors ${m.errors})` : ''}`,
      );
    }
  }

  const bareMedian = medians(runs.get('bare')!);
  const results: Record<string, unknown> = {};
  console.log(`\nmedians of ${REPEATS} × ${SECONDS} s, ${CONNECTIONS} connections, ${size.vms} VMs:`);
  console.log('target            req/s    p50 ms   p99 ms   node µs/req   pg µs/req');
  const row = (name: string, m: ReturnType<typeof medians>) =>
    console.log(
      `${name.padEnd(16)} ${m.requestsPerSecond.toFixed(0).padStart(6)} ${m.p50Ms.toFixed(1).padStart(9)} ${m.p99Ms.toFixed(1).padStart(8)} ${m.serverCpuUsPerRequest.toFixed(0).padStart(13)} ${m.postgresCpuUsPerRequest.toFixed(0).padStart(11)}`,
    );
  row('bare', bareMedian);
  const listSqlAlone = ceilings.length ? median(ceilings) : null;
  if (listSqlAlone !== null)
    console.log(
      `list SQL alone ${listSqlAlone.toFixed(0).padStart(7)} tps: pgbench running the list statement with no server, the most any server could answer`,
    );
  for (const scenario of ['list', 'check', 'details']) {
    if (!ONLY.has(scenario)) continue;
    const limitM = medians(runs.get(`${scenario}/limit`)!);
    const portalM = medians(runs.get(`${scenario}/portal`)!);
    row(`${scenario}/limit`, limitM);
    row(`${scenario}/portal`, portalM);
    const beforeM = runs.has(`${scenario}/before`) ? medians(runs.get(`${scenario}/before`)!) : null;
    if (beforeM) row(`${scenario}/before`, beforeM);
    const answerM = runs.has(`${scenario}/answer`) ? medians(runs.get(`${scenario}/answer`)!) : null;
    if (answerM) row(`${scenario}/answer`, answerM);
    const ratios = {
      portalOverLimitRequests: portalM.requestsPerSecond / limitM.requestsPerSecond,
      portalOverLimitP99: portalM.p99Ms / limitM.p99Ms,
      portalOverBareRequests: portalM.requestsPerSecond / bareMedian.requestsPerSecond,
      ...(answerM
        ? {
            answerOverBareRequests: answerM.requestsPerSecond / bareMedian.requestsPerSecond,
            portalOverAnswerRequests: portalM.requestsPerSecond / answerM.requestsPerSecond,
          }
        : {}),
      ...(beforeM
        ? {
            beforeOverLimitRequests: beforeM.requestsPerSecond / limitM.requestsPerSecond,
            beforeOverLimitP99: beforeM.p99Ms / limitM.p99Ms,
            beforeOverBareRequests: beforeM.requestsPerSecond / bareMedian.requestsPerSecond,
          }
        : {}),
    };
    console.log(
      `  ${scenario}: portal/limit ${ratios.portalOverLimitRequests.toFixed(2)}× req/s, p99 ${ratios.portalOverLimitP99.toFixed(2)}×; portal/bare ${ratios.portalOverBareRequests.toFixed(3)}×`,
    );
    if (answerM)
      console.log(
        `  ${scenario}: the portal's answer from a bare route ${ratios.answerOverBareRequests!.toFixed(3)}× bare; portal/that ${ratios.portalOverAnswerRequests!.toFixed(2)}× req/s`,
      );
    if (beforeM)
      console.log(
        `  ${scenario} before: before/limit ${ratios.beforeOverLimitRequests!.toFixed(2)}× req/s, p99 ${ratios.beforeOverLimitP99!.toFixed(2)}×; before/bare ${ratios.beforeOverBareRequests!.toFixed(3)}×`,
      );
    results[scenario] = {
      limit: limitM,
      portal: portalM,
      ...(beforeM ? { before: beforeM } : {}),
      ...(answerM ? { answer: answerM } : {}),
      ratios,
      runs: {
        limit: runs.get(`${scenario}/limit`),
        portal: runs.get(`${scenario}/portal`),
        before: runs.get(`${scenario}/before`),
        answer: runs.get(`${scenario}/answer`),
      },
    };
  }
  const result = {
    date: new Date().toISOString(),
    label: process.env.BENCH_LABEL ?? null,
    data: { ...size, seedSeconds },
    portalEnv,
    postgresOver: process.env.BENCH_PG_SOCKET === '1' ? 'unix socket' : 'tcp 127.0.0.1',
    baseline: process.env.BENCH_BASELINE ?? null,
    load: {
      generator: 'wrk',
      connections: CONNECTIONS,
      threads: THREADS,
      seconds: SECONDS,
      repeats: REPEATS,
      poolSize: POOL_SIZE,
    },
    bare: { median: bareMedian, runs: runs.get('bare') },
    listSqlAlone: listSqlAlone === null ? null : { transactionsPerSecond: listSqlAlone, runs: ceilings },
    ...results,
    goals: { checkOverBare: 0.5, listOverLimit: 0.9, listP99OverLimit: 1.2, listRequestsPerSecond: 2500 },
  };
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
  const file = new URL(
    `./results/api-${result.date.replace(/[:.]/g, '-')}${process.env.BENCH_LABEL ? `-${process.env.BENCH_LABEL}` : ''}.json`,
    import.meta.url,
  );
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`saved ${fileURLToPath(file)}`);
} finally {
  for (const c of children) {
    c.removeAllListeners('exit');
    c.kill('SIGTERM');
  }
  await new Promise((r) => setTimeout(r, 500));
  cluster.stop();
}

/** A GET with exactly these headers, as wrk sends it (fetch() would add Accept-Encoding). */
function getAsWrk(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: Record<string, string>; body: string }>((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ headers: res.headers as Record<string, string>, body }));
    }).on('error', reject);
  });
}

/** Paths where two JSON answers differ, with both values (the limit must answer exactly what the portal does). */
function differences(a: unknown, b: unknown, path = '$'): string[] {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      differences((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return JSON.stringify(a) === JSON.stringify(b)
    ? []
    : [`${path}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`];
}
