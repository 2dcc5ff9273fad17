/**
 * A VM's backup schedule (issue 24 item 2: "on a schedule the customer sets"; docs/decisions/0023-backup-schedules.md):
 * daily or weekly at an hour of the day in UTC, keeping the newest N scheduled backups (1 to the VM's backup limit).
 * The portal takes them as a manual take is taken (limits apply); retention deletes only scheduled backups, never a
 * manual one. Read with vm.view, set and removed with vm.operate (as a take).
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, route, timestampSchema } from './common.ts';
import { BACKUPS } from './constants.ts';

export const BACKUP_SCHEDULE_FREQUENCIES = ['daily', 'weekly'] as const;
export type BackupScheduleFrequency = (typeof BACKUP_SCHEDULE_FREQUENCIES)[number];
/** The days of the week in the order of `Date.getUTCDay()` (0: Sunday); the database keeps the index. */
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** What the portal says about schedules: the API's messages and the VM page's Schedule section. */
export const BACKUP_SCHEDULE_TEXT = {
  title: 'Backup schedule',
  none: 'No backups are scheduled.',
  notFound: 'This VM has no backup schedule',
  frequencyRule: 'Frequency must be daily or weekly',
  weekdayRule: 'Weekday must be one of sunday, monday, tuesday, wednesday, thursday, friday, saturday',
  weekdayNeeded: 'A weekly schedule needs a weekday',
  weekdayDaily: 'A daily schedule takes no weekday',
  hourRule: 'Hour must be a whole number from 0 to 23 (UTC)',
  keepRule: `Keep must be a whole number from 1 to ${BACKUPS.limitMax}`,
  keepOverLimit: (limit: number) =>
    limit === 0
      ? "Backups are not offered for this VM's size."
      : `This VM can keep at most ${limit} backups: keep 1 to ${limit}.`,
  saved: 'Backup schedule saved',
  removed: 'Backup schedule removed',
  frequencyLabel: 'Frequency',
  weekdayLabel: 'Day (UTC)',
  hourLabel: 'Hour (UTC)',
  keepLabel: 'Keep',
  utcNote: 'Times are in UTC.',
  nextRun: 'Next run',
  lastRun: 'Last run',
  lastError: 'Last run failed',
  retention: 'Only scheduled backups are deleted to keep the newest ones; backups you take yourself are kept.',
  save: 'Save schedule',
  remove: 'Remove schedule',
  removeTitle: 'Remove backup schedule',
  removeText: 'No more backups will be taken on this schedule. The backups it took are kept.',
  /** The name of a backup taken by the schedule: its slot, UTC. */
  backupName: (slot: Date) => `Scheduled ${slot.toISOString().slice(0, 16).replace('T', ' ')}`,
  /** The audit's cause of a scheduled take (activity: "VM backup taken", by System). */
  cause: 'backup schedule',
} as const;

/** "Daily at 03:00 UTC", "Weekly on Monday at 23:00 UTC". */
export function describeBackupSchedule(s: {
  frequency: BackupScheduleFrequency;
  weekday: Weekday | null;
  hour: number;
}) {
  const at = `${String(s.hour).padStart(2, '0')}:00 UTC`;
  if (s.frequency === 'daily' || !s.weekday) return `Daily at ${at}`;
  return `Weekly on ${s.weekday[0]!.toUpperCase()}${s.weekday.slice(1)} at ${at}`;
}

const T = BACKUP_SCHEDULE_TEXT;
export const backupScheduleInputSchema = z
  .object({
    frequency: z.enum(BACKUP_SCHEDULE_FREQUENCIES, { error: T.frequencyRule }),
    weekday: z.enum(WEEKDAYS, { error: T.weekdayRule }).nullish(),
    hour: z.number({ error: T.hourRule }).int(T.hourRule).min(0, T.hourRule).max(23, T.hourRule),
    keep: z.number({ error: T.keepRule }).int(T.keepRule).min(1, T.keepRule).max(BACKUPS.limitMax, T.keepRule),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.frequency === 'weekly' && !v.weekday)
      ctx.addIssue({ code: 'custom', path: ['weekday'], message: T.weekdayNeeded });
    if (v.frequency === 'daily' && v.weekday)
      ctx.addIssue({ code: 'custom', path: ['weekday'], message: T.weekdayDaily });
  });
export type BackupScheduleInput = z.infer<typeof backupScheduleInputSchema>;

export const backupScheduleSchema = z.object({
  frequency: z.enum(BACKUP_SCHEDULE_FREQUENCIES),
  /** Weekly: the day (UTC); daily: null. */
  weekday: z.enum(WEEKDAYS).nullable(),
  /** The hour of the day, UTC (the take starts at its full hour, within the scheduler's interval). */
  hour: z.number().int(),
  /** How many scheduled backups are kept (the oldest scheduled ones beyond it are deleted). */
  keep: z.number().int(),
  nextRunAt: timestampSchema,
  lastRunAt: timestampSchema.nullable(),
  /** Why the last scheduled take failed; null: it did not (or none ran yet). */
  lastError: z.string().nullable(),
});
export type BackupSchedule = z.infer<typeof backupScheduleSchema>;

const base = { tag: 'Virtual Machines', access: 'user' } as const;
const path = '/virtualMachines/backupSchedule/:id';

export const backupScheduleRoutes = {
  getBackupSchedule: route({
    ...base,
    method: 'GET',
    path,
    summary: "A VM's backup schedule (null: none) and how many backups the VM may keep",
    params: idParamsSchema,
    data: z.object({ schedule: backupScheduleSchema.nullable(), limit: z.number().int() }),
  }),
  setBackupSchedule: route({
    ...base,
    method: 'PUT',
    path,
    summary: "Set a VM's backup schedule: daily or weekly at an hour (UTC), keeping the newest N scheduled backups",
    params: idParamsSchema,
    body: backupScheduleInputSchema,
    data: backupScheduleSchema,
  }),
  removeBackupSchedule: route({
    ...base,
    method: 'DELETE',
    path,
    summary: "Remove a VM's backup schedule (the backups it took are kept)",
    params: idParamsSchema,
    data: z.null(),
  }),
} as const;
