/**
 * Waiting for a guest after a power-on (create, start, reset, rebuild, a resize or restore of a running machine):
 * until it is ready by the driver's measure (its agent and cloud-init, or a DHCP lease), it powers off, or the boot
 * timeout passes.
 *
 * The power action is done before the wait begins. A look the host did not answer (a TransientProviderError: busy,
 * or briefly unreachable) is therefore no reason to give up: the runner retries an operation that fails so from its
 * start, and a retried reset would reset the booting guest once more (a retried rebuild would rebuild it again). The
 * wait looks again instead. A host that still does not answer when the timeout passes fails the wait with its own
 * error, and the action is retried when the host answers again, as before.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GuestNotReadyError, TransientProviderError } from '../provider.ts';

export interface GuestLooks {
  /** Whether the guest is ready. */
  ready(): Promise<boolean>;
  /** Whether the machine still runs (a guest that shut itself down ends the wait). */
  running(): Promise<boolean>;
  timeoutMs: number;
  /** Between looks (after the first second). */
  pauseMs: number;
  /** Tests: a clock of their own. */
  now?: () => number;
  wait?: (ms: number) => Promise<unknown>;
}

export async function waitForGuest(g: GuestLooks): Promise<void> {
  const now = g.now ?? Date.now;
  const wait = g.wait ?? sleep;
  const until = now() + g.timeoutMs;
  for (;;) {
    // A moment first: right after a reset the agent of the boot before may look connected.
    await wait(1000);
    /** This look's: the host did not answer it. */
    let unanswered: TransientProviderError | null = null;
    try {
      if (await g.ready()) return;
      if (!(await g.running())) throw new GuestNotReadyError('The guest powered off while it was starting');
    } catch (e) {
      if (!(e instanceof TransientProviderError)) throw e;
      unanswered = e;
    }
    if (now() >= until) {
      if (unanswered) throw unanswered;
      throw new GuestNotReadyError(`The guest did not answer within ${Math.round(g.timeoutMs / 1000)} s`);
    }
    if (g.pauseMs > 0) await wait(g.pauseMs);
  }
}
