/**
 * THE date formatter of the portal (issue 25 item 8): every date shown goes through here, written the way the
 * signed-in user chose on the account page (docs/account.md). The default is the spec's: day, short month, year
 * ("26 Nov 2026"); ISO ("2026-11-26") and US ("Nov 26, 2026") are the others. Times are 24-hour except in US.
 */
import type { DateFormat } from '@portal/contract/account';
import { currentDateFormat } from './date-format.ts';

// Timestamps' revival and the user's format live in date-format.ts (in the first load); the formatting is here.
export {
  DATE_FORMAT_STORAGE_KEY,
  currentDateFormat,
  reviveDates,
  setDateFormat,
  useDateFormat,
  type Revived,
} from './date-format.ts';

type DateInput = Date | string | number | null | undefined;
const toDate = (date: Date | string | number) => (date instanceof Date ? date : new Date(date));
const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

interface Parts {
  y: number;
  m: number;
  d: number;
  h: number;
  min: number;
  s: number;
}
function partsOf(d: Date, utc: boolean): Parts {
  return utc
    ? {
        y: d.getUTCFullYear(),
        m: d.getUTCMonth(),
        d: d.getUTCDate(),
        h: d.getUTCHours(),
        min: d.getUTCMinutes(),
        s: d.getUTCSeconds(),
      }
    : { y: d.getFullYear(), m: d.getMonth(), d: d.getDate(), h: d.getHours(), min: d.getMinutes(), s: d.getSeconds() };
}

function datePart(p: Parts, format: DateFormat): string {
  if (format === 'iso') return `${p.y}-${pad(p.m + 1)}-${pad(p.d)}`;
  if (format === 'us') return `${MONTHS[p.m]} ${p.d}, ${p.y}`;
  return `${p.d} ${MONTHS[p.m]} ${p.y}`;
}

function timePart(p: Parts, format: DateFormat, seconds: boolean): string {
  const sec = seconds ? `:${pad(p.s)}` : '';
  if (format === 'us') return `${p.h % 12 || 12}:${pad(p.min)}${sec} ${p.h < 12 ? 'AM' : 'PM'}`;
  return `${pad(p.h)}:${pad(p.min)}${sec}`;
}

export interface DateOptions {
  /** Written in UTC (and marked so) rather than the browser's time zone. */
  utc?: boolean;
  /** The format to use instead of the user's (the account page's examples). */
  format?: DateFormat;
}

/** A day: "26 Nov 2026", "2026-11-26" or "Nov 26, 2026" (SPEC: dates display as day, short month, year). */
export function formatDate(date: DateInput, opts: DateOptions = {}): string {
  if (date === null || date === undefined || date === '') return '—';
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return '—';
  return datePart(partsOf(d, opts.utc ?? false), opts.format ?? currentDateFormat());
}

/** A moment: "26 Nov 2026 14:05", "2026-11-26 14:05" or "Nov 26, 2026 2:05 PM". */
export function formatDateTime(date: DateInput, opts: DateOptions & { seconds?: boolean } = {}): string {
  if (date === null || date === undefined || date === '') return '—';
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return '—';
  const format = opts.format ?? currentDateFormat();
  const p = partsOf(d, opts.utc ?? false);
  return `${datePart(p, format)} ${timePart(p, format, opts.seconds ?? false)}${opts.utc ? ' UTC' : ''}`;
}

/** A time of day alone: "14:05" (or "2:05 PM" in the US format). */
export function formatTime(date: DateInput, opts: DateOptions = {}): string {
  if (date === null || date === undefined || date === '') return '—';
  const d = toDate(date);
  if (Number.isNaN(d.getTime())) return '—';
  return timePart(partsOf(d, opts.utc ?? false), opts.format ?? currentDateFormat(), false);
}

/** A calendar month ("2026-11"): "November 2026", or "2026-11" in the ISO format. */
export function formatMonth(month: string, opts: DateOptions = {}): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  if ((opts.format ?? currentDateFormat()) === 'iso') return `${y}-${pad(m)}`;
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** A calendar day ("2026-11-26", as the address and the API carry it) written in the user's format, with no time zone. */
export function formatDay(day: string, opts: Pick<DateOptions, 'format'> = {}): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  return datePart(
    { y: Number(m[1]), m: Number(m[2]) - 1, d: Number(m[3]), h: 0, min: 0, s: 0 },
    opts.format ?? currentDateFormat(),
  );
}

/** The example a day field shows as its placeholder and in its message: 26 Nov 2026 in the given format. */
export function dayExample(format: DateFormat = currentDateFormat()): string {
  return formatDay('2026-11-26', { format });
}

/** What a day field says when its text is not a day in the user's format. */
export const dayFieldMessage = (format: DateFormat = currentDateFormat()) => `Enter a date like ${dayExample(format)}`;

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "Nov", "nov.", "November" → 0-based month; anything else → -1. */
function monthOf(name: string): number {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n.length < 3) return -1;
  return MONTH_NAMES.findIndex(
    (full) => full === n || (n.length === 3 && full.startsWith(n)) || (n === 'sept' && full === 'september'),
  );
}

function dayOf(y: number, m: number, d: number): string | null {
  if (m < 0 || m > 11 || d < 1 || y < 1000) return null;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  if (d > last) return null;
  return `${y}-${pad(m + 1)}-${pad(d)}`;
}

export type ParsedDay = { ok: true; day: string } | { ok: false; message: string };

/**
 * Reads a day typed in the user's format (the inverse of formatDay): "26 Nov 2026" or "26/11/2026" (day-month),
 * "Nov 26, 2026" or "11/26/2026" (US), "2026-11-26" (ISO, understood in every format: it cannot be misread).
 * Month names may be short or long, in any case. Answers the ISO day, or the field's message.
 */
export function parseDay(text: string, format: DateFormat = currentDateFormat()): ParsedDay {
  const t = text.trim().replace(/\s+/g, ' ');
  let day: string | null = null;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(t))) {
    day = dayOf(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  } else if (format === 'us') {
    if ((m = /^([A-Za-z]+\.?) (\d{1,2}),? (\d{4})$/.exec(t))) day = dayOf(Number(m[3]), monthOf(m[1]!), Number(m[2]));
    else if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t))) day = dayOf(Number(m[3]), Number(m[1]) - 1, Number(m[2]));
  } else if (format === 'day-month') {
    if ((m = /^(\d{1,2})[ -]([A-Za-z]+\.?),?[ -](\d{4})$/.exec(t)))
      day = dayOf(Number(m[3]), monthOf(m[2]!), Number(m[1]));
    else if ((m = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(t)))
      day = dayOf(Number(m[3]), Number(m[2]) - 1, Number(m[1]));
  }
  return day ? { ok: true, day } : { ok: false, message: dayFieldMessage(format) };
}
