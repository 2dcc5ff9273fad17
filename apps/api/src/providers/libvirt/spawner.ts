/**
 * Starts the hosts' long-lived virsh sessions off the portal's event loop (issue 22 item 4, decision 0029).
 *
 * `child_process.spawn` is synchronous: the portal forks itself (a copy of its page tables, which grow with its
 * memory) and waits until the child has exec'd, all on the event loop. For one process that is nothing; a first
 * reconcile pass opens a session for each of 100 hosts, and those spawns held the event loop for most of the pass
 * and cost about a quarter of its CPU. Here the portal spawns once: a small helper (plain node, no loader, a few MB),
 * which spawns each session's virsh on request. The session's pipes never pass through the helper: the portal
 * listens on a unix socket in a private directory, the helper connects to it twice per request (the first line on
 * each names the request and the stream), and hands those two sockets to virsh as its stdin + stdout and its stderr.
 * So the portal reads and writes virsh directly, as with pipes, and learns its pid (its process group: a timeout ends
 * virsh and, over qemu+ssh, its ssh, as before).
 *
 * If the helper dies, the requests it held fail with SpawnHelperError and the next request starts another helper;
 * the sessions it started keep working (their sockets are the portal's and virsh's; the helper only reaped them).
 * A caller that gets SpawnHelperError may spawn directly instead (virsh-session.ts does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * The helper, run as `node -e` (no file to find, no TypeScript loader to start). It asks for nothing but requests on
 * its IPC channel, and ends when the portal does (the channel closes), ending the process groups it started.
 */
const HELPER = `
'use strict';
const net = require('net');
const { spawn } = require('child_process');
process.title = 'irontech-spawn';
const socketPath = process.argv[1];
const live = new Set();
const connect = (id, kind, opened) => new Promise((resolve, reject) => {
  const s = net.connect(socketPath, () => s.write(id + ' ' + kind + '\\n', () => resolve(s)));
  opened.push(s);
  s.once('error', reject);
});
process.on('message', async (m) => {
  const answer = (a) => { if (process.connected) process.send(Object.assign({ id: m.id }, a)); };
  const opened = [];
  try {
    const [io, err] = await Promise.all([connect(m.id, 'io', opened), connect(m.id, 'err', opened)]);
    io.pause();
    err.pause();
    const child = spawn(m.binary, m.args, { detached: true, stdio: [io, io, err], env: process.env });
    child.once('error', (e) => answer({ error: e.message, code: e.code }));
    if (child.pid) {
      live.add(child.pid);
      const pid = child.pid;
      child.once('exit', () => {
        live.delete(pid);
        answer({ exited: true });
      });
      answer({ pid });
    }
  } catch (e) {
    answer({ error: e.message, code: e.code, helper: true });
  } finally {
    // virsh holds its own copies of the sockets: the helper's are closed at once, so EOF means virsh's.
    for (const s of opened) s.destroy();
  }
});
// The portal is gone: so is what it started (a session reads EOF anyway; an event watch would wait for its next event).
// (It waits up to 2 s for them to end, to reap them, rather than leave them to init.)
process.on('disconnect', () => {
  for (const pid of live) try { process.kill(-pid, 'SIGTERM'); } catch (e) {}
  if (live.size === 0) process.exit(0);
  setInterval(() => { if (live.size === 0) process.exit(0); }, 20);
  setTimeout(() => process.exit(0), 2000);
});
`;

/** The helper failed (not the program asked for): the caller may spawn directly. */
export class SpawnHelperError extends Error {
  override name = 'SpawnHelperError';
}

/** The program could not be started (ENOENT, EACCES): as spawn's own 'error'. */
export class SpawnFailedError extends Error {
  override name = 'SpawnFailedError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Spawned {
  pid: number;
  /** The process's stdin and stdout: one socket (what the portal writes is its stdin). */
  io: net.Socket;
  /** Its stderr. */
  err: net.Socket;
  /**
   * Resolves when the helper saw the process exit. Its sockets normally close then too, but a session once waited out
   * its timeout with virsh long gone and no 'close' from them (a loaded test machine): this says it regardless.
   * Never resolves if the helper died meanwhile (the sockets' close is then the only word).
   */
  exited: Promise<void>;
}

export interface Spawner {
  /**
   * Starts `binary args` in a process group of its own; its sockets come paused (attach listeners, then resume).
   * Rejects with SpawnFailedError (the program) or SpawnHelperError (the helper).
   */
  spawn(binary: string, args: string[]): Promise<Spawned>;
  /** The helper's pid (benchmarks read its CPU), or null before the first request. */
  helperPid(): number | null;
}

interface Pending {
  io?: net.Socket;
  err?: net.Socket;
  pid?: number;
  exited: Promise<void>;
  resolve(s: Spawned): void;
  reject(e: Error): void;
}

interface Helper {
  child: ChildProcess;
  server: net.Server;
  dir: string;
  cleanup: () => void;
}

