/** Runs wrk (its own process) against one URL and reads its JSON summary. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../wrk-report.lua', import.meta.url));

export interface WrkResult {
  requests: number;
  durationUs: number;
  errors: number;
  non2xx: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
}

export function wrk(
  url: string,
  opts: { seconds: number; connections: number; threads: number; headers?: Record<string, string> },
): Promise<WrkResult> {
  const args = [
    '-t',
    String(opts.threads),
    '-c',
    String(opts.connections),
    '-d',
    `${opts.seconds}s`,
    '--latency',
    '-s',
    script,
  ];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (code !== 0 || !line) return reject(new Error(`wrk failed (${code}): ${out}`));
      resolve(JSON.parse(line.slice('WRK_JSON '.length)) as WrkResult);
    });
  });
}
