/**
 * Runs the portal as its own process, the way an operator does (`node --import tsx apps/api/src/server.ts`),
 * on loopback, with a throwaway PostgreSQL cluster, a temporary DATA_DIR and a real SMTP catcher.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_API_BASE_PATH } from '@portal/contract/constants';
import { startSmtpCatcher, type SmtpCatcher } from '../../../apps/api/test/smtp-catcher.ts';
import { startCluster, type ProofCluster } from './cluster.ts';
import { freePort } from './free-port.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
export const ADMIN = { email: 'admin@example.com', password: 'Proof-Admin-Password-1!' } as const;
const SERVER_ENTRY = join(REPO_ROOT, 'apps/api/src/server.ts');
const MEMORY_PROBE = join(REPO_ROOT, 'scripts/proof/lib/memory-probe.ts');

export interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

export interface PortalProcess {
  origin: string;
  /** Origin + API base path. */
  api: string;
  port: number;
  pid(): number;
  /** SIGKILL: no shutdown hook runs. */
  kill9(): Promise<void>;
  /** Starts the same portal again (same env, port, database and DATA_DIR); resolves once it answers. */
  restart(env?: Record<string, string>): Promise<void>;
  /** The server's own memory, as its preloaded probe last wrote it. */
  memory(): Memory | null;
  /** Resident set size from /proc, for a second opinion. */
  rssFromProc(): number | null;
  logFile: string;
}

export interface ProofEnv {
  cluster: ProofCluster;
  smtp: SmtpCatcher;
  portal: PortalProcess;
  dataDir: string;
  /** Stops everything this run started; safe to call twice. */
  close(): Promise<void>;
}

/** Every environment still open, so that an interrupted or timed-out run can stop what it started. */
export const openEnvs = new Set<ProofEnv>();

async function waitUntilAnswering(
  api: string,
  child: ChildProcess,
  logFile: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the portal exited (${child.exitCode ?? child.signalCode}) while starting; its log:\n${tail(logFile)}`,
      );
    }
    try {
      const res = await fetch(`${api}/healthCheck/api`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(`the portal did not answer within ${timeoutMs} ms; its log:\n${tail(logFile)}`);
    await sleep(100);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '(no log)';
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Starts PostgreSQL, the SMTP catcher and the portal. `env` adds to (or overrides) the portal's settings. */
export async function startProofEnv(env: Record<string, string> = {}): Promise<ProofEnv> {
  const cluster = await startCluster();
  const smtp = await startSmtpCatcher();
  const dataDir = mkdtempSync(join(tmpdir(), 'portal-proof-data-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const api = `${origin}${DEFAULT_API_BASE_PATH}`;
  const logFile = join(dataDir, 'server.log');
  const memoryFile = join(dataDir, 'memory.json');
  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? dataDir,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: origin,
    DATABASE_URL: cluster.url,
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    SEED_ADMIN_EMAIL: ADMIN.email,
    SEED_ADMIN_PASSWORD: ADMIN.password,
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'warn',
    PROOF_MEMORY_FILE: memoryFile,
    ...env,
  };
  let child: ChildProcess | null = null;
  const launch = async (extra: Record<string, string> = {}) => {
    const log = createWriteStream(logFile, { flags: 'a' });
    child = spawn(process.execPath, ['--import', 'tsx', '--import', MEMORY_PROBE, SERVER_ENTRY], {
      cwd: REPO_ROOT,
      env: { ...baseEnv, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    await waitUntilAnswering(api, child, logFile);
  };
  const kill9 = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill('SIGKILL');
    await exited;
  };
  try {
    await launch();
  } catch (err) {
    await kill9();
    await smtp.close();
    cluster.destroy();
    throw err;
  }
  const portal: PortalProcess = {
    origin,
    api,
    port,
    pid: () => child?.pid ?? -1,
    kill9,
    restart: async (extra) => {
      await kill9();
      await launch(extra);
    },
    memory() {
      try {
        return JSON.parse(readFileSync(memoryFile, 'utf8')) as Memory;
      } catch {
        return null;
      }
    },
    rssFromProc() {
      const pid = child?.pid;
      if (!pid || !existsSync(`/proc/${pid}/status`)) return null;
      const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      return kb ? Number(kb) * 1024 : null;
    },
    logFile,
  };
  let closed = false;
  const proofEnv: ProofEnv = {
    cluster,
    smtp,
    portal,
    dataDir,
    async close() {
      if (closed) return;
      closed = true;
      // The portal first (SIGTERM, then SIGKILL if it lingers), then its database and mail.
      const c = child as ChildProcess | null;
      if (c && c.exitCode === null && c.signalCode === null) {
        const exited = new Promise<void>((r) => c.once('exit', () => r()));
        c.kill('SIGTERM');
        await Promise.race([exited, sleep(5000)]);
        await kill9();
      }
      await smtp.close();
      cluster.destroy();
      if (!process.env.PROOF_KEEP) rmSync(dataDir, { recursive: true, force: true });
      openEnvs.delete(proofEnv);
    },
  };
  openEnvs.add(proofEnv);
  return proofEnv;
}
