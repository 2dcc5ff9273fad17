/**
 * The VM page's backup schedule (issue 24 item 2; decision 0023), under the Backups card: the schedule (daily or
 * weekly at an hour, UTC), the next run, how many scheduled backups are kept, the last failure; a form to set it and
 * a confirmed Remove for those who may take backups (vm.operate); others see it read-only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import CalendarClock from 'lucide-react/icons/calendar-clock';
import { useMemo, useState, type ReactNode } from 'react';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import type { Permission } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import {
  BACKUP_SCHEDULE_FREQUENCIES,
  BACKUP_SCHEDULE_TEXT as T,
  describeBackupSchedule,
  WEEKDAYS,
  type BackupSchedule,
  type BackupScheduleFrequency,
  type Weekday,
} from '@portal/contract/backup-schedules';
import { BACKUP_ACTIONS } from '@portal/contract/vm-actions';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { SelectField } from '../../../components/ui/SelectField.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { formatDateTime } from '../../../lib/dates.ts';

const READS = [routes.backupSchedules.getBackupSchedule, routes.backups.listBackups];
const capital = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;
const FREQUENCY_OPTIONS = BACKUP_SCHEDULE_FREQUENCIES.map((f) => ({ value: f, label: capital(f) }));
const WEEKDAY_OPTIONS = WEEKDAYS.map((d) => ({ value: d, label: capital(d) }));
const HOUR_OPTIONS = Array.from({ length: 24 }, (_, h) => ({
  value: h,
  label: `${String(h).padStart(2, '0')}:00 UTC`,
}));

/** A schedule as the portal holds it (its times revived as Dates). */
type Schedule = Omit<BackupSchedule, 'nextRunAt' | 'lastRunAt'> & { nextRunAt: Date; lastRunAt: Date | null };

interface FormValues {
  frequency: BackupScheduleFrequency;
  weekday: Weekday;
  hour: number;
  keep: number;
}

/** The form's rule: keep 1 to the VM's limit (the server's words), the rest as the contract says. */
function formSchema(limit: number) {
  const keepRule = limit > 0 ? T.keepOverLimit(limit) : T.keepOverLimit(0);
  return z.object({
    frequency: z.enum(BACKUP_SCHEDULE_FREQUENCIES, { error: T.frequencyRule }),
    weekday: z.enum(WEEKDAYS, { error: T.weekdayRule }),
    hour: z.number({ error: T.hourRule }).int(T.hourRule).min(0, T.hourRule).max(23, T.hourRule),
    keep: z.number({ error: keepRule }).int(keepRule).min(1, keepRule).max(limit, keepRule),
  });
}

