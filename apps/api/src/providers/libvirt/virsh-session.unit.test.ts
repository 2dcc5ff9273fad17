/**
 * The host's long-lived virsh session (virsh-session.ts, through createVirsh): its framing of replies, errors,
 * timeouts, restarts and the URI check, against a stand-in virsh that speaks as virsh's shell does on a pipe (a
 * prompt, the echo of each line, errors on stderr), and against the real virsh with libvirt's test:///default driver.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Duplex, PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { TransientProviderError } from '../provider.ts';
import { createVirsh, isNotFound, VirshError, type Virsh } from './virsh.ts';
import { createVirshSession, VirshSessionError } from './virsh-session.ts';
import { createSpawner, sharedSpawner, type Spawner } from './spawner.ts';
import { createLibvirtDriver } from './libvirt.ts';
import { refForKey } from './names.ts';
import { pidAlive } from '../../../test/pid-alive.ts';

const dir = mkdtempSync(join(tmpdir(), 'virsh-session-'));
const opened: Virsh[] = [];
afterAll(() => {
  for (const v of opened) v.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every start of the stand-in, with its arguments (a session is `-q -c <uri>` alone). */
const starts = join(dir, 'starts');
const hungPid = join(dir, 'hung.pid');
const standIn = join(dir, 'virsh');
writeFileSync(
  standIn,
  `#!/bin/sh
echo "$*" >> '${starts}'
if [ $# -gt 3 ]; then shift 3; echo "one-shot: $*"; exit 0; fi
n=0
printf 'virsh # '
while IFS= read -r line; do
  printf '%s\\n' "$line"
  set -- $line
  case "$1" in
    echo) shift; printf '%s' "$*" | tr -d "'" ;;
    irontech*) echo "error: unknown command: '$1'" >&2 ;;
    lines) echo "line one"; echo "  line two"; echo ;;
    noeol) printf 'no newline at the end' ;;
    count) n=$((n+1)); echo "call $n of this process ($2)" ;;
    missing) echo "error: failed to get domain '$2'" >&2 ;;
    warns) echo "error: Reconnected to the hypervisor" >&2; echo "fine" ;;
    lost) echo "error: Cannot recv data: Connection reset by peer" >&2 ;;
    hang) sleep 60 & echo $! > '${hungPid}'; wait ;;
    die) echo "error: something broke" >&2; exit 3 ;;
  esac
  printf 'virsh # '
done
`,
);
chmodSync(standIn, 0o755);

const startsSoFar = () => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean) : []);

function session(uri: string) {
  const v = createVirsh(uri, standIn, 60_000, { session: true });
  opened.push(v);
  return v;
}

/** The session itself: the stand-in's verbs are not virsh's read commands, which createVirsh alone sends to it. */
function rawSession(
  opts: {
    idleMs?: number;
    connect?: () => Promise<string>;
    restartOn?: RegExp;
    spawner?: Spawner | null;
    binary?: string;
  } = {},
) {
  const s = createVirshSession({
    binary: opts.binary ?? standIn,
    connect: opts.connect ?? (() => Promise.resolve('qemu:///system')),
    idleMs: opts.idleMs,
    restartOn: opts.restartOn,
    ...(opts.spawner !== undefined ? { spawner: opts.spawner } : {}),
  });
  opened.push({ close: () => s.close() } as Virsh);
  return s;
}

