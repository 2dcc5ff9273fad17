/** libvirt's domain states as the portal's MachineState: one mapping for `domstate` (one domain) and `domstats` (all). */
import type { MachineState } from '../provider.ts';
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
  const states = new Map<string, MachineState>();
  let current: string | null = null;
  const close = () => {
    if (current !== null && REF_RE.test(current) && !states.has(current))
      throw new Error(`virsh domstats gave no state for ${current}`);
  };
  for (const line of out.split('\n')) {
    const domain = /^Domain: '(.*)'$/.exec(line.trimEnd());
    if (domain) {
      close();
      current = domain[1]!;
      continue;
    }
    const state = /^\s*state\.state=(\d+)\s*$/.exec(line);
    if (state && current !== null && REF_RE.test(current))
      states.set(current, machineStateOf(STATE_WORDS[Number(state[1])] ?? 'unknown'));
  }
  close();
  return states;
}
