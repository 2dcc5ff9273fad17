/**
 * Soak: `--seconds` (default 600) at `--connections` (default 64) concurrent connections over a mix of
 * signed-in reads (VM list, VM details, teams, auth/check). Prints req/s, latency, errors, and the server's
 * RSS and V8 heap at start and end (sampled every 10 s). Goal: no errors.
 */
import { routes } from '@portal/contract/routes';
import type { RouteDef } from '@portal/contract/common';
import { signIn, type ApiClient, type CallInput } from './lib/client.ts';
import { createVms, percentile, readCatalog, tally, waitForStatus } from './lib/load.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { fmtBytes, option, saveResult } from './lib/report.ts';

export async function prove(args: string[]): Promise<boolean> {
  const seconds = option(args, 'seconds', 600);
  const connections = option(args, 'connections', 64);
  const env = await startProofEnv({ SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '100' });
  const { portal, smtp } = env;
  const admin = await signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
  const catalog = await readCatalog(admin);
  const vmIds = await createVms(admin, catalog, 20, 'soak');
  await waitForStatus(admin, vmIds, 'Running');
  const teamIds = (
    (await admin.call(routes.teams.list, { query: { rowsPerPage: 100 } })).data as { data: { id: number }[] }
  ).data.map((t) => t.id);
  // A few sessions, as several people would have.
  const sessions: ApiClient[] = [admin];
  for (let i = 1; i < 4; i++) sessions.push(await signIn(portal.api, smtp, ADMIN.email, ADMIN.password));

  const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
  const mix: { name: string; weight: number; make: () => [RouteDef, CallInput] }[] = [
    {
      name: 'vms.list',
      weight: 4,
      make: () => [
        routes.vms.list,
        {
          query: {
            rowsPerPage: 10,
            page: 1 + Math.floor(Math.random() * 2),
            ...(Math.random() < 0.3 ? { search: 'soak' } : {}),
          },
        },
      ],
    },
    { name: 'vms.details', weight: 3, make: () => [routes.vms.details, { params: { id: pick(vmIds) } }] },
    { name: 'teams.list', weight: 1, make: () => [routes.teams.list, { query: { rowsPerPage: 10 } }] },
    {
      name: 'teams.details',
      weight: 1,
      make: () => [routes.teams.details, { params: { id: pick(teamIds) }, query: {} }],
    },
    { name: 'auth.check', weight: 2, make: () => [routes.auth.check, {}] },
  ];
  const wheel = mix.flatMap((m) => Array.from({ length: m.weight }, () => m));

  await sleep(1000);
  const memStart = portal.memory();
  const rssStart = portal.rssFromProc();
  console.log(
    `soak: ${seconds} s at ${connections} connections; server RSS ${fmtBytes(memStart?.rss)}, heap ${fmtBytes(memStart?.heapUsed)} at start`,
  );
  const latencies: number[] = [];
  const errors: { route: string; status: number; message: string }[] = [];
  const byRoute: Record<string, { count: number; errors: number }> = {};
  const timeline: { second: number; requests: number; rss: number | null; heapUsed: number | null }[] = [];
  const started = Date.now();
  const endAt = started + seconds * 1000;
  let total = 0;
  const sampler = setInterval(() => {
    const m = portal.memory();
    timeline.push({
      second: Math.round((Date.now() - started) / 1000),
      requests: total,
      rss: m?.rss ?? null,
      heapUsed: m?.heapUsed ?? null,
    });
    const last = timeline.at(-1)!;
    console.log(
      `  ${String(last.second).padStart(4)} s  ${total} requests  ${errors.length} errors  RSS ${fmtBytes(last.rss)}  heap ${fmtBytes(last.heapUsed)}`,
    );
  }, 10_000);
  await Promise.all(
    Array.from({ length: connections }, async (_, worker) => {
      const client = sessions[worker % sessions.length]!;
      while (Date.now() < endAt) {
        const m = pick(wheel);
        const [route, input] = m.make();
        const res = await client.call(route, input);
        total++;
        latencies.push(res.ms);
        const r = (byRoute[m.name] ??= { count: 0, errors: 0 });
        r.count++;
        if (res.status !== 200) {
          r.errors++;
          errors.push({ route: m.name, status: res.status, message: res.error ?? res.message });
        }
      }
    }),
  );
  clearInterval(sampler);
  const elapsed = (Date.now() - started) / 1000;
  await sleep(1100);
  const memEnd = portal.memory();
  const rssEnd = portal.rssFromProc();
  latencies.sort((a, b) => a - b);
  const figures = {
    seconds: elapsed,
    connections,
    requests: total,
    requestsPerSecond: total / elapsed,
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? 0 },
    errors: errors.length,
    errorsByStatus: tally(errors.map((e) => e.status)),
    firstErrors: errors.slice(0, 10),
    byRoute,
    memory: { start: memStart, end: memEnd, rssFromProcStart: rssStart, rssFromProcEnd: rssEnd },
    timeline,
  };
  console.log(
    `soak: ${total} requests in ${elapsed.toFixed(1)} s = ${figures.requestsPerSecond.toFixed(0)} req/s; p50 ${figures.latencyMs.p50.toFixed(1)} ms, p99 ${figures.latencyMs.p99.toFixed(1)} ms`,
  );
  console.log(`      errors ${errors.length} ${JSON.stringify(figures.errorsByStatus)}`);
  for (const e of errors.slice(0, 5)) console.log(`      e.g. ${e.route}: ${e.status} ${e.message}`);
  console.log(
    `      server RSS ${fmtBytes(memStart?.rss)} -> ${fmtBytes(memEnd?.rss)}, heap used ${fmtBytes(memStart?.heapUsed)} -> ${fmtBytes(memEnd?.heapUsed)}`,
  );
  await env.close();
  return saveResult('soak', figures, [
    { name: 'no errors', met: errors.length === 0, value: `${errors.length} of ${total} requests failed` },
    { name: 'ran the whole time', met: elapsed >= seconds * 0.95, value: `${elapsed.toFixed(1)} of ${seconds} s` },
  ]);
}
