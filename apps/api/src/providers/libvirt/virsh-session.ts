/**
 * One long-lived `virsh -q -c <uri>` per host, fed commands on stdin (issue 22 point 2; docs/decisions/0005, addendum).
 * A process per call pays virsh's start and libvirt's connect every time (about 60 ms and 25 ms of CPU locally, a
 * whole SSH handshake over qemu+ssh); the session pays them once and each call is one libvirt round trip.
 *
 * Framing: virsh reads commands with readline even from a pipe, so stdout carries a prompt and the echo of every line
 * before the command's own output, and nothing says where a reply ends or whether it failed. After each command the
 * session sends two more lines with random tokens:
 *   echo '<half>''<half>'       virsh writes the two halves joined on stdout (the echoed line never holds them joined)
 *   <errToken>                  an unknown command: virsh writes "error: unknown command: '<errToken>'" on stderr
 * A reply is complete when stdout holds the joined token followed by the prompt and echo of <errToken> (a whole line:
 * the token alone has no newline, and readline leaves its prompt unflushed while it waits for input) and stderr holds
 * the error line. Its output is what stdout held between the echo of the command and the prompt of the echo; it
 * failed when stderr held an `error:` line before the marker's.
 *
 * Only commands whose arguments are plain words (SAFE_ARG) are sent: a quote, a space, a semicolon or a newline
 * would be parsed by virsh's shell or start another command. One command runs at a time (a queue); a command that
 * takes too long ends the whole process group (virsh and, over qemu+ssh, its ssh) and the next command starts a
 * fresh session. The URI is asked for before every command (host-connection.ts checks a reseller's host each time):
 * a refusal ends the session, a different URI (a name that now resolves elsewhere) replaces it. A session left idle
 * for `idleMs` ends, so a host that is gone (no longer asked) leaves no process behind.
 *
 * The process is started through the portal's spawn helper (spawner.ts, decision 0029): the portal's event loop
 * does not fork for it, and the first command is written once the process exists. Should the helper fail, the
 * session spawns virsh itself, as before.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { SpawnHelperError, sharedSpawner, type Spawner } from './spawner.ts';

/** Arguments the session may send: virsh's shell gives none of these characters a meaning. */
export const SAFE_ARG = /^[A-Za-z0-9._:/=,@+%-]+$/;

/** More than this on stdout and stderr together for one reply ends the session (as the process runner's limit). */
const MAX_OUTPUT = 16 * 1024 * 1024;
const PROMPT = 'virsh # ';
/** After the helper reports virsh's exit, how long what it wrote last may take to be read before its command fails. */
const EXIT_GRACE_MS = 100;

