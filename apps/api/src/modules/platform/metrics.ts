/** Prometheus metrics: request counts and latencies (recorded by a root hook), operations and VMs from the database. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/client.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Series {
  count: number;
  sum: number;
  buckets: number[];
}

export function createMetrics() {
  const requests = new Map<string, Series>();
  return {
    /** Counts every request by method, route pattern and status. */
    install(app: FastifyInstance) {
      app.addHook('onResponse', (request, reply, done) => {
        const route = request.routeOptions.url ?? 'unmatched';
        const key = `${request.method}|${route}|${reply.statusCode}`;
        let s = requests.get(key);
        if (!s) {
          s = { count: 0, sum: 0, buckets: BUCKETS.map(() => 0) };
          requests.set(key, s);
        }
        const seconds = reply.elapsedTime / 1000;
        s.count++;
        s.sum += seconds;
        for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) s.buckets[i]!++;
        done();
      });
    },
    async render(db: Db): Promise<string> {
      const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
      const lines: string[] = [
        '# HELP portal_http_requests_total HTTP requests by method, route and status.',
        '# TYPE portal_http_requests_total counter',
      ];
      for (const [key, s] of requests) {
        const [method, route, status] = key.split('|') as [string, string, string];
        lines.push(
          `portal_http_requests_total{method="${method}",route="${esc(route)}",status="${status}"} ${s.count}`,
        );
      }
      lines.push(
        '# HELP portal_http_request_duration_seconds Request latency.',
        '# TYPE portal_http_request_duration_seconds histogram',
      );
      for (const [key, s] of requests) {
        const [method, route, status] = key.split('|') as [string, string, string];
        const labels = `method="${method}",route="${esc(route)}",status="${status}"`;
        BUCKETS.forEach((b, i) =>
          lines.push(`portal_http_request_duration_seconds_bucket{${labels},le="${b}"} ${s.buckets[i]}`),
        );
        lines.push(`portal_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
        lines.push(`portal_http_request_duration_seconds_sum{${labels}} ${s.sum.toFixed(6)}`);
        lines.push(`portal_http_request_duration_seconds_count{${labels}} ${s.count}`);
      }
      const ops = await db.execute<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from operations group by status`,
      );
      lines.push('# HELP portal_operations Durable VM operations by state.', '# TYPE portal_operations gauge');
      for (const state of ['pending', 'running', 'succeeded', 'failed']) {
        lines.push(`portal_operations{state="${state}"} ${ops.rows.find((r) => r.status === state)?.n ?? 0}`);
      }
      const vms = await db.execute<{ status: string; n: number }>(
        sql`select status, count(*)::int as n from virtual_machines where deleted_at is null group by status`,
      );
      lines.push('# HELP portal_virtual_machines Virtual machines by status.', '# TYPE portal_virtual_machines gauge');
      for (const r of vms.rows) lines.push(`portal_virtual_machines{status="${esc(r.status)}"} ${r.n}`);
      return `${lines.join('\n')}\n`;
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
