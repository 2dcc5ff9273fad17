/**
 * An operator command while the portal runs on the embedded database (issue 23 item 7): it used to exit 0 and the
 * running portal never saw the change (two processes, two copies of one PGlite directory). Now the command is
 * refused with what to do, and works once the portal has stopped. A real server process and the CLI as a child
 * process, as an operator runs them; PGlite only (on PostgreSQL both run at once).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client.ts';
import { lockDataDir } from '../db/data-dir-lock.ts';

const serverTs = fileURLToPath(new URL('../server.ts', import.meta.url));
const operatorTs = fileURLToPath(new URL('./operator.ts', import.meta.url));
const env = (dataDir: string) => ({
  ...process.env,
  DATABASE_URL: '',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  PORT: '0',
  DATA_DIR: dataDir,
});

/** Starts the server and resolves once it listens (it prints its sign-in lines). */
function startServer(dataDir: string): Promise<ChildProcessWithoutNullStreams> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', serverTs], { env: env(dataDir) });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start: ${out}`));
    }, 240_000);
    child.stdout.on('data', (d) => {
      out += String(d);
      if (/Lost a password\?/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on('data', (d) => (out += String(d)));
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
}

function operator(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', operatorTs, ...args], {
    env: env(dataDir),
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { code: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe('operator commands and a portal running on PGlite', () => {
  it(
    'refuses while the portal runs, saying what to do, and works once it has stopped',
    { timeout: 600_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'op-running-'));
      const server = await startServer(dataDir);
      try {
        const refused = operator(dataDir, 'public-ip', 'add', 'US East', '203.0.113.7');
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          `The portal is running on the embedded database in ${dataDir} (pid ${server.pid}): stop it first, or use DATABASE_URL (PostgreSQL) to change it while it runs.`,
        );
        // Reads are refused as well: the portal's copy is the only current one.
        expect(operator(dataDir, 'public-ip', 'list').code).toBe(1);
        // So is describing an image (decision 0018), with the same words.
        const describe = operator(dataDir, 'images', 'describe', 'Debian 12', '--min-disk', '3');
        expect([describe.code, describe.stderr]).toEqual([1, refused.stderr]);
      } finally {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await exited;
      }
      expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
      const added = operator(dataDir, 'public-ip', 'add', 'US East', '203.0.113.7');
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(added.stdout).toBe('Added 1 public address(es) to US East.');
      const db = await openDatabase({ dataDir });
      try {
        const { rows } = await db.db.execute<{ n: number }>(
          sql`select count(*)::int as n from public_addresses where address = '203.0.113.7'`,
        );
        expect(rows).toEqual([{ n: 1 }]);
      } finally {
        await db.close();
      }
    },
  );

  it('takes over the lock of a process that is gone or whose pid was reused, and names another live holder', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'op-lock-'));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dataDir, 'pglite.lock'), `${gone.stdout}\nserver\n`);
    const release = lockDataDir(dataDir, 'operator command');
    release();
    expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    // A live holder that is not the portal: the message says what holds it.
    const sleeper = spawn('sleep', ['30']);
    try {
      writeFileSync(join(dataDir, 'pglite.lock'), `${sleeper.pid}\noperator command\n`);
      expect(() => lockDataDir(dataDir)).toThrow(
        `The embedded database in ${dataDir} is in use by another operator command (pid ${sleeper.pid}): wait for it to end, or use DATABASE_URL (PostgreSQL) for more than one process at a time.`,
      );
      // The same pid, started at another time (a reused pid, a restarted container): not the holder.
      writeFileSync(join(dataDir, 'pglite.lock'), `${sleeper.pid}\nserver\n1\n`);
      lockDataDir(dataDir, 'operator command')();
      expect(existsSync(join(dataDir, 'pglite.lock'))).toBe(false);
    } finally {
      sleeper.kill();
    }
  });
});
