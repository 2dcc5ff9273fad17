/**
 * The activity log as a table with its filters (user, action, dates, and for staff the company): the same on
 * the customer portal's /activity and the reseller area's /reseller/activity.
 */
import History from 'lucide-react/icons/history';
import { useId, useState, type ReactNode } from 'react';
import {
  ACTIVITY_TEXT,
  activityActionLabel,
  type ActivityEntry,
  type ActivityFilters,
} from '@portal/contract/activity';
import { Button } from '../../../components/ui/Button.tsx';
import { DataTable, type Column } from '../../../components/ui/DataTable.tsx';
import { dayExample, formatDateTime, formatDay, parseDay, useDateFormat, type Revived } from '../../../lib/dates.ts';
import type { useActivityUrl } from './use-activity-url.ts';

type Entry = Revived<ActivityEntry>;

/** Through the portal's one date formatter, in the user's format (docs/account.md). */
function formatWhen(date: Date): string {
  return formatDateTime(date);
}

const muted = 'block text-xs text-slate-500 dark:text-slate-400';

function who(e: Entry): ReactNode {
  if (!e.actor) return e.actorKind === 'operator' ? ACTIVITY_TEXT.operator : ACTIVITY_TEXT.system;
  return (
    <>
      <span className="font-medium text-slate-900 dark:text-slate-100">{e.actor.name}</span>
      {e.actor.email && e.actor.email !== e.actor.name && <span className={muted}>{e.actor.email}</span>}
      {e.token && <span className={muted}>via API token {e.token.name}</span>}
    </>
  );
}

function target(e: Entry): ReactNode {
  const ref = `${e.targetType}${e.targetId ? ` #${e.targetId}` : ''}`;
  return e.targetName ? (
    <>
      <span>{e.targetName}</span>
      <span className={muted}>{ref}</span>
    </>
  ) : (
    ref
  );
}

const fieldClass =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900';

function FilterSelect({
  label,
  value,
  allLabel,
  options,
  onChange,
}: {
  label: string;
  value: string;
  allLabel: string;
  options: { value: string; label: string }[];
  onChange: (value: string | undefined) => void;
}) {
  return (
    <label className="block min-w-[10rem] max-w-[18rem] text-sm font-medium text-slate-700 dark:text-slate-300">
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value || undefined)} className={fieldClass}>
        <option value="">{allLabel}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * A day typed in the user's date format (docs/account.md), not the browser's date input (which shows its own
 * "mm/dd/yyyy"): the placeholder shows the format, a day that reads is applied as it is typed, and text that does
 * not read is said under the field when it is left. The address keeps the ISO day.
 */