describe('virsh session framing (stand-in virsh)', () => {
  it('gives each command its own output, in order, one process for all, queued calls one at a time', async () => {
    writeFileSync(starts, '');
    const s = rawSession();
    expect(await s.exec(['lines'], 5000)).toEqual({ stdout: 'line one\n  line two\n\n', stderr: '', failed: false });
    // A reply without a final newline, and an empty one.
    expect((await s.exec(['noeol'], 5000)).stdout).toBe('no newline at the end');
    expect((await s.exec(['list'], 5000)).stdout).toBe('');
    // Twenty at once: queued, each gets its own answer.
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => s.exec(['count', `c${i}`], 5000)));
    expect(replies.map((r) => r.stdout)).toEqual(
      Array.from({ length: 20 }, (_, i) => `call ${i + 1} of this process (c${i})\n`),
    );
    expect(startsSoFar()).toEqual(['-q -c qemu:///system']);
  });

  it("reports a command's error with virsh's words, and goes on in the same process", async () => {
    writeFileSync(starts, '');
    const s = rawSession();
    expect(await s.exec(['missing', 'irontech-x'], 5000)).toEqual({
      stdout: '',
      stderr: "error: failed to get domain 'irontech-x'",
      failed: true,
    });
    // virsh's notice that it reconnected is not a failure of the command.
    expect(await s.exec(['warns'], 5000)).toMatchObject({ stdout: 'fine\n', failed: false });
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    expect(startsSoFar()).toHaveLength(1);
  });

  it('ends the whole process group of a command that hangs; the next command starts a new session', async () => {
    writeFileSync(starts, '');
    const s = rawSession();
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    const firstPid = s.pid()!;
    const t0 = Date.now();
    const hung = s.exec(['hang'], 500);
    const queued = s.exec(['count', 'b'], 20_000);
    await expect(hung).rejects.toBeInstanceOf(VirshSessionError);
    await expect(hung).rejects.toMatchObject({ reason: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(5000);
    const sleeper = Number(readFileSync(hungPid, 'utf8'));
    await expect.poll(() => pidAlive(sleeper), { timeout: 2000 }).toBe(false);
    await expect.poll(() => pidAlive(firstPid), { timeout: 2000 }).toBe(false);
    // The call queued behind the hung one runs in a fresh process.
    expect((await queued).stdout).toBe('call 1 of this process (b)\n');
    expect(startsSoFar()).toHaveLength(2);
  });

  it('a call that waited out its time in the queue is refused without ending the session', async () => {
    const s = rawSession();
    const hung = s.exec(['hang'], 1500);
    await expect(s.exec(['count', 'late'], 300)).rejects.toMatchObject({ reason: 'timeout' });
    await expect(hung).rejects.toMatchObject({ reason: 'timeout' });
  });

  it('a virsh that dies mid-command fails that command with its last words; the next starts afresh', async () => {
    writeFileSync(starts, '');
    const s = rawSession();
    await expect(s.exec(['die'], 5000)).rejects.toMatchObject({ reason: 'exited', stderr: 'error: something broke' });
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    // Killed from outside while idle: the next command notices and starts another.
    process.kill(s.pid()!, 'SIGKILL');
    await expect.poll(() => s.pid(), { timeout: 2000 }).toBeNull();
    expect((await s.exec(['count', 'b'], 5000)).stdout).toBe('call 1 of this process (b)\n');
    expect(startsSoFar()).toHaveLength(3);
  });

  it('a lost connection ends the session (restartOn): the next command connects again', async () => {
    writeFileSync(starts, '');
    const s = rawSession({ restartOn: /Cannot recv data/ });
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    expect(await s.exec(['lost'], 5000)).toMatchObject({ failed: true });
    expect((await s.exec(['count', 'b'], 5000)).stdout).toBe('call 1 of this process (b)\n');
    expect(startsSoFar()).toHaveLength(2);
  });

  it('asks for the URI before every command: a refusal ends the session, a new URI replaces it', async () => {
    writeFileSync(starts, '');
    let uri: string | Error = 'qemu+ssh://root@192.0.2.1/system';
    const s = rawSession({ connect: () => (uri instanceof Error ? Promise.reject(uri) : Promise.resolve(uri)) });
    await s.exec(['count', 'a'], 5000);
    const pid = s.pid()!;
    uri = new Error('refused by the egress policy');
    await expect(s.exec(['count', 'b'], 5000)).rejects.toThrow('refused by the egress policy');
    await expect.poll(() => pidAlive(pid), { timeout: 4000 }).toBe(false);
    uri = 'qemu+ssh://root@192.0.2.2/system';
    await s.exec(['count', 'c'], 5000);
    uri = 'qemu+ssh://root@192.0.2.3/system';
    await s.exec(['count', 'd'], 5000);
    expect(startsSoFar()).toEqual([
      '-q -c qemu+ssh://root@192.0.2.1/system',
      '-q -c qemu+ssh://root@192.0.2.2/system',
      '-q -c qemu+ssh://root@192.0.2.3/system',
    ]);
  });

  it('sends only plain words: anything virsh’s shell would parse is refused', async () => {
    const s = rawSession();
    for (const bad of ["x'y", 'a b', 'a;list', 'a\nlist', '"q"', 'a\\b', '#c', '', 'a\tb'])
      await expect(s.exec(['dumpxml', bad], 5000)).rejects.toThrow(/not a session command/);
  });

  it('ends an idle session by itself', async () => {
    const s = rawSession({ idleMs: 200 });
    await s.exec(['count', 'a'], 5000);
    const pid = s.pid()!;
    await expect.poll(() => pidAlive(pid), { timeout: 5000 }).toBe(false);
    expect(s.pid()).toBeNull();
    expect((await s.exec(['count', 'b'], 5000)).stdout).toBe('call 1 of this process (b)\n');
  });
});

