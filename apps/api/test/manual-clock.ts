/** A clock that moves only when a test moves it: leases and retry delays without sleeping. */
import type { Clock } from '../src/lib/clock.ts';

export interface ManualClock extends Clock {
  advance(ms: number): void;
}

export function manualClock(start = new Date()): ManualClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms: number) {
      now += ms;
    },
  };
}