function DayFilter({
  label,
  value,
  onChange,
}: {
  label: string;
  value: string | undefined;
  onChange: (day: string | undefined) => void;
}) {
  const format = useDateFormat();
  const messageId = useId();
  // What is being typed: the filter's day before it (`from`) and the day it reads as (`to`, applied as typed; the
  // address may update a render later). When the filter changes from elsewhere (Clear filters, the address), the
  // field shows the new day instead. Its message shows once the field is left; a day that reads is then rewritten
  // in the user's format.
  const [draft, setDraft] = useState<{
    text: string;
    from: string | undefined;
    to: string | undefined;
    error: string | null;
  } | null>(null);
  const typing = draft && (draft.to === value || draft.from === value) ? draft : null;
  const error = typing?.error ?? null;

  const settle = () => {
    if (!typing) return;
    const parsed = parseDay(typing.text, format);
    if (typing.text.trim() === '' || parsed.ok) setDraft(null);
    else setDraft({ ...typing, error: parsed.message });
  };
  return (
    <div className="w-[11rem]">
      <label className="block text-sm font-medium text-slate-700 dark:text-slate-300">
        {label}
        <input
          type="text"
          inputMode="text"
          autoComplete="off"
          spellCheck={false}
          placeholder={dayExample(format)}
          value={typing ? typing.text : value ? formatDay(value, { format }) : ''}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? messageId : undefined}
          onChange={(e) => {
            const text = e.target.value;
            const parsed = text.trim() === '' ? null : parseDay(text, format);
            const next = parsed === null ? undefined : parsed.ok ? parsed.day : value;
            setDraft({ text, from: value, to: next, error: null });
            if (next !== value) onChange(next);
          }}
          onBlur={settle}
          onKeyDown={(e) => {
            if (e.key === 'Enter') settle();
          }}
          className={
            error
              ? fieldClass
                  .replace('border-slate-300', 'border-red-600')
                  .replace('dark:border-slate-600', 'dark:border-red-400')
              : fieldClass
          }
        />
      </label>
      {error && (
        <p id={messageId} aria-live="polite" className="mt-1 text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}

export interface ActivityViewProps {
  url: ReturnType<typeof useActivityUrl>;
  message: string;
  withCompany: boolean;
  choices: ActivityFilters | undefined;
  list: {
    data: { data: Entry[]; totalPages: number } | undefined;
    isPending: boolean;
    error: unknown;
    refetch: () => Promise<unknown>;
  };
  /** The list's error text ("Error fetching activity: …"). */
  errorText: string | null;
}

export function ActivityView({ url, message, withCompany, choices, list, errorText }: ActivityViewProps) {
  const { filters } = url;
  // The chosen action stays offered even when the scope no longer has it (a shared link).
  const actions = [...new Set([...(choices?.actions ?? []), ...(filters.action ? [filters.action] : [])])];
  const columns: Column<Entry>[] = [
    {
      key: 'when',
      header: 'When',
      render: (e) => <span className="whitespace-nowrap">{formatWhen(e.createdAt)}</span>,
    },
    { key: 'who', header: 'Who', render: who },
    { key: 'action', header: 'Action', render: (e) => activityActionLabel(e.action) },
    { key: 'target', header: 'Target', render: target },
    ...(withCompany
      ? [{ key: 'company', header: 'Company', render: (e: Entry) => e.company?.name ?? '—', hideOnSmall: true }]
      : []),
  ];

  return (
    <div className="space-y-4">
      <form
        role="search"
        aria-label="Filter activity"
        onSubmit={(e) => e.preventDefault()}
        className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm dark:border-slate-700 dark:bg-slate-900"
      >
        {withCompany && (
          <FilterSelect
            label="Company"
            value={String(filters.companyId ?? '')}
            allLabel={ACTIVITY_TEXT.allCompanies}
            options={(choices?.companies ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
            onChange={(v) => url.setFilter('companyId', v)}
          />
        )}
        <FilterSelect
          label="User"
          value={String(filters.userId ?? '')}
          allLabel={ACTIVITY_TEXT.allUsers}
          options={(choices?.users ?? []).map((u) => ({
            value: String(u.id),
            label: u.name === u.email ? u.email : `${u.name} (${u.email})`,
          }))}
          onChange={(v) => url.setFilter('userId', v)}
        />
        <FilterSelect
          label="Action"
          value={filters.action ?? ''}
          allLabel={ACTIVITY_TEXT.allActions}
          options={actions.map((a) => ({ value: a, label: activityActionLabel(a) }))}
          onChange={(v) => url.setFilter('action', v)}
        />
        <div className="flex flex-wrap gap-3">
          <DayFilter label="From" value={filters.from} onChange={(v) => url.setFilter('from', v)} />
          <DayFilter label="To" value={filters.to} onChange={(v) => url.setFilter('to', v)} />
        </div>
        <Button variant="ghost" onClick={url.clear} disabled={!url.active}>
          {ACTIVITY_TEXT.clearFilters}
        </Button>
        {url.datesInvalid && (
          <p role="alert" className="w-full text-sm text-red-600 dark:text-red-400">
            {ACTIVITY_TEXT.datesOrder}
          </p>
        )}
      </form>
      <DataTable
        title={ACTIVITY_TEXT.activityTitle}
        message={message}
        icon={<History className="h-5 w-5" />}
        columns={columns}
        rows={url.datesInvalid || list.error ? [] : list.data?.data}
        rowKey={(e) => e.id}
        loading={list.isPending && !url.datesInvalid}
        error={url.datesInvalid ? null : errorText}
        noDataMessage={ACTIVITY_TEXT.noActivity}
        onRefresh={() => list.refetch()}
        page={url.page}
        totalPages={url.datesInvalid ? 0 : (list.data?.totalPages ?? 0)}
        onPageChange={url.setPage}
      />
    </div>
  );
}
