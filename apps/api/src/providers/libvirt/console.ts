/**
 * The interactive consoles of a libvirt machine, as byte streams the API relays to the browser.
 *
 * - VNC: QEMU listens on the host's loopback (xml.ts). `virsh domdisplay` names the display; on a local host
 *   (a `qemu:///…` URI or a URI whose host is loopback) the API connects to it directly. On a `qemu+ssh://` host
 *   it runs `ssh -W 127.0.0.1:<port>` as libvirt's own ssh transport would run ssh for that URI (its `command=`,
 *   user, port, `keyfile=` and `no_verify=`): the tunnel is that one child process, living exactly as long as the
 *   console. Other transports (tls, tcp to another machine) have no tunnel and are refused (docs/virtual-machines.md,
 *   "How the console reaches a remote libvirt host").
 * - Serial: `virsh console --force` over the libvirt connection itself, so it works on every transport. virsh
 *   insists on a terminal, so it runs under `script` (util-linux), which gives it a pseudo-terminal; its greeting is
 *   dropped, input is held until virsh's terminal is raw, and Ctrl-] (virsh's escape key) never comes from the
 *   browser: the API sends it to end the console.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Duplex } from 'node:stream';
import type { ConsoleChannels } from '../provider.ts';
import { keyedQueue } from './host-objects.ts';
import type { Virsh } from './virsh.ts';

const LOOPBACK = new Set(['', 'localhost', '127.0.0.1', '[::1]', '::1']);
/** How long a VNC tunnel may take to bring QEMU's greeting before the console answers 503. */
const TUNNEL_TIMEOUT_MS = 20_000;
/** How long virsh console may take to leave on its escape key before it is signalled. */
const ESCAPE_GRACE_MS = 2_000;
/** How long a new serial console waits for the one it replaces to be gone before it opens anyway (with --force). */
const TAKE_OVER_WAIT_MS = ESCAPE_GRACE_MS + 3_000;
/** The last line a serial console replaced by a newer one shows before its socket closes. */
export const SERIAL_TAKEN_OVER = '\r\n[The serial console was opened in another window.]\r\n';

/** A qemu+ssh host and the URI parameters libvirt's ssh transport hands to `ssh`. */
export interface SshHost {
  kind: 'ssh';
  user: string | null;
  host: string;
  port: number | null;
  /** `keyfile=`: ssh -i. */
  keyfile: string | null;
  /** `no_verify=1`: ssh -o StrictHostKeyChecking=no (libvirt's meaning: a new or changed host key is accepted). */
  noVerify: boolean;
  /** `command=`: the ssh binary. */
  command: string | null;
}

/** The query parameters of a libvirt URI, names lower-cased (libvirt compares them case-insensitively). */
function uriParams(uri: string): Map<string, string> {
  const query = /\?(.*)$/.exec(uri)?.[1] ?? '';
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const params = new Map<string, string>();
  for (const pair of query.split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const [name, value] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    params.set(decode(name).toLowerCase(), decode(value));
  }
  return params;
}

/** Where the libvirt URI points: local (this machine), over SSH (user, host, port, ssh parameters), or elsewhere. */
export function hostOfUri(uri: string): { kind: 'local' } | SshHost | { kind: 'other'; host: string } {
  const m = /^([a-z0-9]+)(?:\+([a-z0-9]+))?:\/\/(?:([^@/]*)@)?(\[[^\]]*\]|[^/:?]*)(?::(\d+))?/i.exec(uri);
  if (!m) return { kind: 'other', host: uri };
  const [, , transport, user, host = '', port] = m;
  if (LOOPBACK.has(host.toLowerCase())) return { kind: 'local' };
  if (transport?.toLowerCase() !== 'ssh') return { kind: 'other', host };
  const params = uriParams(uri);
  return {
    kind: 'ssh',
    user: user ? decodeURIComponent(user) : null,
    host: host.replace(/^\[|\]$/g, ''),
    port: port ? Number(port) : null,
    keyfile: params.get('keyfile') || null,
    // libvirt reads it with atoi(): "1" is on, "0" (or a word) is off.
    noVerify: (Number.parseInt(params.get('no_verify') ?? '', 10) || 0) !== 0,
    command: params.get('command') || null,
  };
}

