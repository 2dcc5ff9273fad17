/** The router's fallback for routing failures and render errors. */
import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { TEXT } from '@portal/contract/messages';
import { reportError } from '../lib/report-error.ts';

export function ErrorPage() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : null;
  useEffect(() => {
    if (!isRouteErrorResponse(error)) reportError(error);
  }, [error]);
  return (
    <div className="flex min-h-full flex-col items-center justify-center gap-3 p-8 text-center">
      <h1 className="text-2xl font-semibold text-slate-900">{TEXT.unexpectedError}</h1>
      {detail && <p className="text-sm text-slate-500">{detail}</p>}
      <a href="./" className="text-sm font-medium text-brand-600 hover:underline">
        Go to the dashboard
      </a>
    </div>
  );
}
