/**
 * A UTC month chosen from a list written by the portal's date formatter ("November 2026", or "2026-11" in the ISO
 * format), rather than the browser's month input, which writes months its own way (issue 25 item 8: dates in one
 * format everywhere). The value stays 'YYYY-MM', as the billing contract takes it.
 */
import type { SelectHTMLAttributes } from 'react';
import { formatMonth, useDateFormat } from '../../../lib/dates.ts';

/** The current UTC month and the `count - 1` before it, newest first. */
export function recentMonths(count = 25, now = new Date()): string[] {
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

export function MonthSelect({
  value,
  onChange,
  ...rest
}: { value: string; onChange: (month: string) => void } & Omit<
  SelectHTMLAttributes<HTMLSelectElement>,
  'value' | 'onChange'
>) {
  const format = useDateFormat();
  const months = recentMonths();
  if (!months.includes(value)) months.push(value);
  return (
    <select value={value} onChange={(e) => e.target.value && onChange(e.target.value)} {...rest}>
      {months.map((m) => (
        <option key={m} value={m}>
          {formatMonth(m, { format })}
        </option>
      ))}
    </select>
  );
}
