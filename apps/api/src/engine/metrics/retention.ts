/**
 * The metrics sweep, a worker of the engine: every few minutes (by the injected clock's time) it rolls up the hours
 * that ended, then drops minute points older than 24 h, hourly roll-ups older than 90 days and the last counters of
 * deleted VMs. Monthly traffic is kept (billing). Running it on several instances at once is harmless: the roll-up
 * rewrites whole hours, the deletes are by age.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { MetricsRepository } from './metrics.repository.ts';
import { rollUpHours } from './rollup.ts';
import { HOUR_MS } from './samples.ts';

export const MINUTES_KEPT_MS = 24 * HOUR_MS;
export const HOURS_KEPT_MS = 90 * 24 * HOUR_MS;

export interface SweepResult {
  hoursRolledUp: number;
  minutesDropped: number;
  hoursDropped: number;
  latestDropped: number;
}

export function createMetricsSweep(opts: {
  repo: MetricsRepository;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Between sweeps (default 5 minutes). */
  intervalMs?: number;
}) {
  const { repo, clock, log } = opts;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  /** One sweep at the clock's now: roll-ups first, so no minute is dropped before its hour is rolled up. */
  async function sweepOnce(): Promise<SweepResult> {
    const now = clock.now();
    const hoursRolledUp = await rollUpHours(repo, now);
    const dropped = await repo.prune(
      new Date(now.getTime() - MINUTES_KEPT_MS),
      new Date(now.getTime() - HOURS_KEPT_MS),
    );
    return {
      hoursRolledUp,
      minutesDropped: dropped.minutes,
      hoursDropped: dropped.hours,
      latestDropped: dropped.latest,
    };
  }

  return {
    sweepOnce,
    start() {
      if (timer) return;
      const pass = () => {
        running ??= sweepOnce()
          .catch((err: unknown) => log.error({ err }, 'metrics sweep failed'))
          .finally(() => {
            running = null;
          });
      };
      timer = setInterval(pass, opts.intervalMs ?? 5 * 60_000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