export function BackupScheduleCard({ vmId, permissions }: { vmId: number; permissions: readonly Permission[] }) {
  // Runs happen on the server's clock: look again now and then for the next run and the last outcome.
  const query = useRouteQuery(
    routes.backupSchedules.getBackupSchedule,
    { params: { id: vmId } },
    { refetchInterval: 60_000 },
  );
  const schedule = query.data?.schedule ?? null;
  const limit = query.data?.limit;
  const mayChange = permissions.includes(BACKUP_ACTIONS.backup.permission);

  return (
    <section
      aria-label={T.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="flex items-center gap-2 border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        <CalendarClock className="h-4 w-4 text-slate-500 dark:text-slate-400" aria-hidden />
        {T.title}
      </h2>
      <div className="space-y-4 p-4">
        <ErrorText error={query.error} />
        {query.data && <ScheduleSummary schedule={schedule} />}
        {query.data && limit === 0 && (
          <p className="text-sm text-slate-500 dark:text-slate-400">{T.keepOverLimit(0)}</p>
        )}
        {query.data && mayChange && limit !== undefined && limit > 0 && (
          <ScheduleForm
            key={schedule ? `${schedule.frequency}-${schedule.weekday}-${schedule.hour}-${schedule.keep}` : 'none'}
            vmId={vmId}
            schedule={schedule}
            limit={limit}
          />
        )}
      </div>
    </section>
  );
}

function ScheduleSummary({ schedule }: { schedule: Schedule | null }) {
  if (!schedule) return <p className="text-sm text-slate-500 dark:text-slate-400">{T.none}</p>;
  const rows: [string, ReactNode][] = [
    ['Schedule', describeBackupSchedule(schedule)],
    [T.keepLabel, `${schedule.keep} scheduled backup${schedule.keep === 1 ? '' : 's'}`],
    [
      T.nextRun,
      <time key="next" dateTime={schedule.nextRunAt.toISOString()}>
        {formatDateTime(schedule.nextRunAt, { utc: true })}
      </time>,
    ],
  ];
  if (schedule.lastRunAt)
    rows.push([
      T.lastRun,
      <time key="last" dateTime={schedule.lastRunAt.toISOString()}>
        {formatDateTime(schedule.lastRunAt, { utc: true })}
      </time>,
    ]);
  return (
    <div className="space-y-2">
      <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2" data-testid="backup-schedule">
        {rows.map(([label, value]) => (
          <div key={label} className="min-w-0">
            <dt className="text-xs text-slate-500 dark:text-slate-400">{label}</dt>
            <dd className="break-words text-slate-900 dark:text-slate-100" data-label={label}>
              {value}
            </dd>
          </div>
        ))}
      </dl>
      {schedule.lastError && (
        <p className="text-sm text-red-600 dark:text-red-400" data-testid="backup-schedule-error">
          <span className="font-medium">{T.lastError}:</span> {schedule.lastError}
        </p>
      )}
      <p className="text-xs text-slate-500 dark:text-slate-400">{T.retention}</p>
    </div>
  );
}

function ScheduleForm({ vmId, schedule, limit }: { vmId: number; schedule: Schedule | null; limit: number }) {
  const set = useRouteMutation(routes.backupSchedules.setBackupSchedule, { invalidates: READS });
  const remove = useRouteMutation(routes.backupSchedules.removeBackupSchedule, { invalidates: READS });
  const [confirming, setConfirming] = useState(false);
  const resolver = useMemo(() => zodResolver(formSchema(limit)), [limit]);
  const form = useForm<FormValues>({
    resolver,
    defaultValues: {
      frequency: schedule?.frequency ?? 'daily',
      weekday: schedule?.weekday ?? 'sunday',
      hour: schedule?.hour ?? 3,
      keep: Math.min(schedule?.keep ?? Math.min(7, limit), limit),
    },
  });
  const weekly = useWatch({ control: form.control, name: 'frequency' }) === 'weekly';

  const onSave = form.handleSubmit(({ frequency, weekday, hour, keep }) =>
    set
      .mutateAsync({
        params: { id: vmId },
        body: frequency === 'weekly' ? { frequency, weekday, hour, keep } : { frequency, hour, keep },
      })
      .then(
        () => toast.success(T.saved),
        () => undefined, // shown from set.error
      ),
  );

  return (
    <FormProvider {...form}>
      <form onSubmit={onSave} className="space-y-3" noValidate aria-label={T.title}>
        <p className="text-xs text-slate-500 dark:text-slate-400">{T.utcNote}</p>
        <div className="grid gap-3 sm:grid-cols-4">
          <SelectField<FormValues> name="frequency" label={T.frequencyLabel} options={FREQUENCY_OPTIONS} />
          {weekly ? (
            <SelectField<FormValues> name="weekday" label={T.weekdayLabel} options={WEEKDAY_OPTIONS} />
          ) : (
            <div className="hidden sm:block" aria-hidden />
          )}
          <SelectField<FormValues>
            name="hour"
            label={T.hourLabel}
            options={HOUR_OPTIONS}
            registerOptions={{ valueAsNumber: true }}
          />
          <TextField<FormValues>
            name="keep"
            label={T.keepLabel}
            type="text"
            inputMode="numeric"
            registerOptions={{ setValueAs: (v: string) => (v === '' ? Number.NaN : Number(v)) }}
          />
        </div>
        <ErrorText error={set.error} />
        <div className="flex flex-col gap-2 sm:flex-row">
          <Button type="submit" variant="secondary" disabled={set.isPending}>
            <CalendarClock className="h-4 w-4" aria-hidden /> {T.save}
          </Button>
          {schedule && (
            <Button type="button" variant="danger" onClick={() => setConfirming(true)}>
              {T.remove}
            </Button>
          )}
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title={T.removeTitle}
        confirmLabel={T.remove}
        variant="danger"
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          remove.mutate(
            { params: { id: vmId } },
            {
              onSuccess: () => {
                toast.success(T.removed);
                setConfirming(false);
              },
            },
          )
        }
        onCancel={() => {
          remove.reset();
          setConfirming(false);
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{T.removeText}</p>
      </ConfirmDialog>
    </FormProvider>
  );
}