/**
 * The ssh command line of a VNC tunnel: the options libvirt's ssh transport gives ssh for the same URI
 * (virNetSocketNewConnectSSH), so the key and host-key policy that let virsh in let the tunnel in, then `-W` to the
 * display instead of a remote command.
 */
export function sshTunnelCommand(h: SshHost, address: string, port: number): { command: string; args: string[] } {
  return {
    command: h.command ?? 'ssh',
    args: [
      ...(h.port ? ['-p', String(h.port)] : []),
      ...(h.user ? ['-l', h.user] : []),
      ...(h.keyfile ? ['-i', h.keyfile] : []),
      // No terminal to ask on: a refused key or an unknown host key fails at once instead of waiting for input.
      ...['-o', 'BatchMode=yes'],
      ...(h.noVerify ? ['-o', 'StrictHostKeyChecking=no'] : []),
      // A host that does not answer, or dies while the console is open, ends the tunnel within a minute.
      ...['-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=15'],
      ...['-W', `${address.includes(':') ? `[${address}]` : address}:${port}`],
      // `--`: a host name is never read as an option.
      ...['--', h.host],
    ],
  };
}

/**
 * The URI the serial console's virsh uses. It runs on a pseudo-terminal (see above), where libvirt's ssh would ask
 * for a password or to accept an unknown host key and wait forever: `no_tty=1` makes it fail instead (BatchMode).
 */
export function serialConsoleUri(uri: string): string {
  if (!/^[a-z0-9]+\+ssh:/i.test(uri) || uriParams(uri).has('no_tty')) return uri;
  return `${uri}${uri.includes('?') ? '&' : '?'}no_tty=1`;
}

/** `vnc://127.0.0.1:3` → the TCP port (5900 + display) and address QEMU listens on. */
export function parseVncDisplay(out: string): { address: string; port: number } | null {
  const m = /^vnc:\/\/([^:\s]+|\[[^\]]+\]):(\d+)/m.exec(out.trim());
  if (!m?.[1] || !m[2]) return null;
  return { address: m[1].replace(/^\[|\]$/g, ''), port: 5900 + Number(m[2]) };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A child process's stdin/stdout as one stream; destroying it ends the process. */
function childStream(child: ChildProcess): Duplex {
  const stream = Duplex.from({ readable: child.stdout!, writable: child.stdin! });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  stream.on('close', kill);
  child.on('exit', () => stream.destroy());
  child.on('error', (err) => stream.destroy(err));
  return stream;
}

/**
 * Starts an ssh tunnel and resolves once the first bytes came through it (QEMU's RFB greeting: the VNC server
 * speaks first). A tunnel that cannot connect (refused key, unknown host key, host down) rejects here, so the
 * browser gets the 503 of an unreachable host rather than a socket that closes at once; ssh's complaint is the
 * error's message.
 */
function openTunnel(command: string, args: string[], timeoutMs = TUNNEL_TIMEOUT_MS): Promise<Duplex> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => void (stderr = (stderr + b.toString('utf8')).slice(-2000)));
  const out = child.stdout!;
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      out.off('data', first);
      child.off('close', ended);
      child.off('error', failed);
    };
    const failed = (err: Error) => {
      settle();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      reject(err);
    };
    const ended = (code: number | null) => failed(new Error(`ssh tunnel ended (${code}): ${stderr.trim()}`));
    const first = (b: Buffer) => {
      settle();
      out.pause();
      out.unshift(b);
      resolve(childStream(child));
    };
    const timer = setTimeout(
      () => failed(new Error(`ssh tunnel: nothing from the VNC server in ${timeoutMs} ms: ${stderr.trim()}`)),
      timeoutMs,
    );
    out.on('data', first);
    child.once('close', ended);
    child.once('error', failed);
  });
}

function connectTcp(address: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port, noDelay: true });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export interface LibvirtConsoleOptions {
  virsh: Virsh;
  virshBinary: string;
}

/**
 * The serial console each machine has open from this process, by URI and machine, and the opening queued after it.
 * A guest has one serial line and libvirt lets one client read it: `virsh console --force` takes it from whoever has
 * it, and the one that asked last is not always the one that gets it (a virsh that starts slowly, as on a busy host,
 * may ask after a newer one and take the line from it: the newer page then shows only "error: stream had I/O
 * failure"). So a new serial console here first ends the one open (its page is told why) and waits until that virsh
 * has left; openings of one machine run one after another, the last to ask keeping the line. Another portal instance
 * is not in this map: between instances --force still decides.
 */
