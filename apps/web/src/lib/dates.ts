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

/** Dates display as day, short month, year. */
export function formatDate(date: Date | string | null | undefined): string {
  if (!date) return '—';
  const d = typeof date === 'string' ? new Date(date) : date;
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}
