/** libvirt's domain states as the portal's MachineState: one mapping for `domstate` (one domain) and `domstats` (all). */
import type { HostSample, MachineState, MachineStats } from '../provider.ts';
import { REF_RE } from './names.ts';

/**
 * A state word as virsh prints it (`running`, `idle`, `paused`, `in shutdown`, `shut off`, …) as the portal's state:
 * a domain that runs, waits on a resource (virsh says idle; libvirt's name is blocked) or is shutting down is running.
 */
export function machineStateOf(word: string): MachineState {
  return word === 'running' || word === 'idle' || word === 'blocked' || word === 'in shutdown' ? 'running' : 'stopped';
}

/** virDomainState's numbers, as `domstats --state` gives them, in virsh's words (virshDomainStateToString). */
const STATE_WORDS = ['no state', 'running', 'idle', 'paused', 'in shutdown', 'shut off', 'crashed', 'pmsuspended'];

/**
 * The states of the portal's domains (names matching REF_RE) in the output of `virsh domstats --state`:
 *   Domain: 'irontech-…'
 *     state.state=1
 *     state.reason=0
 * A domain listed without its state throws: the caller knows nothing of that host this time, rather than
 * taking the domain for gone.
 */
export function parseDomainStates(out: string): Map<string, MachineState> {
  return parseDomainSample(out).states;
}

/**
 * The groups `sampleAll` asks for: state, and the statistics of a running domain (libvirt leaves out what a
 * domain or driver cannot give, e.g. everything but the state of a shut-off domain, or of the `test` driver's).
 */
export const SAMPLE_GROUPS = ['--state', '--cpu-total', '--balloon', '--vcpu', '--block', '--interface'] as const;

/**
 * States and statistics of the portal's domains in the output of `virsh domstats` with SAMPLE_GROUPS:
 *   cpu.time=…                         ns of CPU, all vCPUs        vcpu.current=2
 *   balloon.available=… balloon.unused=…   KiB the guest sees and leaves unused (guest balloon driver)
 *   balloon.rss=…                      KiB QEMU holds (used when the guest reports nothing)
 *   block.count=N  block.<i>.rd.bytes=…  block.<i>.wr.bytes=…   (top-level disks only without --backing)
 *   net.count=N    net.<i>.rx.bytes=…    net.<i>.tx.bytes=…     (rx: what the guest received)
 * A domain has statistics when its `cpu.time` is there; absent counters count 0.
 */
export function parseDomainSample(out: string): HostSample {
  const states = new Map<string, MachineState>();
  const stats = new Map<string, MachineStats>();
  let current: string | null = null;
  let ours = false;
  let fields = new Map<string, string>();
  const close = () => {
    if (current === null || !ours) return;
    const state = fields.get('state.state');
    if (state === undefined || !/^\d+$/.test(state)) throw new Error(`virsh domstats gave no state for ${current}`);
    states.set(current, machineStateOf(STATE_WORDS[Number(state)] ?? 'unknown'));
    const machine = statsOf(fields);
    if (machine) stats.set(current, machine);
  };
  // Plain string scans: a pass reads ~30 lines for each of a host's domains.
  for (const line of out.split('\n')) {
    if (line.startsWith('Domain: ')) {
      const domain = /^Domain: '(.*)'$/.exec(line.trimEnd());
      if (!domain) continue;
      close();
      current = domain[1]!;
      ours = REF_RE.test(current);
      fields = new Map();
      continue;
    }
    const eq = line.indexOf('=');
    if (ours && eq > 0 && (line[0] === ' ' || line[0] === '\t'))
      fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  close();
  return { states, stats };
}

function statsOf(fields: Map<string, string>): MachineStats | null {
  const num = (key: string): number | null => {
    const v = fields.get(key);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
  };
  const cpuTimeNs = num('cpu.time');
  if (cpuTimeNs === null) return null;
  const sum = (group: string, count: number | null, key: string) => {
    let total = 0;
    for (let i = 0; i < (count ?? 0); i++) total += num(`${group}.${i}.${key}`) ?? 0;
    return total;
  };
  const blocks = num('block.count');
  const nets = num('net.count');
  const available = num('balloon.available');
  const unused = num('balloon.unused');
  const rss = num('balloon.rss');
  const usedKib = available !== null && unused !== null ? available - unused : rss;
  return {
    cpuTimeNs,
    vcpus: num('vcpu.current') || 1,
    memoryUsedBytes: usedKib === null ? null : Math.max(0, usedKib) * 1024,
    diskReadBytes: sum('block', blocks, 'rd.bytes'),
    diskWriteBytes: sum('block', blocks, 'wr.bytes'),
    netRxBytes: sum('net', nets, 'rx.bytes'),
    netTxBytes: sum('net', nets, 'tx.bytes'),
  };
}
