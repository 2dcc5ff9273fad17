/**
 * An unknown address. Signed in (a user is known), it shows inside the shell with the navigation and a way
 * back; signed out, the spec's fallback page (SPEC point 2: 'Unexpected Application Error!').
 */
import { Link } from 'react-router';
import { TEXT } from '@portal/contract/messages';
import { PageLayout } from '../components/ui/PageLayout.tsx';
import { useAuth } from '../lib/auth-context.tsx';
import { ErrorPage } from './ErrorPage.tsx';
import { Shell } from './Shell.tsx';

export function NotFoundPage() {
  const { user } = useAuth();
  if (!user) return <ErrorPage notFound />;
  return (
    <Shell>
      <PageLayout title={TEXT.pageNotFound} secondaryTitle={TEXT.unexpectedError}>
        <div
          role="alert"
          className="mx-auto mt-8 max-w-lg rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 text-center shadow-sm"
        >
          <p className="text-sm text-slate-700 dark:text-slate-300">{TEXT.pageNotFoundBody}</p>
          <Link
            to="/"
            className="mt-4 inline-block text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
          >
            {TEXT.backToDashboard}
          </Link>
        </div>
      </PageLayout>
    </Shell>
  );
}
