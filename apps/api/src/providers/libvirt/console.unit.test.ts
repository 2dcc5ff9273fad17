/**
 * Where the console of a libvirt machine is reached from: the URI's host, the ssh tunnel's command, the VNC display.
 * The tunnel against a real sshd and QEMU: libvirt-console.test.ts.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostOfUri,
  libvirtConsoleChannels,
  parseVncDisplay,
  SERIAL_TAKEN_OVER,
  serialConsoleUri,
  sshTunnelCommand,
  type SshHost,
} from './console.ts';
import { pidAlive } from '../../../test/pid-alive.ts';

it('treats local and loopback URIs as local, qemu+ssh as a tunnel, anything else as unreachable for VNC', () => {
  expect(hostOfUri('qemu:///system')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu:///system?socket=/tmp/x/libvirt-sock')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu+tcp://127.0.0.1:16509/system')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu+ssh://root@[::1]:22/system')).toEqual({ kind: 'local' });
  const ssh = { keyfile: null, noVerify: false, command: null };
  expect(hostOfUri('qemu+ssh://root@kvm1.example.net:2222/system')).toEqual({
    kind: 'ssh',
    user: 'root',
    host: 'kvm1.example.net',
    port: 2222,
    ...ssh,
  });
  expect(hostOfUri('qemu+ssh://kvm1/system')).toEqual({ kind: 'ssh', user: null, host: 'kvm1', port: null, ...ssh });
  expect(hostOfUri('qemu+tls://kvm2.example.net/system')).toEqual({ kind: 'other', host: 'kvm2.example.net' });
});

it("reads libvirt's ssh parameters from the URI as libvirt does", () => {
  expect(
    hostOfUri('qemu+ssh://ops@[fd00::7]/system?KeyFile=/etc/irontech/id%20ed25519&no_verify=1&command=/opt/ssh'),
  ).toEqual({
    kind: 'ssh',
    user: 'ops',
    host: 'fd00::7',
    port: null,
    keyfile: '/etc/irontech/id ed25519',
    noVerify: true,
    command: '/opt/ssh',
  });
  // atoi(): only a non-zero number turns host key checking off.
  expect(hostOfUri('qemu+ssh://kvm1/system?no_verify=0')).toMatchObject({ noVerify: false });
  expect(hostOfUri('qemu+ssh://kvm1/system?no_verify=yes')).toMatchObject({ noVerify: false });
});

it('builds the tunnel with the key, port, user and host-key policy of the URI, never prompting', () => {
  const host = hostOfUri('qemu+ssh://root@kvm1:2222/system?keyfile=/k&no_verify=1') as SshHost;
  expect(sshTunnelCommand(host, '127.0.0.1', 5901)).toEqual({
    command: 'ssh',
    args: [
      ...['-p', '2222', '-l', 'root', '-i', '/k', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no'],
      ...['-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=15', '-W', '127.0.0.1:5901', '--', 'kvm1'],
    ],
  });
  const plain = sshTunnelCommand(hostOfUri('qemu+ssh://kvm1/system?command=/opt/ssh') as SshHost, '::1', 5900);
  expect(plain.command).toBe('/opt/ssh');
  expect(plain.args).not.toContain('StrictHostKeyChecking=no');
  expect(plain.args.slice(-4)).toEqual(['-W', '[::1]:5900', '--', 'kvm1']);
});

it("gives the serial console's virsh no_tty=1 on ssh URIs, so ssh never asks on the console's terminal", () => {
  expect(serialConsoleUri('qemu+ssh://root@kvm1/system')).toBe('qemu+ssh://root@kvm1/system?no_tty=1');
  expect(serialConsoleUri('qemu+ssh://kvm1/system?keyfile=/k')).toBe('qemu+ssh://kvm1/system?keyfile=/k&no_tty=1');
  expect(serialConsoleUri('qemu+ssh://kvm1/system?no_tty=0')).toBe('qemu+ssh://kvm1/system?no_tty=0');
  expect(serialConsoleUri('qemu:///system')).toBe('qemu:///system');
});

it('reads the VNC port from virsh domdisplay', () => {
  expect(parseVncDisplay('vnc://127.0.0.1:0\n')).toEqual({ address: '127.0.0.1', port: 5900 });
  expect(parseVncDisplay('vnc://[::1]:12')).toEqual({ address: '::1', port: 5912 });
  expect(parseVncDisplay('spice://127.0.0.1:5930')).toBeNull();
});

/** The driver's virsh for a console: its connection's URI, and one answer to every command. */
const virshOf = (uri: string, answer: string) => ({
  uri,
  connectUri: () => Promise.resolve(uri),
  run: () => Promise.resolve(answer),
  maybe: () => Promise.resolve(null),
  close: () => undefined,
  sessionPid: () => null,
});

