/**
 * PostgreSQL outage under load: signed-in requests run in a loop (`--connections`, default 8) while the
 * throwaway cluster is stopped hard (`pg_ctl -m immediate`) for `--outage` seconds (default 20), then started
 * again. Reports every status answered while the database was down (goal: only 503, each with Retry-After)
 * and the time from PostgreSQL accepting connections again to the first successful answer (goal: < 1 s).
 */
import pg from 'pg';
import { routes } from '@portal/contract/routes';
import type { RouteDef } from '@portal/contract/common';
import { signIn, type CallInput } from './lib/client.ts';
import { tally } from './lib/load.ts';
import { ADMIN, sleep, startProofEnv } from './lib/portal.ts';
import { option, saveResult } from './lib/report.ts';

interface Sample {
  route: string;
  sentAt: number;
  answeredAt: number;
  status: number;
  retryAfter: string | null;
  message: string;
}

/** Polls PostgreSQL until a query answers; returns when it did (ms since the epoch). */
async function waitForPostgres(url: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 500 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      const at = Date.now();
      await client.end();
      return at;
    } catch {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error('PostgreSQL did not come back');
      await sleep(20);
    }
  }
}

export async function prove(args: string[]): Promise<boolean> {
  const outageSeconds = option(args, 'outage', 20);
  const connections = option(args, 'connections', 8);
  const env = await startProofEnv();
  const { portal, smtp, cluster } = env;
  const admin = await signIn(portal.api, smtp, ADMIN.email, ADMIN.password);
  const mix: [string, RouteDef, CallInput][] = [
    ['vms.list', routes.vms.list, { query: { rowsPerPage: 10 } }],
    ['auth.check', routes.auth.check, {}],
    ['teams.list', routes.teams.list, { query: {} }],
    ['users.me', routes.password.me, {}],
  ];
  const samples: Sample[] = [];
  let stopLoad = false;
  const load = Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      let i = w;
      while (!stopLoad) {
        const [name, route, input] = mix[i++ % mix.length]!;
        const sentAt = Date.now();
        const res = await admin.call(route, input);
        samples.push({
          route: name,
          sentAt,
          answeredAt: Date.now(),
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
          message: res.error ?? res.message,
        });
        // A small pause so a fast failure does not turn into a flood.
        await sleep(10);
      }
    }),
  );

  await sleep(3000);
  console.log(
    `outage: stopping PostgreSQL for ${outageSeconds} s under ${connections} connections of signed-in requests`,
  );
  const downAt = Date.now();
  await cluster.stopImmediate();
  const stoppedAt = Date.now();
  await sleep(outageSeconds * 1000 - (stoppedAt - downAt));
  const restart = cluster.startInBackground();
  const backAt = await waitForPostgres(cluster.url);
  await restart;
  console.log(
    `outage: PostgreSQL accepts connections again after ${((backAt - stoppedAt) / 1000).toFixed(1)} s (the stop took ${stoppedAt - downAt} ms)`,
  );
  await sleep(10_000);
  stopLoad = true;
  await load;

  // Down from the moment pg_ctl reports the server stopped until a query answers again; answers in the
  // instant the stop took (requests already past the database) count for neither side.
  const before = samples.filter((s) => s.answeredAt < downAt);
  const duringStop = samples.filter((s) => s.answeredAt >= downAt && s.answeredAt < stoppedAt);
  const whileDown = samples.filter((s) => s.answeredAt >= stoppedAt && s.answeredAt < backAt);
  const after = samples.filter((s) => s.answeredAt >= backAt).sort((a, b) => a.answeredAt - b.answeredAt);
  const firstSuccess = after.find((s) => s.status === 200);
  const recoveryMs = firstSuccess ? firstSuccess.answeredAt - backAt : null;
  const notAsPromised = whileDown.filter((s) => s.status !== 503 || !s.retryAfter);
  const afterRecovery = firstSuccess ? after.filter((s) => s.sentAt > firstSuccess.answeredAt) : [];
  const figures = {
    outageSeconds: (backAt - stoppedAt) / 1000,
    stopTookMs: stoppedAt - downAt,
    duringStop: { requests: duringStop.length, statuses: tally(duringStop.map((s) => s.status)) },
    connections,
    requests: samples.length,
    before: { requests: before.length, statuses: tally(before.map((s) => s.status)) },
    whileDown: {
      requests: whileDown.length,
      statuses: tally(whileDown.map((s) => s.status)),
      withRetryAfter: whileDown.filter((s) => s.retryAfter !== null).length,
      messages: tally(whileDown.map((s) => `${s.status} ${s.message}`)),
      examples: notAsPromised.slice(0, 5),
    },
    recoveryMs,
    afterRecovery: { requests: afterRecovery.length, statuses: tally(afterRecovery.map((s) => s.status)) },
  };
  console.log(`outage: before ${JSON.stringify(figures.before.statuses)}`);
  console.log(
    `        while down (${whileDown.length} answers): ${JSON.stringify(figures.whileDown.statuses)}, ${figures.whileDown.withRetryAfter} with Retry-After`,
  );
  for (const [m, n] of Object.entries(figures.whileDown.messages)) console.log(`          ${n} × ${m}`);
  console.log(`        first success ${recoveryMs === null ? 'never' : `${recoveryMs} ms`} after PostgreSQL's return`);
  console.log(`        after that: ${JSON.stringify(figures.afterRecovery.statuses)}`);
  await env.close();
  return saveResult('outage', figures, [
    {
      name: 'only 503 with Retry-After while down',
      met: whileDown.length > 0 && notAsPromised.length === 0,
      value: `${notAsPromised.length} of ${whileDown.length} answers were not (${JSON.stringify(figures.whileDown.statuses)})`,
    },
    {
      name: 'first success within 1 s of the return',
      met: recoveryMs !== null && recoveryMs < 1000,
      value: recoveryMs === null ? 'no success' : `${recoveryMs} ms`,
    },
    {
      name: 'every answer 200 once recovered',
      met: afterRecovery.length > 0 && afterRecovery.every((s) => s.status === 200),
      value: JSON.stringify(figures.afterRecovery.statuses),
    },
  ]);
}