/** Why a session call has no reply: the process never started, ended, or did not answer in time. */
export class VirshSessionError extends Error {
  override name = 'VirshSessionError';
  constructor(
    message: string,
    readonly reason: 'spawn' | 'exited' | 'timeout' | 'output' | 'framing' | 'closed',
    readonly stderr = '',
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface SessionReply {
  stdout: string;
  /** What virsh wrote on stderr for this command ('' for none). */
  stderr: string;
  /** stderr held an `error:` line (virsh's "Reconnected to the hypervisor" notice is not one). */
  failed: boolean;
}

export interface VirshSessionOptions {
  binary: string;
  /** The URI of the connection, asked for before every command (may throw: the host is refused). */
  connect: () => Promise<string>;
  /** Ends the session after this long without a command (default 60 s). */
  idleMs?: number;
  /** Called with the pid of every virsh the session starts (benchmarks read their CPU). */
  onSpawn?: (pid: number) => void;
  /** A failed reply whose stderr matches ends the session (a lost connection): the next command starts afresh. */
  restartOn?: RegExp;
  /** Starts the process off the event loop (default: the process's shared helper); null: spawn it here. */
  spawner?: Spawner | null;
}

export interface VirshSession {
  /** Runs one command; rejects with VirshSessionError when there is no reply, or with what connect() threw. */
  exec(args: string[], timeoutMs: number): Promise<SessionReply>;
  /** The pid of the running virsh, or null. */
  pid(): number | null;
  /** Ends the process now: the command running and those queued are refused; a later command starts another. */
  close(): void;
}

interface Job {
  args: string[];
  deadline: number;
  resolve(r: SessionReply): void;
  reject(e: unknown): void;
}

interface Proc {
  /** Known once the process exists (through the helper: a moment after start). */
  pid: number | null;
  /** Its stdin once it exists; until then what is written waits in `input` (and `inputEnded`). */
  stdin: Writable | null;
  input: string;
  inputEnded: boolean;
  uri: string;
  out: string;
  err: string;
  exited: boolean;
  /** The job being answered and what ends it. */
  current: { job: Job; outToken: string; errToken: string; size: number; timer: NodeJS.Timeout } | null;
}

const token = () => `irontech${randomBytes(12).toString('hex')}`;

export function createVirshSession(o: VirshSessionOptions): VirshSession {
  const idleMs = o.idleMs ?? 60_000;
  const queue: Job[] = [];
  let proc: Proc | null = null;
  let running = false;
  let idleTimer: NodeJS.Timeout | null = null;

  const spawner = o.spawner === undefined ? sharedSpawner() : o.spawner;

  function killGroup(pid: number | null) {
    try {
      if (pid) process.kill(-pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }

  /** Ends the process group now (or, not yet started, as soon as it is: wire() sees it ended). */
  function kill(p: Proc) {
    p.exited = true;
    killGroup(p.pid);
  }

  /** Writes to the process's stdin, or keeps it for when the process exists. */
  function write(p: Proc, text: string) {
    if (p.stdin) p.stdin.write(text);
    else p.input += text;
  }

  /** EOF on the process's stdin (virsh closes its connection and ends). */
  function endInput(p: Proc) {
    if (p.stdin) p.stdin.end();
    else p.inputEnded = true;
  }

  /** The process gone: the command it was answering fails (no reply), the queue goes on. */
  function ended(p: Proc, e?: NodeJS.ErrnoException) {
    const wasAlive = !p.exited;
    p.exited = true;
    if (proc === p) proc = null;
    const cur = p.current;
    if (!cur) return;
    p.current = null;
    clearTimeout(cur.timer);
    // Give the pipes a moment: virsh's last words (why it could not connect) may still be unread.
    setImmediate(() => {
      const stderr = p.err.trim();
      if (e)
        cur.job.reject(
          new VirshSessionError(
            e.code === 'ENOENT' ? `${o.binary} is not installed` : e.message,
            'spawn',
            '',
            e.code ?? undefined,
          ),
        );
      else
        cur.job.reject(
          new VirshSessionError(
            wasAlive ? `virsh ended: ${stderr.slice(0, 500) || 'no reason given'}` : 'virsh was ended',
            'exited',
            stderr,
          ),
        );
      next();
    });
  }

  /** The process exists: its streams are read, what was written meanwhile is sent. */
  function wire(p: Proc, pid: number | null, stdin: Writable, stdout: Readable, stderr: Readable) {
    p.pid = pid;
    if (pid) o.onSpawn?.(pid);
    // An idle session keeps nothing of the portal alive; when the portal ends, virsh reads EOF and ends too.
    for (const s of [stdin, stdout, stderr]) (s as unknown as { unref?: () => void }).unref?.();
    stdin.on('error', () => undefined);
    stdout.setEncoding('utf8');
    stderr.setEncoding('utf8');
    stdout.on('data', (d: string) => {
      p.out += d;
      progress(p, d.length);
    });
    stderr.on('data', (d: string) => {
      p.err += d;
      progress(p, d.length);
    });
    p.stdin = stdin;
    if (p.exited) {
      // Ended (a timeout, close) before it existed.
      killGroup(pid);
      stdin.end();
      return;
    }
    if (p.input) stdin.write(p.input);
    p.input = '';
    if (p.inputEnded) stdin.end();
  }

  /** Spawned here, as before the helper: a fork of the portal on its event loop. */
  function spawnHere(p: Proc) {
    // In a process group of its own, so ending it ends ssh too (virsh.ts says why).
    const child = spawn(o.binary, ['-q', '-c', p.uri], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    child.unref();
    child.once('error', (e) => ended(p, e));
    child.once('close', () => ended(p));
    wire(p, child.pid ?? null, child.stdin, child.stdout, child.stderr);
  }

  function start(uri: string): Proc {
    const p: Proc = {
      pid: null,
      stdin: null,
      input: '',
      inputEnded: false,
      uri,
      out: '',
      err: '',
      exited: false,
      current: null,
    };
    if (!spawner) {
      spawnHere(p);
      return p;
    }
    spawner.spawn(o.binary, ['-q', '-c', uri]).then(
      ({ pid, io, err, exited }) => {
        // The helper's word that virsh exited ends the session even if a socket's close never comes (a loaded test
        // machine once left a command waiting out its timeout with virsh long gone); a moment first, for its last
        // words still in the pipes.
        void exited.then(() => setTimeout(() => ended(p), EXIT_GRACE_MS).unref());
        // Gone when both its sockets are: virsh (and whatever it started with them, ssh) has ended.
        let open = 2;
        const closed = () => {
          if (--open === 0) ended(p);
        };
        io.once('close', closed);
        err.once('close', closed);
        io.on('error', () => undefined);
        err.on('error', () => undefined);
        wire(p, pid, io, io, err);
        io.resume();
        err.resume();
      },
      (e: NodeJS.ErrnoException) => {
        if (e instanceof SpawnHelperError && !p.exited) return spawnHere(p);
        ended(p, e);
      },
    );
    return p;
  }

  /** Looks for the end of the current reply in what has come so far. */
  function progress(p: Proc, bytes: number) {
    const cur = p.current;
    if (!cur) return;
    cur.size += bytes;
    if (cur.size > MAX_OUTPUT) return fail(p, new VirshSessionError('virsh answered too much', 'output'));
    const trailer = `${cur.outToken}${PROMPT}${cur.errToken}\n`;
    const outAt = p.out.indexOf(trailer);
    const errAt = p.err.indexOf(`'${cur.errToken}'`);
    if (outAt < 0 || errAt < 0) return;
    const segment = p.out.slice(0, outAt);
    p.out = p.out.slice(outAt + trailer.length);
    const errLineStart = p.err.lastIndexOf('\n', errAt) + 1;
    const errLineEnd = p.err.indexOf('\n', errAt);
    const stderr = p.err.slice(0, errLineStart);
    p.err = errLineEnd < 0 ? '' : p.err.slice(errLineEnd + 1);
    // segment: PROMPT <command> \n <output> PROMPT echo '<half>''<half>' \n
    const begin = segment.indexOf('\n');
    const half = cur.outToken.length >> 1;
    const end = segment.lastIndexOf(`${PROMPT}echo '${cur.outToken.slice(0, half)}''${cur.outToken.slice(half)}'\n`);
    if (!segment.startsWith(PROMPT) || begin < 0 || end < begin)
      return fail(
        p,
        new VirshSessionError(`virsh's reply was not framed as expected: ${segment.slice(0, 200)}`, 'framing'),
      );
    const failed = stderr
      .split('\n')
      .some((l) => l.startsWith('error:') && !/^error: Reconnected to the hypervisor/.test(l));
    clearTimeout(cur.timer);
    p.current = null;
    if (failed && o.restartOn?.test(stderr)) stop();
    cur.job.resolve({ stdout: segment.slice(begin + 1, end), stderr: stderr.trim(), failed });
    next();
  }

  function fail(p: Proc, e: VirshSessionError) {
    const cur = p.current;
    p.current = null;
    kill(p);
    if (proc === p) proc = null;
    if (cur) {
      clearTimeout(cur.timer);
      cur.job.reject(e);
    }
    next();
  }

  function scheduleIdle() {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (!running && queue.length === 0) stop();
    }, idleMs).unref();
  }

  /** Ends the process: EOF first (virsh closes its connection), the group after a moment. */
  function stop() {
    const p = proc;
    proc = null;
    if (!p || p.exited) return;
    endInput(p);
    setTimeout(() => kill(p), 2000).unref();
  }

  function next() {
    running = false;
    void pump();
  }

  async function pump() {
    if (running) return;
    const job = queue.shift();
    if (!job) return scheduleIdle();
    running = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const left = job.deadline - Date.now();
    if (left <= 0) {
      job.reject(new VirshSessionError('no answer in time (queued)', 'timeout'));
      return next();
    }
    let uri: string;
    try {
      // The host's policy, checked before each command as before each process.
      uri = await o.connect();
    } catch (e) {
      stop();
      job.reject(e);
      return next();
    }
    if (proc && (proc.exited || proc.uri !== uri)) stop();
    const p = (proc ??= start(uri));
    const outToken = token();
    const errToken = token();
    const half = outToken.length >> 1;
    const timer = setTimeout(() => fail(p, new VirshSessionError('no answer in time', 'timeout')), Math.max(1, left));
    p.current = { job, outToken, errToken, size: 0, timer };
    write(p, `${job.args.join(' ')}\necho '${outToken.slice(0, half)}''${outToken.slice(half)}'\n${errToken}\n`);
    // The reply may already be there (never for a fresh write, but keeps the rule in one place).
    progress(p, 0);
  }

  return {
    exec(args, timeoutMs) {
      if (args.length === 0 || !args.every((a) => SAFE_ARG.test(a)))
        return Promise.reject(new Error(`not a session command: ${args.join(' ')}`));
      return new Promise<SessionReply>((resolve, reject) => {
        queue.push({ args, deadline: Date.now() + timeoutMs, resolve, reject });
        void pump();
      });
    },
    pid: () => (proc && !proc.exited ? proc.pid : null),
    close() {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      for (const job of queue.splice(0)) job.reject(new VirshSessionError('the host connection was closed', 'closed'));
      const p = proc;
      if (p?.current) fail(p, new VirshSessionError('the host connection was closed', 'closed'));
      else stop();
    },
  };
}
