/**
 * Hourly roll-ups: the minute points of each hour that has ended become one hour row per VM (sums, so CPU %, mean
 * memory and byte rates come out of an hour as out of a minute). Hours are rolled up once, in order, after the newest
 * hour already rolled up; the route sums the minutes of the hours after a VM's last roll-up itself (the current hour).
 */
import type { MetricsRepository } from './metrics.repository.ts';
import { floorTo, HOUR_MS } from './samples.ts';

/** Rolls up every hour that ended by `now`; answers the hour rows written. */
export function rollUpHours(repo: MetricsRepository, now: Date): Promise<number> {
  return repo.rollUp(floorTo(now, HOUR_MS));
}
