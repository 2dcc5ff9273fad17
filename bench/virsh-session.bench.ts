/**
 * One call to a libvirt host: a `virsh` process per call (as before issue 22) against the host's long-lived virsh
 * session (apps/api/src/providers/libvirt/virsh-session.ts), through createVirsh as the driver uses it, over three
 * transports to a private libvirtd (apps/api/test/libvirt-daemon.ts, needs root): its unix socket, qemu+tcp on
 * loopback, and qemu+ssh through a private sshd on 127.0.0.2 (apps/api/test/test-sshd.ts; the sshd runs `nc -U` to
 * the daemon's socket, as libvirt's own proxy would on a real host). For each: wall time per call (median and p90)
 * and CPU per call on the portal's side (the API process and its virsh and ssh children, live and reaped), on the
 * host's side (sshd and libvirtd). Saves bench/results/virsh-session-<date>.json.
 *   node --import tsx bench/virsh-session.bench.ts        SESSION_BENCH_CALLS=20 (spawn calls; the session does 10x)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';
import { startTestSshd } from '../apps/api/test/test-sshd.ts';
import { createVirsh } from '../apps/api/src/providers/libvirt/virsh.ts';
import { processTotalCpuMs, treeCpuMs } from './lib/tree-cpu.ts';

const CALLS = Number(process.env.SESSION_BENCH_CALLS ?? 20);
const COMMANDS = [
  ['domstats', '--state'],
  ['list', '--all', '--name'],
];

const daemon = await startLibvirtDaemon();
const libvirtdPid = Number(readFileSync(path.join(daemon.dir, 'libvirtd.pid'), 'utf8').trim());
const sshd = await startTestSshd('127.0.0.2', { forceCommand: `nc -U ${daemon.socketPath}` });
// The sshd's own host key is recorded by the first connection (no_verify=1 into the test sshd's known_hosts).
const sshUri = `qemu+ssh://root@${sshd.address}:${sshd.port}/system?${[
  `keyfile=${sshd.keyfile}`,
  'no_verify=1',
  `command=${sshd.command}`,
  'no_tty=1',
].join('&')}`;
const transports = [
  { name: 'unix socket', uri: daemon.socketUri },
  { name: 'qemu+tcp loopback', uri: daemon.tcpUri },
  { name: 'qemu+ssh loopback', uri: sshUri },
];

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const r1 = (n: number) => Math.round(n * 10) / 10;

type Row = {
  transport: string;
  mode: 'process per call' | 'session';
  command: string;
  calls: number;
  medianMs: number;
  p90Ms: number;
  firstCallMs: number;
  portalCpuMsPerCall: number;
  clientCpuMsPerCall: number;
  sshdCpuMsPerCall: number;
  libvirtdCpuMsPerCall: number;
};
const rows: Row[] = [];

try {
  for (const t of transports) {
    for (const mode of ['process per call', 'session'] as const) {
      for (const args of COMMANDS) {
        const virsh = createVirsh(t.uri, 'virsh', 60_000, { session: mode === 'session' });
        const n = mode === 'session' ? CALLS * 10 : CALLS;
        // The session's first call opens it (a process and a connection): timed apart, not in the per-call figures.
        const f0 = process.hrtime.bigint();
        await virsh.run(args);
        const firstCallMs = Number(process.hrtime.bigint() - f0) / 1e6;
        const cpu0 = treeCpuMs(['sshd']);
        const l0 = processTotalCpuMs(libvirtdPid) ?? 0;
        const times: number[] = [];
        for (let i = 0; i < n; i++) {
          const t0 = process.hrtime.bigint();
          await virsh.run(args);
          times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        const cpu1 = treeCpuMs(['sshd']);
        const l1 = processTotalCpuMs(libvirtdPid) ?? 0;
        virsh.close();
        rows.push({
          transport: t.name,
          mode,
          command: args.join(' '),
          calls: n,
          medianMs: r1(pct(times, 0.5)),
          p90Ms: r1(pct(times, 0.9)),
          firstCallMs: r1(firstCallMs),
          portalCpuMsPerCall: r1((cpu1.self - cpu0.self) / n),
          clientCpuMsPerCall: r1((cpu1.children - cpu0.children) / n),
          sshdCpuMsPerCall: r1((cpu1.apart - cpu0.apart) / n),
          libvirtdCpuMsPerCall: r1((l1 - l0) / n),
        });
        const r = rows.at(-1)!;
        console.log(
          `${r.transport.padEnd(18)} ${r.mode.padEnd(17)} ${r.command.padEnd(18)} median ${String(r.medianMs).padStart(6)} ms  p90 ${String(r.p90Ms).padStart(6)} ms  first ${String(r.firstCallMs).padStart(6)} ms  CPU/call: API ${r.portalCpuMsPerCall} virsh+ssh ${r.clientCpuMsPerCall} sshd ${r.sshdCpuMsPerCall} libvirtd ${r.libvirtdCpuMsPerCall} ms`,
        );
      }
    }
  }
  const result = {
    at: new Date().toISOString(),
    cpus: os.cpus().length,
    loadAverage: os.loadavg(),
    note: 'shared 2-core machine; CPU figures are /proc ticks (10 ms) summed over the calls',
    rows,
  };
  const dir = new URL('./results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `virsh-session-${result.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`saved ${out}`);
} finally {
  await sshd.stop();
  await daemon.stop({ domainPattern: /^$/, networks: [], pools: [] });
}
