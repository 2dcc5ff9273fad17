/** A failed request's text under a form, in a dialog or a table: "{prefix}: {server message}" (SPEC point 8). */
import { withDetail } from '@portal/contract/messages';
import { errorMessage } from '../../lib/api.ts';

export function errorText(error: unknown, prefix?: string): string | null {
  if (!error) return null;
  return prefix ? withDetail(prefix, errorMessage(error)) : errorMessage(error);
}

export function ErrorText({
  error,
  prefix,
  className = 'text-sm text-red-600 dark:text-red-400',
}: {
  error: unknown;
  prefix?: string;
  className?: string;
}) {
  const text = errorText(error, prefix);
  if (!text) return null;
  return (
    <p role="alert" className={className}>
      {text}
    </p>
  );
}
