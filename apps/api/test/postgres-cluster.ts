/**
 * A throwaway PostgreSQL cluster for the tests: initdb + pg_ctl as the `postgres` user (root may not
 * run the server) on a private port and socket directory, removed afterwards.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cluster {
  url: string;
  stop(): void;
}

const PG_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

function pgBin(name: string): string {
  for (const dir of PG_BIN_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

const randomPort = () => 55432 + Math.floor(Math.random() * 1000);

/**
 * Starts the cluster on `port`, or on a random one; a random port that something else holds (the other Vitest
 * process's cluster, a test's listener, an outgoing connection's ephemeral port) is traded for another.
 */
export function startPostgresCluster(port?: number): Cluster {
  const root = mkdtempSync(join(tmpdir(), 'portal-pg-'));
  chmodSync(root, 0o777);
  const data = join(root, 'data');
  const log = join(root, 'log');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args;
    const res = spawnSync(asRoot ? 'runuser' : cmd, full, { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`${cmd} failed: ${res.stderr || res.stdout}`);
  };
  run(pgBin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = (p: number) =>
    run(pgBin('pg_ctl'), [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-o',
      `-p ${p} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
      'start',
    ]);
  let chosen = port ?? randomPort();
  for (let attempt = 1; ; attempt++) {
    try {
      start(chosen);
      break;
    } catch (e) {
      const inUse = /already in use|could not bind|could not create any TCP\/IP sockets/i.test(readLog(log));
      if (port !== undefined || !inUse || attempt >= 5) throw e;
      chosen = randomPort();
    }
  }
  return {
    url: `postgres://postgres@127.0.0.1:${chosen}/postgres`,
    stop() {
      try {
        run(pgBin('pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** True when this machine can run a PostgreSQL server. */
export function postgresAvailable(): boolean {
  try {
    execFileSync(pgBin('initdb'), ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
