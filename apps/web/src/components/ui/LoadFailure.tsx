/**
 * What a screen shows in its layout when its data cannot be loaded: not found (deleted or never existed),
 * the server cannot be reached, or another error; always with a way back, never a page stuck on "Loading...".
 */
import { Link } from 'react-router';
import { TEXT } from '@portal/contract/messages';
import { ApiError } from '../../lib/api.ts';
import { Button } from './Button.tsx';
import { errorText } from './ErrorText.tsx';

export type FailureKind = 'notFound' | 'unreachable' | 'error';

export function failureKind(error: unknown): FailureKind {
  if (error instanceof ApiError && error.status === 404) return 'notFound';
  if (error instanceof ApiError && error.status === 0) return 'unreachable';
  return 'error';
}

/** A page title for a screen whose data failed to load. */
export function failureTitle(error: unknown): string {
  const kind = failureKind(error);
  return kind === 'notFound' ? 'Not found' : kind === 'unreachable' ? 'Server unreachable' : 'Something went wrong';
}

export interface LoadFailureProps {
  error: unknown;
  /** Shown for a 404, e.g. "This virtual machine does not exist or was deleted." */
  notFound: string;
  /** "Error fetching ..." prefix for other errors (SPEC point 8). */
  prefix?: string;
  back: { to: string; label: string };
  onRetry?: () => void;
}

export function LoadFailure({ error, notFound, prefix, back, onRetry }: LoadFailureProps) {
  const kind = failureKind(error);
  // A read that timed out says so (lib/network.ts); Try again asks once more.
  const timedOut = error instanceof ApiError && error.timedOut;
  const text =
    kind === 'notFound'
      ? notFound
      : timedOut
        ? error.message
        : kind === 'unreachable'
          ? TEXT.serverUnreachable
          : errorText(error, prefix);
  // SPEC point 8: a failed fetch says its helper text and the detail ("Error fetching team: Team not found").
  // A 404 keeps its plain sentence first and gives the spec's words under it (issue 25, defect 11).
  const helper = kind === 'notFound' && prefix ? errorText(error, prefix) : null;
  return (
    <div
      role="alert"
      className="mx-auto mt-8 max-w-lg rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 text-center shadow-sm"
      data-failure={kind}
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">{text}</p>
      {helper && (
        <p className="mt-1 text-sm text-slate-500 dark:text-slate-400" data-testid="load-failure-detail">
          {helper}
        </p>
      )}
      <div className="mt-4 flex flex-wrap items-center justify-center gap-3">
        <Link
          to={back.to}
          className="rounded-md text-sm font-medium text-brand-700 dark:text-brand-300 underline-offset-2 hover:underline"
        >
          {back.label}
        </Link>
        {onRetry && kind !== 'notFound' && (
          <Button variant="secondary" onClick={onRetry}>
            {TEXT.tryAgain}
          </Button>
        )}
      </div>
    </div>
  );
}