const liveSerial = new Map<string, { takeOver(): Promise<void> }>();
const inTurn = keyedQueue();

export function libvirtConsoleChannels(ref: string, o: LibvirtConsoleOptions): ConsoleChannels {
  return {
    async vnc() {
      // The connection's own URI (a reseller host's: the checked address, the portal's key and ssh client).
      const where = hostOfUri(await o.virsh.connectUri());
      const display = parseVncDisplay(await o.virsh.run(['domdisplay', '--type', 'vnc', ref]));
      if (!display) throw new Error(`${ref} has no VNC display`);
      if (where.kind === 'local') return connectTcp(display.address, display.port);
      if (where.kind === 'ssh') {
        const { command, args } = sshTunnelCommand(where, display.address, display.port);
        return openTunnel(command, args);
      }
      throw new Error(`the VNC display of ${ref} is on ${where.host}, which the portal reaches only over qemu+ssh`);
    },
    async serial() {
      const uri = await o.virsh.connectUri();
      const key = `${uri}\0${ref}`;
      return inTurn(key, async () => {
        await liveSerial.get(key)?.takeOver();
        return openSerial(uri, key);
      });
    },
  };

  function openSerial(uri: string, key: string): Duplex {
    const command = [o.virshBinary, '-c', serialConsoleUri(uri), 'console', '--force', ref].map(shellQuote).join(' ');
    const child = spawn('script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: { ...process.env, TERM: 'xterm-256color' },
    });
    const raw = childStream(child);
    // Until virsh has put its terminal in raw mode (just after its "Escape character is ^]" line) whatever is
    // typed would be flushed by it: hold the input, and drop the greeting (and polkit's note) from the output.
    let ready = false;
    let greeted = false;
    let head = '';
    const held: Buffer[] = [];
    const stream = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, done) {
        // Ctrl-] would end virsh's session: keep it out of what the browser types.
        const clean = chunk.includes(0x1d) ? Buffer.from(chunk.filter((b) => b !== 0x1d)) : chunk;
        if (!ready) {
          held.push(clean);
          return done();
        }
        raw.write(clean, done);
      },
      destroy(err, done) {
        // virsh leaves at once on its escape key (and ends its libvirt stream and connection, an ssh on qemu+ssh);
        // a signal is noticed only when its event loop next wakes, seconds later. The signal stays the fallback.
        if (ready && !raw.destroyed) {
          raw.write(Buffer.from([0x1d]));
          setTimeout(() => raw.destroy(), ESCAPE_GRACE_MS).unref();
        } else raw.destroy();
        done(err);
      },
    });
    const goLive = () => {
      if (ready) return;
      ready = true;
      for (const b of held.splice(0)) raw.write(b);
    };
    raw.on('data', (b: Buffer) => {
      if (greeted) return void stream.push(b);
      head += b.toString('latin1');
      const at = head.indexOf('^]');
      const lineEnd = at < 0 ? -1 : head.indexOf('\n', at);
      if (lineEnd < 0 && head.length < 8192) return;
      const rest = lineEnd < 0 ? head : head.slice(lineEnd + 1);
      greeted = true;
      if (rest) stream.push(Buffer.from(rest, 'latin1'));
      setTimeout(goLive, 150);
    });
    raw.on('end', () => stream.push(null));
    raw.on('close', () => stream.destroy());
    // Ending the console destroys `raw`, which reports an AbortError: that is the normal end, not a failure.
    raw.on('error', () => stream.destroy());

    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    const session = {
      async takeOver() {
        if (!stream.destroyed) {
          // The notice goes out before the end: the relay sends it on the socket, then closes that.
          stream.push(Buffer.from(SERIAL_TAKEN_OVER));
          await new Promise((r) => setImmediate(r));
          stream.destroy();
        }
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, TAKE_OVER_WAIT_MS)))]);
        clearTimeout(timer);
      },
    };
    liveSerial.set(key, session);
    void exited.then(() => liveSerial.get(key) === session && liveSerial.delete(key));
    return stream;
  }
}
