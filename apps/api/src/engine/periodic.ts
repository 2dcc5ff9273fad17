/**
 * The loop of the engine's background workers (reconciler, host monitor, drainer): a pass now and then every
 * `intervalMs`, never two passes at once (a pass asked for while one runs joins it), a failed pass logged and the
 * next one tried on time, and a stop that waits for the pass under way.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface Periodic {
  /** A pass now, or the one under way: resolves when it ends (never rejects: a failure is logged). */
  pass(): Promise<void>;
  /** Between start() and stop(). */
  readonly started: boolean;
  /** A pass is under way. */
  readonly busy: boolean;
  /** The first pass at once, then one per interval; a no-op when started. */
  start(): void;
  /** No more passes; waits for the one under way. */
  stop(): Promise<void>;
}

export function createPeriodic(
  work: () => Promise<unknown>,
  opts: { intervalMs: number; log: FastifyBaseLogger; what: string },
): Periodic {
  let timer: NodeJS.Timeout | null = null;
  let current: Promise<void> | null = null;

  function pass(): Promise<void> {
    current ??= work()
      .then(() => undefined)
      .catch((err: unknown) => opts.log.error({ err }, `${opts.what} failed`))
      .finally(() => {
        current = null;
      });
    return current;
  }

  return {
    pass,
    get started() {
      return timer !== null;
    },
    get busy() {
      return current !== null;
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void pass(), opts.intervalMs);
      timer.unref();
      void pass();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await current;
    },
  };
}

/** Runs a task when one of its limiter's slots is free. */
export type Slot = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * Runs at most `n` of the tasks handed to it at once, the others in the order they came: a worker that waits on many
 * hosts at once sends its statements through one, so the pool's other connections stay free for requests.
 */
export function limiter(n: number): Slot {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot goes straight to the next task waiting, or back.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
