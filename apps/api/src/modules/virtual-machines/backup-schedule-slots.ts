/**
 * When a backup schedule's slots fall (decision 0023): every day, or every week on its weekday, at its full hour in
 * UTC. No time zones and no daylight saving: the portal says "UTC" wherever it shows one.
 */
import type { BackupScheduleFrequency } from '@portal/contract/backup-schedules';

export interface SlotRule {
  frequency: BackupScheduleFrequency;
  /** 0 Sunday .. 6 Saturday (UTC); ignored when daily. */
  weekday: number | null;
  hour: number;
}

const DAY = 24 * 3600 * 1000;

/** The slot of `at`'s UTC day at the rule's hour, moved back to the rule's weekday when weekly. */
function slotOfWeek(rule: SlotRule, at: Date): number {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), rule.hour);
  if (rule.frequency === 'daily' || rule.weekday === null) return day;
  return day - ((at.getUTCDay() - rule.weekday + 7) % 7) * DAY;
}

const periodOf = (rule: SlotRule) => (rule.frequency === 'daily' || rule.weekday === null ? DAY : 7 * DAY);

/** The last slot at or before `at`. */
export function slotAtOrBefore(rule: SlotRule, at: Date): Date {
  const slot = slotOfWeek(rule, at);
  return new Date(slot <= at.getTime() ? slot : slot - periodOf(rule));
}

/** The first slot strictly after `at`. */
export function slotAfter(rule: SlotRule, at: Date): Date {
  return new Date(slotAtOrBefore(rule, at).getTime() + periodOf(rule));
}
