/**
 * Runs the `virsh` client against one libvirt URI (docs/decisions/0005-libvirt-driver.md says why the
 * client and not a native binding). Every call is a fresh connection of about 50–100 ms; the driver's
 * actions are bounded by guest boots and shutdowns, so that cost does not matter.
 */
import { spawn } from 'node:child_process';
import { TransientProviderError } from '../provider.ts';
import type { HostTarget } from './host-connection.ts';

export class VirshError extends Error {
  override name = 'VirshError';
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** libvirt's words for "no such object" (domain, volume, network, pool) and for an unreachable daemon. */
const NOT_FOUND_RE =
  /failed to get (domain|vol|pool|network)|Domain not found|Storage volume not found|Storage pool not found|Network not found|no storage vol with matching (name|path)|no domain with matching|no network with matching/i;
const UNREACHABLE_RE =
  /failed to connect to the hypervisor|Failed to connect socket|unable to connect to server|Connection refused|End of file while reading data|Cannot recv data|cannot send data|Broken pipe|operation timed out/i;

/** More than this on stdout and stderr together ends the call (as execFile's maxBuffer did). */
const MAX_OUTPUT = 16 * 1024 * 1024;

export function isNotFound(e: unknown): boolean {
  return e instanceof VirshError && NOT_FOUND_RE.test(e.stderr);
}

export interface Virsh {
  /** The host's URI as stored (messages); the connection's own comes from connectUri. */
  readonly uri: string;
  /** The URI of the next connection (a reseller host's is checked and rendered anew: host-connection.ts). */
  connectUri(): Promise<string>;
  /** Runs `virsh -q -c <uri> ...args` and returns stdout; unreachable daemons become a TransientProviderError. */
  run(args: string[], opts?: { timeoutMs?: number; encoding?: 'utf8' | 'buffer' }): Promise<string>;
  /** As run, but returns null when the object does not exist. */
  maybe(args: string[]): Promise<string | null>;
}

export function createVirsh(target: string | HostTarget, binary = 'virsh', defaultTimeoutMs = 60_000): Virsh {
  const { label: uri, connect } =
    typeof target === 'string' ? { label: target, connect: () => Promise.resolve(target) } : target;
  async function run(args: string[], opts: { timeoutMs?: number } = {}): Promise<string> {
    // Nothing is spawned before the target is checked: a refused host or address throws here.
    const connectUri = await connect();
    return new Promise((resolve, reject) => {
      // In a process group of its own, so a timeout ends virsh's children too: over qemu+ssh virsh runs ssh,
      // which outlived a virsh killed alone (the host monitor's checks of an unreachable host left them behind).
      const child = spawn(binary, ['-q', '-c', connectUri, ...args], {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      let killed = false;
      const killGroup = () => {
        killed = true;
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const collect = (into: Buffer[]) => (d: Buffer) => {
        size += d.length;
        if (size > MAX_OUTPUT) killGroup();
        else into.push(d);
      };
      child.stdout.on('data', collect(out));
      child.stderr.on('data', collect(err));
      const timer = setTimeout(killGroup, opts.timeoutMs ?? defaultTimeoutMs);
      child.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          e.code === 'ENOENT'
            ? new Error(`${binary} is not installed (apt-get install --no-install-recommends libvirt-clients)`)
            : e,
        );
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        const stdout = Buffer.concat(out).toString('utf8');
        if (code === 0 && !killed) return resolve(stdout);
        const text = Buffer.concat(err).toString('utf8').trim() || `virsh exited with ${code ?? signal}`;
        const what = `virsh ${args[0] ?? ''} on ${uri}: ${killed ? 'no answer in time' : text.slice(0, 500)}`;
        if (killed || UNREACHABLE_RE.test(text)) return reject(new TransientProviderError(what));
        reject(new VirshError(what, text));
      });
    });
  }
  return {
    uri,
    connectUri: connect,
    run,
    async maybe(args) {
      try {
        return await run(args);
      } catch (e) {
        if (isNotFound(e)) return null;
        throw e;
      }
    },
  };
}
