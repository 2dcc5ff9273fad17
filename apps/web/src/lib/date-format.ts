/**
 * What every screen needs of dates before any is shown (issue 25: /login's weight): timestamps revived from the
 * API's ISO strings, and the user's chosen date format (state, storage, subscription). The formatter and the day
 * parser are dates.ts (THE date formatter), which re-exports all of this; lib/api.ts and the auth context import
 * this module alone, so the sign-in screen does not carry the formatter.
 */
import { useSyncExternalStore } from 'react';
import type { DateFormat } from '@portal/contract/account';

/** Timestamps arrive as ISO strings; the portal works with Dates (SPEC point 3). */
const ISO_LIKE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;

/** Fields named `…At` become Dates in the types; every ISO-like string is converted at run time. */
export type Revived<T> = T extends Date
  ? T
  : T extends (infer U)[]
    ? Revived<U>[]
    : T extends object
      ? {
          [K in keyof T]: K extends `${string}At`
            ? T[K] extends string
              ? Date
              : T[K] extends string | null
                ? Date | null
                : Revived<T[K]>
            : Revived<T[K]>;
        }
      : T;

export function reviveDates<T>(value: T): Revived<T> {
  if (typeof value === 'string') return (ISO_LIKE.test(value) ? new Date(value) : value) as Revived<T>;
  if (Array.isArray(value)) return value.map(reviveDates) as Revived<T>;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reviveDates(v)])) as Revived<T>;
  }
  return value as Revived<T>;
}

/** The user's date format (the account page's choice, docs/account.md), kept in local storage. */
export const DATE_FORMAT_STORAGE_KEY = 'dateFormat';
const FORMATS: readonly DateFormat[] = ['day-month', 'iso', 'us'];
const listeners = new Set<() => void>();

function storedFormat(): DateFormat {
  try {
    const v = localStorage.getItem(DATE_FORMAT_STORAGE_KEY);
    return FORMATS.includes(v as DateFormat) ? (v as DateFormat) : 'day-month';
  } catch {
    return 'day-month';
  }
}

let current: DateFormat | null = null;

export function currentDateFormat(): DateFormat {
  return (current ??= storedFormat());
}

/** Applies a format at once (screens that subscribe re-render; others pick it up on their next render). */
export function setDateFormat(format: DateFormat): void {
  if (format === currentDateFormat()) return;
  current = format;
  try {
    if (format === 'day-month') localStorage.removeItem(DATE_FORMAT_STORAGE_KEY);
    else localStorage.setItem(DATE_FORMAT_STORAGE_KEY, format);
  } catch {
    // Storage unavailable: the choice still holds for this page.
  }
  for (const l of listeners) l();
}

/** The user's date format; a component using it re-renders when it changes. */
export function useDateFormat(): DateFormat {
  return useSyncExternalStore((cb) => {
    listeners.add(cb);
    return () => listeners.delete(cb);
  }, currentDateFormat);
}
