/**
 * A private sshd for tests: the "remote" machine of a `qemu+ssh://` libvirt URI, on another loopback address than
 * 127.0.0.1 (the console code treats 127.0.0.1 and localhost as this machine). Its own host key, config, port and
 * authorized key, all in a temporary directory; root may log in with that key only.
 *
 * `command` is an ssh client wrapper for the URI's `command=` parameter: it keeps the known hosts in the same
 * directory, so `no_verify=1` (ssh -o StrictHostKeyChecking=no, which records the new host key) writes there and not
 * into root's ~/.ssh. libvirt and the API's VNC tunnel both run it, as they would run `ssh` on a real deployment.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.ts';

const execFileP = promisify(execFile);
const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  address: string;
  port: number;
  /** The private key root's authorized_keys accepts (the URI's `keyfile=`). */
  keyfile: string;
  /** The ssh client for the URI's `command=` (known hosts kept beside the key). */
  command: string;
  /** What clients recorded with no_verify=1. */
  knownHostsFile: string;
  /** root's authorized_keys (a test adds the portal's own key to it). */
  authorizedKeysFile: string;
  /** The server's host key, public half (`ssh-ed25519 AAAA… comment`). */
  hostPublicKey: string;
  stop(): Promise<void>;
}

export interface TestSshdOptions {
  /**
   * Runs instead of whatever the client asks (sshd's ForceCommand; port forwarding is not affected): a host whose
   * libvirtd socket is at the standard place, e.g. `nc -U <the test daemon's socket>`, for a client that may not
   * name the socket in its URI (a reseller's qemu+ssh host).
   */
  forceCommand?: string;
}

export async function startTestSshd(address = '127.0.0.2', options: TestSshdOptions = {}): Promise<TestSshd> {
  if (!existsSync(SSHD))
    throw new Error(`${SSHD} is missing: run .ci/run (apt-get install --no-install-recommends openssh-server)`);
  // Without PAM sshd refuses an account whose password is locked with "!", even for a key.
  const rootHash = (await readFile('/etc/shadow', 'utf8'))
    .split('\n')
    .find((l) => l.startsWith('root:'))
    ?.split(':')[1];
  if (rootHash?.startsWith('!'))
    throw new Error(
      'root is locked ("!" in /etc/shadow): the test sshd (no PAM) would refuse root; run usermod -p "*" root',
    );
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-sshd-'));
  const f = (name: string) => path.join(dir, name);
  await execFileP('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'irontech-test-host', '-f', f('host_ed25519')]);
  await execFileP('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'irontech-test-client', '-f', f('id_ed25519')]);
  await writeFile(f('authorized_keys'), await readFile(f('id_ed25519.pub')), { mode: 0o600 });
  // sshd's privilege separation directory; the Debian package leaves its creation to systemd.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort(address);
  await writeFile(
    f('sshd_config'),
    [
      `ListenAddress ${address}:${port}`,
      `HostKey ${f('host_ed25519')}`,
      'PidFile none',
      `AuthorizedKeysFile ${f('authorized_keys')}`,
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      // The key files live in a world-readable temporary directory.
      'StrictModes no',
      // -W is a local forward; nothing else is needed.
      'AllowTcpForwarding local',
      'AllowAgentForwarding no',
      'X11Forwarding no',
      'PermitTTY no',
      // bash as sshd's command shell sources ~/.bashrc when it is the first shell level; a heavy one (pyenv init on a
      // developer's machine: 2+ s) would slow every libvirt call. The session starts at level 1, so it does not.
      'SetEnv SHLVL=1',
      ...(options.forceCommand ? [`ForceCommand ${options.forceCommand}`] : []),
      '',
    ].join('\n'),
  );
  await writeFile(
    f('ssh_config'),
    [`UserKnownHostsFile ${f('known_hosts')}`, 'GlobalKnownHostsFile /dev/null', 'IdentityAgent none', ''].join('\n'),
  );
  await writeFile(f('ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F ${f('ssh_config')} "$@"\n`);
  await chmod(f('ssh'), 0o755);

  const sshd: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', f('sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start: ${log}`)), 10_000);
    sshd.stderr!.on('data', (b: Buffer) => {
      log = (log + b.toString()).slice(-4000);
      if (log.includes('Server listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    sshd.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code}: ${log}`));
    });
  });

  return {
    address,
    port,
    keyfile: f('id_ed25519'),
    command: f('ssh'),
    knownHostsFile: f('known_hosts'),
    authorizedKeysFile: f('authorized_keys'),
    hostPublicKey: (await readFile(f('host_ed25519.pub'), 'utf8')).trim(),
    async stop() {
      if (sshd.exitCode === null && sshd.signalCode === null) {
        const exited = new Promise((r) => sshd.once('exit', r));
        sshd.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
