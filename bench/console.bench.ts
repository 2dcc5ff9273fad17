/**
 * Console latency: key press → echo on the serial console, and a full framebuffer update round trip over VNC,
 * through the portal (the API's websockets) vs directly to the host on loopback (the driver's serial stream, and a
 * TCP connection to QEMU's VNC port). One real guest under TCG on a libvirtd the bench starts (as the tests do).
 * Prints median and p95 of both paths and their ratio (goal: ≤ 1.5×, and under 30 ms on loopback); saves
 * bench/results/console-<date>.json.
 *   node --import tsx bench/console.bench.ts      (BENCH_ROUNDS to change the sample count, default 40)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';
import { configurations, providerOfferings, providers, regions } from '../apps/api/src/db/schema.ts';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { parseVncDisplay } from '../apps/api/src/providers/libvirt/console.ts';
import { REF_RE } from '../apps/api/src/providers/libvirt/names.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';
import { codeFrom, startSmtpCatcher } from '../apps/api/test/smtp-catcher.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const POOL = 'irontest-bench-console';
const NETWORK = 'irontest-bench-console';
const RAW = 0;
const ZRLE = 16;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes received so far, and a way to wait for more. */
class Pipe {
  buf = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  constructor(
    readonly send: (b: Buffer) => void,
    readonly close: () => void,
  ) {}
  push(d: Buffer) {
    this.buf = Buffer.concat([this.buf, d]);
    for (const w of this.waiters.splice(0)) w();
  }
  async waitFor(pred: (buf: Buffer) => boolean, ms = 60_000) {
    const until = Date.now() + ms;
    while (!pred(this.buf)) {
      if (Date.now() > until)
        throw new Error(`timed out; have ${JSON.stringify(this.buf.toString('latin1').slice(-200))}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }
  take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
}

const daemon = await startLibvirtDaemon();
const smtp = await startSmtpCatcher();
const database = await openDatabase({ dataDir: 'memory://' });
await seedReferenceData(database.db);
await seedDemoTenant(database.db, { adminEmail: 'admin@example.com', adminPassword: 'Bench-Password-1!' });
const settings = {
  uri: daemon.socketUri,
  pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
  network: { name: NETWORK, bridge: 'irontestb0', cidr: '10.231.83.0/24' },
  // The busybox fixture: this bench measures the console channels.
  guestImage: 'test-fixture' as const,
};
const portal = await buildApp({
  config: loadConfig({
    SMTP_URL: smtp.url,
    LOG_LEVEL: 'silent',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    VM_RUNNER_POLL_MS: '50',
    VM_RECONCILE_INTERVAL_MS: '100000',
  }),
  database,
  secret: 'bench-secret-that-is-long-enough-0123456',
  logger: false,
  webDistDir: '/nonexistent',
});
await portal.app.listen({ port: 0, host: '127.0.0.1' });
portal.startWorkers();
const port = (portal.app.server.address() as { port: number }).port;
const base = `http://127.0.0.1:${port}/irontech/api/v1`;

async function cleanup() {
  await portal.close();
  await smtp.close();
  await daemon.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
  await rm(path.join(LIBVIRT_TEST_DIR, POOL), { recursive: true, force: true });
}

try {
  // Sign in for real (password + mailed code) to get a session cookie.
  const csrf = 'benchcsrf0123456789abcdef';
  let cookie = `csrf_token=${csrf}`;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { cookie, 'x-csrf-token': csrf, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const sid = res.headers.getSetCookie().find((c) => c.startsWith('sid='));
    if (sid) cookie = `csrf_token=${csrf}; ${sid.split(';')[0]}`;
    return (await res.json()) as { data: unknown };
  };
  await call('POST', '/auth/login', { email: 'admin@example.com', password: 'Bench-Password-1!' });
  await call('POST', '/auth/mfa', { code: codeFrom(await smtp.waitFor('admin@example.com')) });

  const [provider] = await database.db
    .insert(providers)
    .values({ name: 'Bench libvirt', driver: 'libvirt', settings })
    .returning();
  const [region] = (await database.db.select().from(regions)).filter((r) => r.name === 'US East');
  const [micro] = (await database.db.select().from(configurations)).filter((c) => c.key === 'micro');
  await database.db
    .insert(providerOfferings)
    .values({ providerId: provider!.id, regionId: region!.id, configurationId: micro!.id });
  const created = (
    await call('POST', '/virtualMachines/create', {
      regionId: region!.id,
      image: 'Debian 12',
      configurationId: micro!.id,
      providerId: provider!.id,
      name: 'bench-console',
      numberOfInstances: 1,
    })
  ).data as { ids: number[] };
  const id = created.ids[0]!;
  for (const until = Date.now() + 300_000; ;) {
    const vm = (await call('GET', `/virtualMachines/details/${id}`)).data as { status: string };
    if (vm.status === 'Running') break;
    if (vm.status === 'Error' || Date.now() > until) throw new Error(`bench VM is ${vm.status}`);
    await sleep(250);
  }
  const password = ((await call('GET', `/virtualMachines/getPassword/${id}`)).data as { sshPassword: string })
    .sshPassword;
  const socketUrl = async (kind: 'vnc' | 'serial') => {
    const link = ((await call('GET', `/virtualMachines/getConsole/${id}`)).data as { consoleUrl: string }).consoleUrl;
    const u = new URL(link, 'http://x');
    return `ws://127.0.0.1:${port}${u.pathname}/${kind}${u.search}`;
  };
  const wsStream = async (kind: 'vnc' | 'serial'): Promise<Pipe> => {
    const ws = new WebSocket(await socketUrl(kind), { headers: { cookie } });
    const pipe = new Pipe(
      (b) => ws.send(b),
      () => ws.close(),
    );
    ws.on('message', (d: Buffer) => pipe.push(d));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    ws.on('error', (err) => console.error(`websocket error: ${err.message}`));
    return pipe;
  };
  const streamPipe = (s: Duplex): Pipe => {
    const pipe = new Pipe(
      (b) => s.write(b),
      () => s.destroy(),
    );
    s.on('data', (d: Buffer) => pipe.push(d));
    return pipe;
  };

  // Direct paths: the driver's own serial stream and QEMU's VNC port on loopback.
  const driver = createLibvirtDriver(settings);
  const ref = (await daemon.virsh(daemon.socketUri, ['list', '--name']))
    .split('\n')
    .map((n) => n.trim())
    .find((n) => REF_RE.test(n))!;
  const channels = await driver.consoleChannels!(ref);
  const display = parseVncDisplay(await daemon.virsh(daemon.socketUri, ['domdisplay', '--type', 'vnc', ref]))!;

  // The two paths take turns (blocks for the serial port, which takes one client at a time; round by round for
  // VNC, which is shared), so a guest that is busier at one moment weighs on both alike.
  console.log('guest running; measuring the serial console');
  const portalEcho: number[] = [];
  const directEcho: number[] = [];
  const BLOCKS = 4;
  for (let block = 0; block < BLOCKS; block++) {
    const viaPortal = block % 2 === 0;
    const pipe = await loginSerial(
      viaPortal ? await wsStream('serial') : streamPipe(await channels.serial!()),
      password,
    );
    (viaPortal ? portalEcho : directEcho).push(...(await echoRounds(pipe, Math.ceil((2 * ROUNDS) / BLOCKS))));
    pipe.close();
    await sleep(500);
  }

  console.log('measuring VNC framebuffer updates');
  const direct = net.connect({ host: display.address, port: display.port, noDelay: true });
  await new Promise((r) => direct.once('connect', r));
  const portalVnc = await vncSession(await wsStream('vnc'));
  const directVnc = await vncSession(streamPipe(direct));
  const portalFb: number[] = [];
  const directFb: number[] = [];
  await portalVnc.round(); // the first update of each warms up
  await directVnc.round();
  for (let i = 0; i < ROUNDS; i++) {
    portalFb.push(await portalVnc.round());
    directFb.push(await directVnc.round());
  }
  console.log(`  (${portalVnc.describe()})`);
  portalVnc.close();
  directVnc.close();

  const summary = (name: string, portalMs: number[], directMs: number[]) => {
    const p = stats(portalMs);
    const d = stats(directMs);
    const ratio = p.median / d.median;
    console.log(
      `${name}: portal median ${p.median.toFixed(2)} ms (p95 ${p.p95.toFixed(2)}), direct median ${d.median.toFixed(2)} ms (p95 ${d.p95.toFixed(2)}), ratio ${ratio.toFixed(2)}x; goal <= 1.5x and < 30 ms: ${ratio <= 1.5 && p.median < 30 ? 'met' : 'NOT met'}`,
    );
    return { portal: p, direct: d, ratio, absoluteGoalMs: 30, ratioGoal: 1.5 };
  };
  const result = {
    at: new Date().toISOString(),
    rounds: ROUNDS,
    machine: 'TCG guest (1 vCPU, 256 MB) on this host; portal on PGlite',
    vncEncoding: process.env.BENCH_VNC_RAW ? 'Raw' : 'ZRLE',
    order: 'interleaved (serial: 4 blocks taking turns; VNC: round by round)',
    serialKeyEcho: summary('serial key -> echo', portalEcho, directEcho),
    framebufferUpdate: summary('VNC full framebuffer update round trip', portalFb, directFb),
  };
  const dir = new URL('./results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}console-${result.at.slice(0, 10)}.json`, `${JSON.stringify(result, null, 2)}\n`);
} catch (e) {
  console.error('bench failed:', e);
  process.exitCode = 1;
} finally {
  await cleanup();
}

// ---- helpers ----------------------------------------------------------------------------------------

async function loginSerial(p: Pipe, password: string): Promise<Pipe> {
  const has = (s: string) => (b: Buffer) => b.toString('latin1').includes(s);
  // eslint-disable-next-line no-control-regex -- the shell's prompt may end in an ESC cursor query
  const atPrompt = (b: Buffer) => /# (\x1b\[6n)?\s*$/.test(b.toString('latin1'));
  for (let i = 0; i < 30 && !has('login:')(p.buf) && !atPrompt(p.buf); i++) {
    p.send(Buffer.from('\r'));
    await sleep(1000);
  }
  if (!atPrompt(p.buf)) {
    await p.waitFor(has('login:'));
    p.buf = Buffer.alloc(0);
    p.send(Buffer.from('root\r'));
    await p.waitFor(has('Password:'));
    p.buf = Buffer.alloc(0);
    p.send(Buffer.from(`${password}\r`));
    await p.waitFor(has('# '));
  }
  await sleep(500);
  return p;
}

/** One key at a time; the time until the guest's line discipline echoes it. */
async function echoRounds(p: Pipe, rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    p.buf = Buffer.alloc(0);
    const t0 = performance.now();
    p.send(Buffer.from('x'));
    await p.waitFor((b) => b.includes(0x78), 10_000);
    times.push(performance.now() - t0);
    p.buf = Buffer.alloc(0);
    p.send(Buffer.from('\x7f'));
    await p.waitFor((b) => b.length > 0, 10_000);
    await sleep(30);
  }
  return times;
}

/**
 * RFB 3.8 handshake (security None, shared), then full (non-incremental) update requests. The update comes in
 * ZRLE, a compressed encoding noVNC offers (its first choice, Tight, compresses the same way but frames its data
 * in a way that takes longer to parse here); BENCH_VNC_RAW=1 asks for Raw, which sends every pixel (1.1 MB for the
 * 720x400 text screen) and measures the copying rather than the round trip a user waits for.
 */
async function vncSession(p: Pipe): Promise<{ round(): Promise<number>; close(): void; describe(): string }> {
  await p.waitFor((b) => b.length >= 12);
  p.take(12);
  p.send(Buffer.from('RFB 003.008\n'));
  await p.waitFor((b) => b.length >= 1 && b.length >= 1 + b[0]!);
  const types = p.take(1 + p.buf[0]!);
  if (!types.subarray(1).includes(1))
    throw new Error(`VNC server does not offer security None: ${types.toString('hex')}`);
  p.send(Buffer.from([1]));
  await p.waitFor((b) => b.length >= 4);
  if (p.take(4).readUInt32BE(0) !== 0) throw new Error('VNC security handshake failed');
  p.send(Buffer.from([1])); // ClientInit: shared
  await p.waitFor((b) => b.length >= 24 && b.length >= 24 + b.readUInt32BE(20));
  const init = p.take(24 + p.buf.readUInt32BE(20));
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  const bpp = init[4]! / 8;
  const encodings = process.env.BENCH_VNC_RAW ? [RAW] : [ZRLE, RAW];
  const setEncodings = Buffer.alloc(4 + 4 * encodings.length);
  setEncodings.writeUInt8(2, 0);
  setEncodings.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => setEncodings.writeInt32BE(e, 4 + 4 * i));
  p.send(setEncodings);
  const request = Buffer.alloc(10);
  request.writeUInt8(3, 0);
  request.writeUInt8(0, 1); // not incremental: the whole screen every time
  request.writeUInt16BE(width, 6);
  request.writeUInt16BE(height, 8);

  /** Length of one complete FramebufferUpdate at the start of buf, or 0 while incomplete. */
  const updateLength = (b: Buffer): number => {
    if (b.length < 4 || b[0] !== 0) return 0;
    let at = 4;
    for (let r = 0; r < b.readUInt16BE(2); r++) {
      if (b.length < at + 12) return 0;
      const w = b.readUInt16BE(at + 4);
      const h = b.readUInt16BE(at + 6);
      const enc = b.readInt32BE(at + 8);
      if (enc === ZRLE) {
        if (b.length < at + 16) return 0;
        at += 16 + b.readUInt32BE(at + 12); // ZRLE: a length, then that many bytes of zlib data
      } else at += 12 + (enc === RAW ? w * h * bpp : 0);
    }
    return b.length >= at ? at : 0;
  };
  let lastUpdateBytes = 0;
  return {
    async round() {
      p.buf = Buffer.alloc(0);
      const t0 = performance.now();
      p.send(request);
      await p.waitFor((b) => updateLength(b) > 0, 10_000);
      const ms = performance.now() - t0;
      lastUpdateBytes = updateLength(p.buf);
      p.take(lastUpdateBytes);
      return ms;
    },
    close: () => p.close(),
    describe: () =>
      `framebuffer ${width}x${height}, ${bpp * 8} bpp, ${process.env.BENCH_VNC_RAW ? 'Raw' : 'ZRLE'}, last update ${(lastUpdateBytes / 1024).toFixed(1)} KiB`,
  };
}

function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p95: at(0.95), min: s[0]!, max: s.at(-1)!, samples: s.length };
}