/** The parent of a process, from /proc. */
const parentOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

describe('sessions started by the spawn helper (spawner.ts, decision 0029)', () => {
  it("starts each session's virsh from the helper, not the portal; many at once, each its own", async () => {
    writeFileSync(starts, '');
    const spawner = createSpawner();
    const sessions = Array.from({ length: 20 }, () => rawSession({ spawner }));
    const replies = await Promise.all(sessions.map((s, i) => s.exec(['count', `s${i}`], 10_000)));
    expect(replies.map((r) => r.stdout)).toEqual(
      Array.from({ length: 20 }, (_, i) => `call 1 of this process (s${i})\n`),
    );
    const helper = spawner.helperPid()!;
    expect(helper).not.toBe(process.pid);
    expect(parentOf(helper)).toBe(process.pid);
    const pids = sessions.map((s) => s.pid()!);
    expect(new Set(pids).size).toBe(20);
    for (const pid of pids) expect(parentOf(pid)).toBe(helper);
    expect(startsSoFar()).toHaveLength(20);
  });

  it('a helper that dies leaves its sessions working; the next session starts another helper', async () => {
    const spawner = createSpawner();
    const s = rawSession({ spawner });
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    const helper = spawner.helperPid()!;
    process.kill(helper, 'SIGKILL');
    await expect.poll(() => spawner.helperPid(), { timeout: 4000 }).toBeNull();
    // The session's virsh outlives the helper: its sockets are the portal's and its own.
    expect((await s.exec(['count', 'b'], 5000)).stdout).toBe('call 2 of this process (b)\n');
    const t = rawSession({ spawner });
    expect((await t.exec(['count', 'c'], 5000)).stdout).toBe('call 1 of this process (c)\n');
    expect(spawner.helperPid()).not.toBeNull();
    expect(spawner.helperPid()).not.toBe(helper);
    expect(parentOf(t.pid()!)).toBe(spawner.helperPid());
  });

  it('ends the command of a virsh the helper saw exit, though its sockets never closed', async () => {
    // A virsh that could not connect, as a loaded machine once showed it: its words on stderr, then gone, and
    // no 'close' from its sockets; the command waited out its whole timeout (60 s) and the queue behind it.
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let exit!: () => void;
    const exited = new Promise<void>((r) => (exit = r));
    const spawner: Spawner = {
      spawn: () =>
        Promise.resolve({
          pid: 2 ** 22 + 1, // no such process: the session's kill finds nothing
          io: Duplex.from({ readable: stdout, writable: new PassThrough() }) as unknown as net.Socket,
          err: stderr as unknown as net.Socket,
          exited,
        }),
      helperPid: () => null,
    };
    const s = rawSession({ spawner });
    const started = Date.now();
    const reply = s.exec(['pool-info', 'irontech'], 20_000);
    stderr.write("error: failed to connect to the hypervisor\nerror: unable to connect to server at '127.0.0.1:1'\n");
    exit();
    await expect(reply).rejects.toMatchObject({
      reason: 'exited',
      stderr: expect.stringContaining('unable to connect to server') as unknown,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a virsh that is not installed is said so, through the helper as without it', async () => {
    for (const spawner of [createSpawner(), null]) {
      const s = rawSession({ spawner, binary: join(dir, 'no-such-virsh') });
      await expect(s.exec(['count', 'a'], 5000)).rejects.toMatchObject({
        reason: 'spawn',
        code: 'ENOENT',
        message: expect.stringContaining('is not installed') as unknown,
      });
    }
  });

  it("starts a host's event watch through the helper too, and ends it (its process group) when unwatched", async () => {
    const ref = refForKey('watched');
    const watchPid = join(dir, 'watch.pid');
    const watcher = join(dir, 'virsh-watch');
    writeFileSync(
      watcher,
      `#!/bin/sh\ncase "$*" in *' event --loop '*) echo $$ > '${watchPid}'; echo "event 'lifecycle' for domain '${ref}': Stopped Shutdown"; exec sleep 60;; esac\nexit 1\n`,
    );
    chmodSync(watcher, 0o755);
    const driver = createLibvirtDriver({ uri: 'test:///default', virshBinary: watcher, uploadGuestImage: false });
    const seen: string[] = [];
    const stop = driver.watch((r) => seen.push(r));
    await expect.poll(() => seen, { timeout: 5000 }).toEqual([ref]);
    const pid = Number(readFileSync(watchPid, 'utf8'));
    expect(parentOf(pid)).toBe(sharedSpawner().helperPid());
    stop();
    await expect.poll(() => pidAlive(pid), { timeout: 4000 }).toBe(false);
  });

  it('without a helper (spawner: null) the portal spawns virsh itself, as before', async () => {
    const s = rawSession({ spawner: null });
    expect((await s.exec(['count', 'a'], 5000)).stdout).toBe('call 1 of this process (a)\n');
    expect(parentOf(s.pid()!)).toBe(process.pid);
  });
});

describe('createVirsh with a session (stand-in virsh)', () => {
  it('runs reads in the session and everything else, or anything not plain, as a process', async () => {
    writeFileSync(starts, '');
    const v = session('qemu:///a');
    expect(await v.run(['list', '--all'])).toBe('');
    expect(await v.run(['domstate', 'irontech-1'])).toBe('');
    expect(await v.run(['start', 'irontech-1'])).toBe('one-shot: start irontech-1\n');
    expect(await v.run(['dumpxml', "it's"])).toBe("one-shot: dumpxml it's\n");
    // A long transfer is not a short read.
    expect(await v.run(['vol-info', 'x'], { timeoutMs: 600_000 })).toBe('one-shot: vol-info x\n');
    expect(startsSoFar()).toEqual([
      '-q -c qemu:///a',
      '-q -c qemu:///a start irontech-1',
      "-q -c qemu:///a dumpxml it's",
      '-q -c qemu:///a vol-info x',
    ]);
  });

  it('runs a write the caller marks short (a backup take’s) in the session; not plain, or long, still a process', async () => {
    writeFileSync(starts, '');
    const v = session('qemu:///b');
    expect(await v.run(['list', '--all'])).toBe('');
    expect(await v.run(['vol-upload', '--pool', 'p', 'm.json', '/tmp/x/data'], { short: true })).toBe('');
    expect(await v.run(['backup-begin', 'irontech-1', '--backupxml', '/tmp/x/b.xml'], { short: true })).toBe('');
    expect(await v.run(['vol-delete', '--pool', 'p', "it's"], { short: true })).toBe(
      "one-shot: vol-delete --pool p it's\n",
    );
    expect(await v.run(['vol-delete', '--pool', 'p', 'x'], { short: true, timeoutMs: 600_000 })).toBe(
      'one-shot: vol-delete --pool p x\n',
    );
    expect(await v.run(['vol-delete', '--pool', 'p', 'y'])).toBe('one-shot: vol-delete --pool p y\n');
    expect(startsSoFar()).toEqual([
      '-q -c qemu:///b',
      "-q -c qemu:///b vol-delete --pool p it's",
      '-q -c qemu:///b vol-delete --pool p x',
      '-q -c qemu:///b vol-delete --pool p y',
    ]);
  });
});

const realVirsh = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v virsh'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();

describe.runIf(realVirsh)('virsh session against real virsh (test:///default)', () => {
  const uri = 'test:///default';
  const oneShot = createVirsh(uri, realVirsh);
  const v = createVirsh(uri, realVirsh, 60_000, { session: true });
  opened.push(v);

  it('answers exactly what a process per call answers', async () => {
    for (const args of [
      ['domstats', '--state'],
      ['domstats', '--state', '--cpu-total', '--balloon', '--block', '--interface'],
      ['domstate', 'test'],
      ['dumpxml', 'test'],
      ['list', '--all', '--name'],
      ['nodeinfo'],
      ['version'],
    ])
      expect([args, await v.run(args)]).toEqual([args, await oneShot.run(args)]);
  });

  it("gives libvirt's errors as the process runner does, one process throughout", async () => {
    const pid = v.sessionPid();
    await expect(v.run(['domstate', 'irontech-nosuch'])).rejects.toBeInstanceOf(VirshError);
    expect(await v.maybe(['dumpxml', 'irontech-nosuch'])).toBeNull();
    const e = await v.run(['domstate', 'irontech-nosuch']).catch((err: unknown) => err);
    expect(isNotFound(e)).toBe(true);
    // Fifty at once: each its own answer.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? v.run(['domstate', 'test']) : v.maybe(['domstate', `nosuch${i}`]))),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => (i % 2 ? 'running\n' : null)));
    expect(v.sessionPid()).toBe(pid);
  });

  it("gives a short write's errors as the process runner does, in the session (a backup take's vol-delete)", async () => {
    await v.run(['version']);
    const pid = v.sessionPid();
    const args = ['vol-delete', '--pool', 'default-pool', 'irontech-nosuch.json'];
    const inSession = await v.run(args, { short: true }).catch((e: unknown) => e);
    const asProcess = await oneShot.run(args).catch((e: unknown) => e);
    expect(inSession).toBeInstanceOf(VirshError);
    expect(isNotFound(inSession)).toBe(true);
    expect((inSession as VirshError).stderr).toBe((asProcess as VirshError).stderr);
    expect(v.sessionPid()).toBe(pid);
  });

  it('starts again after its virsh is killed, and closes on request', async () => {
    await v.run(['version']);
    const pid = v.sessionPid()!;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => v.sessionPid(), { timeout: 2000 }).toBeNull();
    expect(await v.run(['domstate', 'test'])).toBe('running\n');
    const second = v.sessionPid()!;
    expect(second).not.toBe(pid);
    v.close();
    await expect.poll(() => pidAlive(second), { timeout: 4000 }).toBe(false);
  });

  it("ends a reply with a whole line: a line-by-line filter on virsh's output (sed -u) does not hold it back", async () => {
    const filtered = join(dir, 'virsh-through-sed');
    writeFileSync(filtered, `#!/bin/sh\n'${realVirsh}' "$@" | sed -u ''\n`);
    chmodSync(filtered, 0o755);
    const through = createVirsh(uri, filtered, 60_000, { session: true });
    opened.push(through);
    for (const args of [
      ['domstats', '--state'],
      ['domstate', 'test'],
      ['list', '--all', '--name'],
    ])
      expect(await through.run(args, { timeoutMs: 10_000 })).toBe(await oneShot.run(args));
  });

  it('an unreachable daemon is a transient error, as for a process', async () => {
    const down = createVirsh('qemu+tcp://127.0.0.1:1/system', realVirsh, 60_000, { session: true });
    opened.push(down);
    await expect(down.run(['domstats', '--state'])).rejects.toBeInstanceOf(TransientProviderError);
  });
});
