/** The router's fallback for routing failures and render errors (inside the shell when it fails below it). */
import { useEffect } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { TEXT } from '@portal/contract/messages';
import { reportError } from '../lib/report-error.ts';
import { Button } from '../components/ui/Button.tsx';
import { CHUNK_LOAD_TEXT, isChunkLoadError } from './chunk-load-error.ts';

export function ErrorPage({ notFound = false }: { notFound?: boolean }) {
  const error = useRouteError();
  const detail = notFound
    ? '404 Not Found'
    : isRouteErrorResponse(error)
      ? `${error.status} ${error.statusText}`
      : error instanceof Error
        ? error.message
        : null;
  const chunkFailed = isChunkLoadError(error);
  useEffect(() => {
    // A chunk that did not load is the network's doing (or a deploy's), not a bug to report.
    if (error && !isRouteErrorResponse(error) && !chunkFailed) reportError(error);
  }, [error, chunkFailed]);
  return (
    <main
      id="main"
      tabIndex={-1}
      className="flex min-h-full flex-col items-center justify-center gap-3 p-8 text-center"
    >
      {chunkFailed ? (
        <>
          <h1 className="text-2xl font-semibold text-slate-900 dark:text-slate-100">{CHUNK_LOAD_TEXT.title}</h1>
          <p className="max-w-md text-sm text-slate-600 dark:text-slate-300">{CHUNK_LOAD_TEXT.body}</p>
          <Button onClick={() => window.location.reload()}>{CHUNK_LOAD_TEXT.reload}</Button>
        </>
      ) : (
        <>
          <h1 className="text-2xl font-semibold text-slate-900 dark:text-slate-100">{TEXT.unexpectedError}</h1>
          {detail && <p className="text-sm text-slate-600 dark:text-slate-300">{detail}</p>}
          <a href={document.baseURI} className="text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline">
            Go to the dashboard
          </a>
        </>
      )}
    </main>
  );
}
