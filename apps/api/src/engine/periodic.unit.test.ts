import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { createPeriodic } from './periodic.ts';

function logger() {
  const errors: string[] = [];
  const log = { error: (_o: unknown, msg: string) => errors.push(msg) } as unknown as FastifyBaseLogger;
  return { log, errors };
}

describe('createPeriodic', () => {
  it('never runs two passes at once: a pass asked for while one runs joins it', async () => {
    let runs = 0;
    let release!: () => void;
    const { log } = logger();
    const loop = createPeriodic(
      () => {
        runs++;
        return new Promise<void>((r) => (release = r));
      },
      { intervalMs: 60_000, log, what: 'worker' },
    );
    const a = loop.pass();
    const b = loop.pass();
    expect(loop.busy).toBe(true);
    release();
    await Promise.all([a, b]);
    expect(runs).toBe(1);
    expect(loop.busy).toBe(false);
  });

  it('logs a failed pass and runs the next one; stop waits for the pass under way and ends the timer', async () => {
    let runs = 0;
    const { log, errors } = logger();
    const loop = createPeriodic(
      async () => {
        runs++;
        if (runs === 1) throw new Error('host gone');
        await new Promise((r) => setTimeout(r, 30));
      },
      { intervalMs: 10, log, what: 'worker' },
    );
    loop.start();
    expect(loop.started).toBe(true);
    await new Promise((r) => setTimeout(r, 25));
    await loop.stop();
    expect(loop.started).toBe(false);
    expect(loop.busy).toBe(false);
    expect(errors).toEqual(['worker failed']);
    expect(runs).toBeGreaterThanOrEqual(2);
    const after = runs;
    await new Promise((r) => setTimeout(r, 40));
    expect(runs).toBe(after);
  });
});