export function createSpawner(): Spawner {
  let helper: Helper | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  /** Requests (pending or answered) whose process's exit the helper has not reported yet. */
  const exits = new Map<number, () => void>();

  /** While requests wait, the helper's channel and socket keep the portal alive (a lone CLI call gets its answer). */
  function holdWhilePending() {
    const h = helper;
    if (!h) return;
    if (pending.size > 0) {
      h.child.channel?.ref();
      h.server.ref();
    } else {
      h.child.channel?.unref();
      h.server.unref();
    }
  }

  function settle(id: number) {
    const p = pending.get(id);
    if (!p || !p.io || !p.err || p.pid === undefined) return;
    pending.delete(id);
    holdWhilePending();
    p.resolve({ pid: p.pid, io: p.io, err: p.err, exited: p.exited });
  }

  function failAll(h: Helper, why: string) {
    if (helper === h) helper = null;
    h.server.close();
    process.off('exit', h.cleanup);
    h.cleanup();
    // What this helper started exits unreported now: their sockets' close is the word.
    exits.clear();
    for (const [id, p] of pending) {
      pending.delete(id);
      p.io?.destroy();
      p.err?.destroy();
      p.reject(new SpawnHelperError(why));
    }
  }

  /** A connection from the helper: its first line says which request and which stream; the rest is the process's. */
  function accept(socket: net.Socket) {
    socket.unref();
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf(10);
      if (nl < 0) {
        if (head.length > 64) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      const rest = head.subarray(nl + 1);
      if (rest.length) socket.unshift(rest);
      const [id, kind] = head.subarray(0, nl).toString('latin1').split(' ');
      const p = pending.get(Number(id));
      if (!p || (kind !== 'io' && kind !== 'err') || p[kind]) return void socket.destroy();
      p[kind] = socket;
      settle(Number(id));
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
  }

  function start(): Helper {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'irontech-spawn-'));
    const socketPath = path.join(dir, 's');
    const server = net.createServer(accept);
    // bind and listen happen now: the helper may connect as soon as it runs.
    server.listen(socketPath);
    server.unref();
    const env = { ...process.env };
    // The portal's loader (tsx) is not wanted in a helper of plain JavaScript.
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['-e', HELPER, socketPath], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env,
    });
    const h: Helper = { child, server, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    // The socket's directory goes with the portal.
    process.once('exit', h.cleanup);
    child.unref();
    child.channel?.unref();
    child.on(
      'message',
      (m: { id: number; pid?: number; exited?: boolean; error?: string; code?: string; helper?: boolean }) => {
        if (m.exited) {
          exits.get(m.id)?.();
          exits.delete(m.id);
          return;
        }
        const p = pending.get(m.id);
        if (!p) return;
        if (m.pid !== undefined) {
          p.pid = m.pid;
          return settle(m.id);
        }
        pending.delete(m.id);
        exits.delete(m.id);
        holdWhilePending();
        p.io?.destroy();
        p.err?.destroy();
        p.reject(
          m.helper
            ? new SpawnHelperError(`the spawn helper could not connect: ${m.error}`)
            : new SpawnFailedError(m.error ?? 'spawn failed', m.code),
        );
      },
    );
    child.once('error', (e) => failAll(h, `the spawn helper did not start: ${e.message}`));
    server.on('error', (e) => {
      child.kill();
      failAll(h, `the spawn helper's socket failed: ${e.message}`);
    });
    child.once('exit', (code, signal) => failAll(h, `the spawn helper ended (${code ?? signal})`));
    return h;
  }

  return {
    spawn(binary, args) {
      return new Promise<Spawned>((resolve, reject) => {
        let h: Helper;
        try {
          h = helper ??= start();
        } catch (e) {
          // No private directory or socket (a read-only tmp): the caller spawns directly.
          return reject(new SpawnHelperError(`the spawn helper could not start: ${(e as Error).message}`));
        }
        const id = nextId++;
        const exited = new Promise<void>((r) => exits.set(id, r));
        const failed = (e: Error) => {
          exits.delete(id);
          reject(e);
        };
        pending.set(id, { resolve, reject: failed, exited });
        holdWhilePending();
        if (!h.child.connected) {
          // Not yet known dead ('exit' not yet emitted): fail this one, the helper is started again next time.
          pending.delete(id);
          holdWhilePending();
          helper = null;
          return failed(new SpawnHelperError('the spawn helper is gone'));
        }
        h.child.send({ id, binary, args }, (e) => {
          if (!e) return;
          if (!pending.delete(id)) return;
          holdWhilePending();
          failed(new SpawnHelperError(`the spawn helper did not take the request: ${e.message}`));
        });
      });
    },
    helperPid: () => helper?.child.pid ?? null,
  };
}

let shared: Spawner | null = null;
/** The process's one spawner (one helper for every host's session). */
export function sharedSpawner(): Spawner {
  return (shared ??= createSpawner());
}
