/**
 * /auth/oidc/callback — where the company's identity provider sends the browser back (issue 26 item 3;
 * docs/single-sign-on.md). Its answer (the query string) goes to the server once, which checks it against the
 * sign-in's cookie; signed in, the user goes on as after the emailed code (SPEC point 4), otherwise the reason shows
 * with the way back to the login page.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { routes } from '@portal/contract/routes';
import { SSO_TEXT } from '@portal/contract/single-sign-on-text';
import { useAuth } from '../../../lib/auth-context.tsx';
import { forgetAuthCheck } from '../../../lib/auth-check.ts';
import { clearStoredAuth, writeStoredAuth } from '../../../lib/auth-storage.ts';
import { Button } from '../../../components/ui/Button.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { pathAfterSignIn } from '../after-sign-in.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

export function SsoCallbackPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { setUser, clear } = useAuth();
  const finish = useRouteMutation(routes.singleSignOn.callback, { suppress401: true });
  const { mutate } = finish;
  // The sign-in's cookie is good for one try: the answer is handed in once, even when effects run twice.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    mutate(
      { body: { query: window.location.search } },
      {
        onSuccess: ({ data: { user } }) => {
          const plain = { ...user, createdAt: user.createdAt.toISOString() };
          setUser(plain, true);
          writeStoredAuth({ needsReset: user.forcePasswordReset, resetKey: user.resetKey });
          forgetAuthCheck(queryClient);
          navigate(pathAfterSignIn(user), { replace: true });
        },
        onError: () => {
          clearStoredAuth();
          clear();
        },
      },
    );
  }, [mutate, setUser, clear, queryClient, navigate]);

  return (
    <AuthCard title={finish.isError ? SSO_TEXT.pageTitle : SSO_TEXT.callbackTitle}>
      {finish.isError ? (
        <div className="space-y-4">
          <FormError message={errorText(finish.error)} />
          <Button className="w-full" onClick={() => navigate('/login', { replace: true })}>
            {SSO_TEXT.backToLogin}
          </Button>
        </div>
      ) : (
        <Spinner label={SSO_TEXT.callbackWorking} />
      )}
    </AuthCard>
  );
}
