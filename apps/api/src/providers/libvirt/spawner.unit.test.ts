/**
 * The spawn helper (spawner.ts, decision 0029) seen from a portal process of its own: a lone request is answered (the
 * helper's channel keeps the process alive while it waits), and when the portal ends, what the helper started for it
 * ends too (a process group that would not read EOF, as an event watch). The sessions' own behaviour through the
 * helper is in virsh-session.unit.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { pidAlive } from '../../../test/pid-alive.ts';
import { createSpawner } from './spawner.ts';

const execFileP = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'spawner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('answers a lone request, and ends what it started when the portal ends', async () => {
  const script = join(dir, 'portal.mts');
  const spawner = fileURLToPath(new URL('./spawner.ts', import.meta.url));
  // Nothing else keeps this process alive while it waits: no timer, no server.
  writeFileSync(
    script,
    `import { createSpawner } from ${JSON.stringify(spawner)};
const started = await createSpawner().spawn('sleep', ['60']);
console.log(started.pid);
process.exit(0);
`,
  );
  const { stdout } = await execFileP(process.execPath, ['--import', 'tsx', script], { timeout: 30_000 });
  const pid = Number(stdout.trim());
  expect(pid).toBeGreaterThan(0);
  await expect.poll(() => pidAlive(pid), { timeout: 5000 }).toBe(false);
});

it('says when the process exited, apart from its sockets (read or not), and not before', async () => {
  const spawner = createSpawner();
  const started = await spawner.spawn('sh', ['-c', 'echo bye >&2; exit 3']);
  await started.exited;
  expect(pidAlive(started.pid)).toBe(false);
  started.io.destroy();
  started.err.destroy();
  // A program that runs on is not said to have exited.
  const sleeper = await spawner.spawn('sleep', ['60']);
  const early = await Promise.race([
    sleeper.exited.then(() => 'exited'),
    new Promise((r) => setTimeout(r, 300, 'running')),
  ]);
  expect(early).toBe('running');
  process.kill(-sleeper.pid, 'SIGKILL');
  await sleeper.exited;
  expect(pidAlive(sleeper.pid)).toBe(false);
  sleeper.io.destroy();
  sleeper.err.destroy();
});