describe('the VNC tunnel process', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-tunnel-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The console of a qemu+ssh host whose `ssh` (the URI's command=) is this shell script. */
  async function vncWith(script: string): Promise<Duplex> {
    const ssh = path.join(dir, `ssh-${Math.random().toString(36).slice(2)}`);
    await writeFile(ssh, `#!/bin/sh\n${script}\n`);
    await chmod(ssh, 0o755);
    const virsh = virshOf(`qemu+ssh://root@kvm1/system?command=${ssh}`, 'vnc://127.0.0.1:0\n');
    return libvirtConsoleChannels('irontech-x', { virsh, virshBinary: 'virsh' }).vnc!();
  }

  it("refuses a tunnel that cannot connect, with ssh's complaint", async () => {
    await expect(vncWith('echo "root@kvm1: Permission denied (publickey)." >&2; exit 255')).rejects.toThrow(
      /ssh tunnel ended \(255\): root@kvm1: Permission denied \(publickey\)\./,
    );
  });

  it('opens once the VNC server spoke, relays both ways from its first byte, and ends ssh when closed', async () => {
    const pidFile = path.join(dir, 'pid');
    // Stands in for ssh -W: records its pid, checks what it was asked for, then is the VNC server (greeting, echo).
    const stream = await vncWith(
      `echo $$ > ${pidFile}; [ "$*" = "-l root -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=15 -W 127.0.0.1:5900 -- kvm1" ] || exit 3; printf 'RFB 003.008\\n'; exec cat`,
    );
    const received: Buffer[] = [];
    const errors: string[] = [];
    stream.on('data', (b: Buffer) => received.push(b));
    // As the relay does (console-socket.ts): ending the stream reports an AbortError.
    stream.on('error', (err) => errors.push(err.name));
    stream.write('ping');
    await expect.poll(() => Buffer.concat(received).toString()).toBe('RFB 003.008\nping');
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(pidAlive(pid)).toBe(true);
    stream.destroy();
    await expect.poll(() => pidAlive(pid)).toBe(false);
    expect(errors.filter((name) => name !== 'AbortError')).toEqual([]);
  });
});

describe('the serial console process', () => {
  let dir = '';
  let log = '';
  let virshBinary = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-serial-'));
    log = path.join(dir, 'log');
    virshBinary = path.join(dir, 'virsh');
    // Stands in for `virsh -c URI console --force REF` on its terminal: greets as virsh does, echoes what is typed in
    // raw mode, and leaves on Ctrl-] or a signal, writing which.
    await writeFile(
      virshBinary,
      [
        '#!/bin/bash',
        // The trap first: a stand-in that wrote "open" always writes "close" (one signalled sooner writes neither).
        `trap 'echo "close $$ $5 signal" >> ${log}; exit 1' TERM HUP`,
        `echo "open $$ $5" >> ${log}`,
        `printf "Connected to domain '%s'\\r\\nEscape character is ^] (Ctrl + ])\\r\\n" "$5"`,
        'stty raw -echo',
        `while IFS= read -r -n1 -d '' c; do [ "$c" = $'\\x1d' ] && break; printf '%s' "$c"; done`,
        `echo "close $$ $5 escape" >> ${log}`,
        '',
      ].join('\n'),
    );
    await chmod(virshBinary, 0o755);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const virsh = virshOf('qemu:///system', '');
  /** What the stand-in virsh of one machine wrote: "open <pid>", "close <pid> escape|signal". */
  const events = async (ref: string) =>
    (await readFile(log, 'utf8').catch(() => ''))
      .split('\n')
      .filter((line) => line.split(' ')[2] === ref)
      .map((line) =>
        line
          .split(' ')
          .filter((_, i) => i !== 2)
          .join(' '),
      );

  async function open(ref: string) {
    const stream = await libvirtConsoleChannels(ref, { virsh, virshBinary }).serial!();
    const received: Buffer[] = [];
    const session = { stream, received, closed: false, text: () => Buffer.concat(received).toString() };
    stream.on('data', (b: Buffer) => received.push(b));
    stream.on('error', () => undefined);
    stream.on('close', () => (session.closed = true));
    return session;
  }

  it('relays what is typed once virsh is live, without its greeting, and ends virsh with its escape key', async () => {
    const a = await open('irontech-a');
    a.stream.write('hello');
    await expect.poll(a.text).toBe('hello');
    a.stream.destroy();
    await expect
      .poll(() => events('irontech-a'))
      .toEqual([expect.stringMatching(/^open \d+$/), expect.stringMatching(/^close \d+ escape$/)]);
  });

  it('ends the open console of a machine before a newer one starts, and tells its page why', async () => {
    const first = await open('irontech-b');
    first.stream.write('1');
    await expect.poll(first.text).toBe('1');
    // Two more at once: they take the line in the order they asked, each after the one before has left.
    const [second, third] = await Promise.all([open('irontech-b'), open('irontech-b')]);
    // Another machine's console is not in the way.
    const other = await open('irontech-c');
    third.stream.write('3');
    await expect.poll(third.text).toBe('3');
    await expect.poll(() => first.closed && second.closed).toBe(true);
    expect(first.text()).toBe(`1${SERIAL_TAKEN_OVER}`);
    expect(second.text()).toBe(SERIAL_TAKEN_OVER);
    expect(third.closed || other.closed).toBe(false);

    // One at a time: each left before the next opened (the first, live, on Ctrl-]; the second, perhaps still
    // starting, on its escape key or a signal, or it was ended before its virsh ran); the third has the line.
    const b = await events('irontech-b');
    let live = 0;
    for (const e of b) {
      live += e.startsWith('open') ? 1 : -1;
      expect(live, b.join(', ')).toBeLessThanOrEqual(1);
    }
    expect(b[1]).toBe(`close ${b[0]!.split(' ')[1]} escape`);
    expect(live).toBe(1);
    expect(b.length === 3 || b.length === 5, b.join(', ')).toBe(true);
    third.stream.destroy();
    other.stream.destroy();
    await expect.poll(async () => (await events('irontech-b')).at(-1)).toMatch(/^close \d+ escape$/);
    await expect.poll(async () => (await events('irontech-c')).length).toBe(2);
  });
});
