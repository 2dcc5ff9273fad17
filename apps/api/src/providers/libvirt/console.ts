/**
 * The interactive consoles of a libvirt machine, as byte streams the API relays to the browser.
 *
 * - VNC: QEMU listens on the host's loopback (xml.ts). `virsh domdisplay` names the display; on a local host
 *   (a `qemu:///…` URI or a URI whose host is loopback) the API connects to it directly. On a `qemu+ssh://` host
 *   it runs `ssh -W 127.0.0.1:<port>` with the same user, host and port as the libvirt URI: the tunnel is that
 *   one child process, living exactly as long as the console. Other transports (tls, tcp to another machine)
 *   have no tunnel and are refused (docs/virtual-machines.md, "Console").
 * - Serial: `virsh console --force` over the libvirt connection itself, so it works on every transport. virsh
 *   insists on a terminal, so it runs under `script` (util-linux), which gives it a pseudo-terminal; its greeting is
 *   dropped, input is held until virsh's terminal is raw, and Ctrl-] (virsh's escape key) never reaches it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Duplex } from 'node:stream';
import type { ConsoleChannels } from '../provider.ts';
import type { Virsh } from './virsh.ts';

const LOOPBACK = new Set(['', 'localhost', '127.0.0.1', '[::1]', '::1']);

/** Where the libvirt URI points: local (this machine), over SSH (user, host, port), or elsewhere. */
export function hostOfUri(
  uri: string,
):
  | { kind: 'local' }
  | { kind: 'ssh'; user: string | null; host: string; port: number | null }
  | { kind: 'other'; host: string } {
  const m = /^([a-z0-9]+)(?:\+([a-z0-9]+))?:\/\/(?:([^@/]*)@)?([^/:?]*|\[[^\]]*\])(?::(\d+))?/i.exec(uri);
  if (!m) return { kind: 'other', host: uri };
  const [, , transport, user, host = '', port] = m;
  if (LOOPBACK.has(host.toLowerCase())) return { kind: 'local' };
  if (transport === 'ssh')
    return { kind: 'ssh', user: user ? decodeURIComponent(user) : null, host, port: port ? Number(port) : null };
  return { kind: 'other', host };
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
  /** The ssh client for qemu+ssh hosts. */
  sshBinary?: string;
}

export function libvirtConsoleChannels(ref: string, o: LibvirtConsoleOptions): ConsoleChannels {
  const where = hostOfUri(o.virsh.uri);
  return {
    async vnc() {
      const display = parseVncDisplay(await o.virsh.run(['domdisplay', '--type', 'vnc', ref]));
      if (!display) throw new Error(`${ref} has no VNC display`);
      if (where.kind === 'local') return connectTcp(display.address, display.port);
      if (where.kind === 'ssh') {
        const target = where.user ? `${where.user}@${where.host}` : where.host;
        const args = [
          '-o',
          'BatchMode=yes',
          '-o',
          'ExitOnForwardFailure=yes',
          ...(where.port ? ['-p', String(where.port)] : []),
          '-W',
          `${display.address}:${display.port}`,
          target,
        ];
        return childStream(spawn(o.sshBinary ?? 'ssh', args, { stdio: ['pipe', 'pipe', 'ignore'] }));
      }
      throw new Error(`the VNC display of ${ref} is on ${where.host}, which the portal reaches only over qemu+ssh`);
    },
    async serial() {
      const command = [o.virshBinary, '-c', o.virsh.uri, 'console', '--force', ref].map(shellQuote).join(' ');
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
          raw.destroy();
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
      return stream;
    },
  };
}
