/** The wait for a guest after a power-on (boot-wait.ts), on a clock of its own. */
import { describe, expect, it } from 'vitest';
import { GuestNotReadyError, TransientProviderError } from '../provider.ts';
import { waitForGuest, type GuestLooks } from './boot-wait.ts';

/** Looks answered from a script, one entry per look: true/false, or an error to throw. */
function looks(script: (boolean | Error)[], overrides: Partial<GuestLooks> = {}) {
  let t = 0;
  const asked: string[] = [];
  const next = async (what: string) => {
    asked.push(what);
    const answer = script.shift() ?? false;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const g: GuestLooks = {
    ready: () => next('ready'),
    running: () => Promise.resolve(true),
    timeoutMs: 60_000,
    pauseMs: 2000,
    now: () => t,
    wait: (ms) => Promise.resolve((t += ms)),
    ...overrides,
  };
  return { g, asked, elapsed: () => t };
}

const busy = () => new TransientProviderError('virsh qemu-agent-command on qemu:///system: no answer in time');

describe('waitForGuest', () => {
  it('keeps looking through looks the host did not answer, and returns once the guest is ready', async () => {
    const { g, asked } = looks([false, busy(), busy(), false, true]);
    await expect(waitForGuest(g)).resolves.toBeUndefined();
    expect(asked).toHaveLength(5);
  });

  it("fails with the host's error when it answered none of the looks up to the timeout", async () => {
    const { g, elapsed } = looks(Array.from({ length: 100 }, busy));
    await expect(waitForGuest(g)).rejects.toBeInstanceOf(TransientProviderError);
    expect(elapsed()).toBeGreaterThanOrEqual(60_000);
  });

  it('says the guest did not answer when the host did but the guest never became ready', async () => {
    const { g } = looks([busy(), ...Array.from({ length: 100 }, () => false)]);
    await expect(waitForGuest(g)).rejects.toThrow(new GuestNotReadyError('The guest did not answer within 60 s'));
  });

  it('ends at once when the guest powered off, or on an error that is not the host being busy', async () => {
    const off = looks([false], { running: () => Promise.resolve(false) });
    await expect(waitForGuest(off.g)).rejects.toThrow('The guest powered off while it was starting');
    expect(off.elapsed()).toBe(1000);
    const broken = looks([new Error('libvirt machine irontech-x does not exist')]);
    await expect(waitForGuest(broken.g)).rejects.toThrow('does not exist');
    expect(broken.asked).toHaveLength(1);
  });
});
