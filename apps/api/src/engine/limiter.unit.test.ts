/**
 * The engine's limiter (how many of a pass's statements run at once, whatever the hosts in flight): never more
 * than its slots, tasks started in the order they came, and a failed task gives its slot back.
 */
import { expect, it } from 'vitest';
import { limiter } from './periodic.ts';

it('runs at most n tasks at once, in the order they came, and frees the slot of a task that failed', async () => {
  const slot = limiter(2);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const gates = new Map<number, () => void>();
  const task = (i: number, fail = false) =>
    slot(async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.set(i, resolve));
      running--;
      if (fail) throw new Error(`task ${i} failed`);
      return i;
    });
  const results = [task(0, true), task(1), task(2), task(3), task(4)].map((p) =>
    p.then(
      (v) => ({ ok: v }),
      (e: unknown) => ({ err: (e as Error).message }),
    ),
  );
  const settle = () => new Promise((r) => setImmediate(r));
  await settle();
  expect(started).toEqual([0, 1]);
  gates.get(0)!(); // fails: its slot goes to the next task waiting
  await settle();
  expect(started).toEqual([0, 1, 2]);
  gates.get(2)!();
  await settle();
  gates.get(1)!();
  await settle();
  expect(started).toEqual([0, 1, 2, 3, 4]);
  gates.get(3)!();
  gates.get(4)!();
  expect(await Promise.all(results)).toEqual([{ err: 'task 0 failed' }, { ok: 1 }, { ok: 2 }, { ok: 3 }, { ok: 4 }]);
  expect(most).toBe(2);
  // Free again: a task now starts at once.
  expect(await slot(async () => 'now')).toBe('now');
});
