/**
 * The list's SQL with no server at all: pgbench (its own process, prepared statements, as many clients as the
 * servers' pools hold) runs the list statement alone against the seeded cluster. Its transactions per second are
 * the most any server could answer with this statement on this machine, whatever its own overhead: the ceiling
 * the 2,500 req/s goal of issue #14 is read against.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIST } from './limit-sql.ts';

const PGBENCH = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin']
  .map((d) => join(d, 'pgbench'))
  .find(existsSync);

/** Transactions per second of one pgbench run of the list statement; null when pgbench is not installed. */
export async function listSqlCeiling(opts: {
  url: string;
  clients: number;
  seconds: number;
  companyId: number;
  search: string;
  rowsPerPage: number;
}): Promise<number | null> {
  if (!PGBENCH) return null;
  const dir = mkdtempSync(join(tmpdir(), 'sql-ceiling-'));
  try {
    // pgbench binds :names as parameters in prepared mode, as the portal binds $1…$4.
    const script = join(dir, 'list.sql');
    writeFileSync(
      script,
      `${LIST.text.replace('$1', ':company').replace('$2', ':pattern').replace('$3', ':rows').replace('$4', ':skip')};\n`,
    );
    const url = new URL(opts.url);
    const args = [
      ...['-n', '-M', 'prepared', '-c', String(opts.clients), '-j', '2', '-T', String(opts.seconds)],
      ...['-D', `company=${opts.companyId}`, '-D', `pattern=%${opts.search}%`, '-D', `rows=${opts.rowsPerPage}`],
      ...['-D', 'skip=0', '-f', script, '-h', url.hostname, '-p', url.port, '-U', url.username, url.pathname.slice(1)],
    ];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(PGBENCH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited ${code}: ${text}`))));
    });
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
    if (!tps) throw new Error(`pgbench printed no result:\n${out}`);
    return tps;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
