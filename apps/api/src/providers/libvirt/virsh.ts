/**
 * Runs the `virsh` client against one libvirt URI (docs/decisions/0005-libvirt-driver.md says why the
 * client and not a native binding). Short reads (SESSION_COMMANDS: the reconciler's one call per host per pass,
 * states, definitions, leases, health) go through the host's one long-lived virsh session (virsh-session.ts) when
 * the caller asks for one: a libvirt round trip instead of a process and a connection (about 60 ms locally, a whole
 * SSH handshake over qemu+ssh). Everything else is a process of its own: writes, long transfers, and streams
 * (consoles and `event --loop` never come here), whose cost is bounded by guest boots and shutdowns anyway.
 */
import { spawn } from 'node:child_process';
import { TransientProviderError } from '../provider.ts';
import type { HostTarget } from './host-connection.ts';
import { createVirshSession, SAFE_ARG, VirshSessionError, type VirshSession } from './virsh-session.ts';

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
// "Disconnected from <uri> due to end of file": the daemon restarted under a session (its next command reconnects).
const UNREACHABLE_RE =
  /failed to connect to the hypervisor|Failed to connect socket|unable to connect to server|Connection refused|End of file while reading data|Cannot recv data|cannot send data|Broken pipe|operation timed out|Disconnected from \S+ due to/i;

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
  /**
   * Runs `virsh -q -c <uri> ...args` and returns stdout; unreachable daemons become a TransientProviderError.
   * `short`: a write the caller knows answers at once (RunOptions) may go through the host's session too.
   */
  run(args: string[], opts?: RunOptions): Promise<string>;
  /** As run, but returns null when the object does not exist. */
  maybe(args: string[]): Promise<string | null>;
  /** Ends the host's session process (when there is one): the host is gone, or the portal closes; a later read starts another. */
  close(): void;
  /** The pid of the session's virsh, or null (none running, or no session). */
  sessionPid(): number | null;
}

/**
 * Commands that only read and answer at once: the ones a session may run (and `pool-refresh`, which only rescans the
 * pool's directory: the host monitor's images() runs it for every host on every check). A call whose arguments are
 * not all plain words (SAFE_ARG), or whose timeout is longer than a read's, runs as a process whatever its command.
 */
export const SESSION_COMMANDS: ReadonlySet<string> = new Set([
  'domstats',
  'domstate',
  'dominfo',
  'dumpxml',
  'domifaddr',
  'domdisplay',
  'list',
  'nodeinfo',
  'version',
  'pool-info',
  'pool-dumpxml',
  'pool-refresh',
  'vol-info',
  'vol-list',
  'vol-path',
  'net-info',
  'net-dumpxml',
  'net-dhcp-leases',
  // A backup's polls and looks (backups.ts): an incremental take is a handful of these around a short job.
  'domjobinfo',
  'checkpoint-list',
  'vol-dumpxml',
  // A snapshot's look before its take, revert or delete (snapshots.ts): a process cost 25-45 ms of a 0.2 s take.
  'snapshot-info',
]);

export interface RunOptions {
  timeoutMs?: number;
  encoding?: 'utf8' | 'buffer';
  /**
   * The command answers at once although it writes (a backup take's vol-create, backup-begin, a small volume's
   * vol-create-as + vol-upload of a file on the portal's machine, vol-delete, checkpoint-delete; backups.ts): it runs
   * through the host's session like a read (when there is one and its arguments are plain words), a libvirt round trip
   * of a few ms instead of a process of 16-80 ms (decision 0022, "Measured"). Never for a copy: the session runs one
   * command at a time, and the host's reads wait behind it.
   */
  short?: boolean;
}

export interface VirshOptions {
  /** One long-lived virsh per host for short reads (SESSION_COMMANDS); false: a process per call. */
  session?: boolean;
  /** A session left this long without a call ends (default 60 s). */
  sessionIdleMs?: number;
  /** Called with the pid of each session virsh started (benchmarks read their CPU). */
  onSessionSpawn?: (pid: number) => void;
}

/** How long a read may take at most to be run by the session (a longer one is not a short read). */
const SESSION_MAX_TIMEOUT_MS = 60_000;

export function createVirsh(
  target: string | HostTarget,
  binary = 'virsh',
  defaultTimeoutMs = 60_000,
  options: VirshOptions = {},
): Virsh {
  const { label: uri, connect } =
    typeof target === 'string' ? { label: target, connect: () => Promise.resolve(target) } : target;
  const session: VirshSession | null = options.session
    ? createVirshSession({
        binary,
        connect,
        idleMs: options.sessionIdleMs,
        onSpawn: options.onSessionSpawn,
        restartOn: UNREACHABLE_RE,
      })
    : null;

  /** The session's reply (or failure) as the process runner would give it. */
  async function inSession(s: VirshSession, args: string[], timeoutMs: number): Promise<string> {
    const what = (text: string) => `virsh ${args[0] ?? ''} on ${uri}: ${text.slice(0, 500)}`;
    let reply;
    try {
      reply = await s.exec(args, timeoutMs);
    } catch (e) {
      if (!(e instanceof VirshSessionError)) throw e;
      if (e.code === 'ENOENT')
        throw new Error(`${binary} is not installed (apt-get install --no-install-recommends libvirt-clients)`, {
          cause: e,
        });
      if (e.reason === 'timeout') throw new TransientProviderError(what('no answer in time'));
      if (e.reason === 'exited' && e.stderr && !UNREACHABLE_RE.test(e.stderr))
        throw new VirshError(what(e.stderr), e.stderr);
      throw new TransientProviderError(what(e.stderr || e.message));
    }
    if (!reply.failed) return reply.stdout;
    if (UNREACHABLE_RE.test(reply.stderr)) throw new TransientProviderError(what(reply.stderr));
    throw new VirshError(what(reply.stderr), reply.stderr);
  }

  async function run(args: string[], opts: RunOptions = {}): Promise<string> {
    const timeoutMs = opts.timeoutMs ?? defaultTimeoutMs;
    if (
      session &&
      (SESSION_COMMANDS.has(args[0] ?? '') || opts.short === true) &&
      timeoutMs <= SESSION_MAX_TIMEOUT_MS &&
      args.every((a) => SAFE_ARG.test(a))
    )
      return inSession(session, args, timeoutMs);
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
      const timer = setTimeout(killGroup, timeoutMs);
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
    close: () => session?.close(),
    sessionPid: () => session?.pid() ?? null,
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
