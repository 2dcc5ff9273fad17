/**
 * A PostgreSQL cluster for the benchmark that outlives the run: its data directory is keyed by the seed's
 * size, so a second run with the same size starts the server on the seeded data instead of seeding again.
 * initdb/pg_ctl run as the `postgres` user when we are root (the server refuses to run as root).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];
const pgBin = (name: string) => PG_BIN_DIRS.map((d) => join(d, name)).find(existsSync) ?? name;

export interface BenchCluster {
  url: string;
  /** The same database over the Unix socket (no TCP loopback stack on either side). */
  socketUrl: string;
  dataDir: string;
  /** The postmaster: every backend is its child. */
  postmasterPid(): number;
  stop(): void;
}

function run(cmd: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const res = spawnSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, {
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`${cmd} failed: ${res.stderr || res.stdout}`);
}

export function startBenchCluster(key: string, port: number): BenchCluster {
  const root = join(process.env.BENCH_PG_ROOT ?? tmpdir(), `portal-bench-pg-${key}`);
  const dataDir = join(root, 'data');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o777);
    run(pgBin('initdb'), ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  }
  // A run that was killed leaves its server up: stop it so it starts with this run's settings.
  if (existsSync(join(dataDir, 'postmaster.pid'))) {
    try {
      run(pgBin('pg_ctl'), ['-D', dataDir, '-m', 'fast', 'stop']);
    } catch {
      // Not running after all (a stale pid file): pg_ctl start copes with that.
    }
  }
  // Durability off as in the tests' cluster: the figures are about CPU, not about the disk of this machine.
  run(pgBin('pg_ctl'), [
    '-D',
    dataDir,
    '-l',
    join(root, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=256MB`,
    'start',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    socketUrl: `postgres://postgres@/postgres?host=${encodeURIComponent(root)}&port=${port}`,
    dataDir,
    postmasterPid: () => Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop: () => run(pgBin('pg_ctl'), ['-D', dataDir, '-m', 'fast', 'stop']),
  };
}
