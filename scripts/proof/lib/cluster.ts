/**
 * A throwaway PostgreSQL cluster for the proof runs, like apps/api/test/postgres-cluster.ts (initdb + pg_ctl,
 * as the `postgres` user when root, loopback only), but one that can also be stopped hard and started again
 * on the same data: the outage run needs that.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

const PG_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

function pgBin(name: string): string {
  for (const dir of PG_BIN_DIRS) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

export interface ProofCluster {
  url: string;
  port: number;
  /** Stops the server at once (`pg_ctl -m immediate`): open connections drop, nothing is flushed. Resolves once it is down. */
  stopImmediate(): Promise<void>;
  /** Starts it again on the same data and waits until it accepts connections. */
  start(): void;
  /** Starts it again without waiting (for a caller that watches for its return itself). */
  startInBackground(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): void;
}

/** Starts a cluster on a free port (a port another engineer's cluster holds is tried again elsewhere). */
export async function startCluster(): Promise<ProofCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return startClusterOn(await freePort());
    } catch (err) {
      if (attempt >= 5) throw err;
    }
  }
}

function startClusterOn(port: number): ProofCluster {
  const root = mkdtempSync(join(tmpdir(), 'portal-proof-pg-'));
  chmodSync(root, 0o777);
  const data = join(root, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args;
    const res = spawnSync(asRoot ? 'runuser' : cmd, full, { encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`${cmd} failed: ${res.stderr || res.stdout}`);
  };
  const startArgs = [
    '-D',
    data,
    '-l',
    join(root, 'log'),
    '-w',
    '-t',
    '60',
    '-o',
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`,
    'start',
  ];
  const start = () => run(pgBin('pg_ctl'), startArgs);
  /** pg_ctl without blocking this process's event loop (the load it measures keeps running). */
  const runInBackground = (pgCtlArgs: string[]) =>
    new Promise<void>((resolve, reject) => {
      const args = asRoot ? ['-u', 'postgres', '--', pgBin('pg_ctl'), ...pgCtlArgs] : pgCtlArgs;
      const child = spawn(asRoot ? 'runuser' : pgBin('pg_ctl'), args, { stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`pg_ctl ${pgCtlArgs.at(-1)} exited ${code}`)),
      );
    });
  try {
    run(pgBin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    start();
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stopImmediate() {
      await runInBackground(['-D', data, '-m', 'immediate', 'stop']);
      stopped = true;
    },
    start() {
      start();
      stopped = false;
    },
    startInBackground() {
      stopped = false;
      return runInBackground(startArgs);
    },
    destroy() {
      try {
        if (!stopped) run(pgBin('pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
