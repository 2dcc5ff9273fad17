/** Prints a result of api.bench.ts as a Markdown table: `node --import tsx bench/report.ts bench/results/api-….json`. */
import { readFileSync } from 'node:fs';

interface Median {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuUsPerRequest: number;
  postgresCpuUsPerRequest: number;
}
type Scenario = { limit: Median; portal: Median; before?: Median };
const file = process.argv[2];
if (!file) throw new Error('usage: report.ts <result.json>');
const result = JSON.parse(readFileSync(file, 'utf8')) as { bare: { median: Median } } & Partial<
  Record<'list' | 'check' | 'details', Scenario>
>;
const bare = result.bare.median;
const fmt = (m: Median, vsLimit?: Median) =>
  `${Math.round(m.requestsPerSecond).toLocaleString('en')} | ${m.p50Ms.toFixed(1)} ms | ${m.p99Ms.toFixed(1)} ms | ${Math.round(m.serverCpuUsPerRequest)} µs node + ${Math.round(m.postgresCpuUsPerRequest)} µs PostgreSQL | ${(m.requestsPerSecond / bare.requestsPerSecond).toFixed(3)}× | ${vsLimit ? `${(m.requestsPerSecond / vsLimit.requestsPerSecond).toFixed(2)}× req/s, p99 ${(m.p99Ms / vsLimit.p99Ms).toFixed(2)}×` : ''}`;
const lines = [
  '| Target | req/s | p50 | p99 | CPU per request | vs bare | vs limit |',
  '|---|---|---|---|---|---|---|',
  `| bare Fastify route | ${fmt(bare)} |`,
];
const names = { list: 'VM list', check: '`GET /auth/check`', details: 'VM details' };
for (const key of ['list', 'check', 'details'] as const) {
  const s = result[key];
  if (!s) continue;
  lines.push(`| ${names[key]}: the limit | ${fmt(s.limit)} |`);
  if (s.before) lines.push(`| ${names[key]}: portal before | ${fmt(s.before, s.limit)} |`);
  lines.push(`| ${names[key]}: **portal after** | ${fmt(s.portal, s.limit)} |`);
}
console.log(lines.join('\n'));
