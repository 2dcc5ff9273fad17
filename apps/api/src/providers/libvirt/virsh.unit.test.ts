/**
 * The virsh runner with a stand-in `virsh` (a shell script): a call that outlives its timeout ends with every
 * process it started — over qemu+ssh that is ssh — and the caller gets a transient error; output and failures
 * come back as before.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TransientProviderError } from '../provider.ts';
import { createVirsh, VirshError } from './virsh.ts';
import { pidAlive } from '../../../test/pid-alive.ts';

const dir = mkdtempSync(join(tmpdir(), 'virsh-stand-in-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function standIn(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('virsh runner', () => {
  it('answers stdout, and a failure with its stderr', async () => {
    const ok = createVirsh('qemu:///system', standIn('ok', 'echo "args: $*"'));
    expect(await ok.run(['list', '--name'])).toBe('args: -q -c qemu:///system list --name\n');
    const fails = createVirsh(
      'qemu:///system',
      standIn('fails', 'echo "error: failed to get domain \'x\'" >&2; exit 1'),
    );
    await expect(fails.run(['dominfo', 'x'])).rejects.toBeInstanceOf(VirshError);
    expect(await fails.maybe(['dominfo', 'x'])).toBeNull();
  });

  it('takes a daemon that restarted under the call for a passing outage, not a failure of the command', async () => {
    const restarted = createVirsh(
      'qemu:///system',
      standIn('restarted', 'echo "error: Disconnected from qemu:///system due to end of file" >&2; exit 1'),
    );
    await expect(restarted.run(['domstate', 'x'])).rejects.toBeInstanceOf(TransientProviderError);
  });

  it('ends the whole process group when a call takes too long', async () => {
    const pidFile = join(dir, 'child.pid');
    // Like virsh over qemu+ssh: a child (ssh) that would outlive virsh if only virsh were killed.
    const hangs = createVirsh('qemu+ssh://h/system', standIn('hangs', `sleep 60 & echo $! > ${pidFile}; wait`), 60_000);
    const t0 = Date.now();
    await expect(hangs.run(['version'], { timeoutMs: 500 })).rejects.toBeInstanceOf(TransientProviderError);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => pidAlive(child), { timeout: 2_000 }).toBe(false);
  });
});
