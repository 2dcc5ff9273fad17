/**
 * "Sign in with single sign-on" under the spec's Login button (issue 26 item 3; docs/single-sign-on.md): takes the
 * email typed above, asks the server which company's identity provider serves its domain and goes there. The
 * spec's form and its checks are unchanged; this adds to them.
 */
import { useState } from 'react';
import { useFormContext } from 'react-hook-form';
import { routes } from '@portal/contract/routes';
import { SSO_TEXT } from '@portal/contract/single-sign-on-text';
import { Button } from '../../../components/ui/Button.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { writeStoredAuth } from '../../../lib/auth-storage.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { FormError } from './AuthCard.tsx';

export function SsoButton({ beforeValidate }: { beforeValidate: () => Promise<unknown> }) {
  const form = useFormContext<{ email: string; rememberMe?: boolean }>();
  const start = useRouteMutation(routes.singleSignOn.start, { suppress401: true });
  const [leaving, setLeaving] = useState(false);

  async function onClick() {
    start.reset();
    const email = form.getValues('email').trim();
    if (!email) {
      form.setError('email', { message: SSO_TEXT.typeEmailFirst }, { shouldFocus: true });
      return;
    }
    await beforeValidate().catch(() => {});
    if (!(await form.trigger('email'))) return;
    const rememberMe = form.getValues('rememberMe') ?? false;
    start.mutate(
      { body: { email, rememberMe } },
      {
        onSuccess: ({ data }) => {
          setLeaving(true);
          writeStoredAuth({ rememberMe });
          window.location.assign(data.url);
        },
      },
    );
  }

  return (
    <div className="space-y-3">
      <div className="flex items-center gap-3 text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400">
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" aria-hidden />
        or
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-700" aria-hidden />
      </div>
      <FormError message={errorText(start.error)} />
      <Button
        type="button"
        variant="secondary"
        className="w-full"
        onClick={() => void onClick()}
        disabled={start.isPending || leaving}
      >
        {SSO_TEXT.signInWithSso}
      </Button>
    </div>
  );
}
