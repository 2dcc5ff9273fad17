/**
 * /mfa — "Please check your email", the one-time code, Authenticate, Return to Login. A user with an authenticator
 * app is asked for its code (or a recovery code) instead, with "Email me a code instead" (docs/two-factor.md).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import type { z } from 'zod';
import { API_MESSAGES, ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { TWO_FACTOR_TEXT } from '@portal/contract/two-factor';
import { mfaFormSchema } from '@portal/contract/validation';
import { useAuth } from '../../../lib/auth-context.tsx';
import { forgetAuthCheck } from '../../../lib/auth-check.ts';
import { Button } from '../../../components/ui/Button.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { ApiError, callApi, errorMessage } from '../../../lib/api.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { clearStoredAuth, writeStoredAuth } from '../../../lib/auth-storage.ts';
import { pathAfterSignIn } from '../after-sign-in.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

type MfaForm = z.input<typeof mfaFormSchema>;
type FromLogin = {
  email?: string;
  resellerEmail?: string | null;
  secondFactor?: 'email' | 'authenticator' | undefined;
  /** false: the company requires the app, so no "Email me a code instead" (docs/two-factor.md). */
  emailFallback?: false | undefined;
} | null;

/** The code can no longer be tried: retries used up, or the pending session is gone. */
const isExhausted = (err: unknown) =>
  !!err && (errorMessage(err) === API_MESSAGES.retriesExhausted || (err instanceof ApiError && err.status === 401));

/** What a failed code says: the server's own text once exhausted, the spec's text for a wrong code. */
function mfaErrorText(err: unknown): string | null {
  if (!err) return null;
  const message = errorMessage(err);
  if (isExhausted(err)) return message;
  return message === API_MESSAGES.invalidMfaCode ? TEXT.invalidMfaCode : withDetail(ERRORS.authenticating, message);
}

export function MfaPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { user, setUser, clear } = useAuth();
  const passed = useLocation().state as FromLogin;
  const verify = useRouteMutation(routes.auth.mfa, { suppress401: true });
  const exhausted = isExhausted(verify.error);
  const error = mfaErrorText(verify.error);
  const form = useForm<MfaForm>({ resolver: zodResolver(mfaFormSchema), defaultValues: { code: '' } });
  // Which code is due: the app's (until "Email me a code instead") or the emailed one.
  const [secondFactor, setSecondFactor] = useState(passed?.secondFactor ?? 'email');
  const emailInstead = useRouteMutation(routes.twoFactor.emailCode, { suppress401: true });
  const byApp = secondFactor === 'authenticator';
  const [emailFallback, setEmailFallback] = useState(passed?.emailFallback !== false);

  // Already signed in: go on as after a code; no session at all: back to login.
  useEffect(() => {
    let active = true;
    callApi(routes.auth.check, { suppress401: true })
      .then((res) => {
        if (active && res.authed) navigate(pathAfterSignIn(res.user), { replace: true });
        else if (active && !res.authed && res.user.secondFactor === 'authenticator' && !passed?.secondFactor) {
          setSecondFactor('authenticator');
          setEmailFallback(res.user.emailFallback !== false);
        }
      })
      .catch((err: unknown) => {
        if (active && err instanceof ApiError && err.status === 401 && !exhausted)
          navigate('/login', { replace: true });
      });
    return () => {
      active = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [navigate]);

  const email = passed?.email ?? user?.email;
  const resellerEmail = passed?.resellerEmail ?? user?.resellerEmail;

  const onSubmit = form.handleSubmit(({ code }) =>
    verify.mutate(
      { body: { code } },
      {
        onSuccess: ({ data: { user: signedIn } }) => {
          const plain = { ...signedIn, createdAt: signedIn.createdAt.toISOString() };
          setUser(plain, true);
          writeStoredAuth({ needsReset: signedIn.forcePasswordReset, resetKey: signedIn.resetKey });
          forgetAuthCheck(queryClient);
          navigate(pathAfterSignIn(signedIn), { replace: true });
        },
        onError: (err) => {
          if (!isExhausted(err)) return;
          clearStoredAuth();
          clear();
        },
      },
    ),
  );

  return (
    <AuthCard
      title={byApp ? TWO_FACTOR_TEXT.signInHeading : TEXT.mfaHeading}
      subtitle={
        byApp ? (
          TWO_FACTOR_TEXT.signInBody
        ) : resellerEmail ? (
          <>
            We sent a verification code from <strong>{resellerEmail}</strong>
            {email ? (
              <>
                {' '}
                to <strong>{email}</strong>
              </>
            ) : null}
            .
          </>
        ) : email ? (
          <>
            We sent a verification code to <strong>{email}</strong>.
          </>
        ) : (
          'We sent a verification code to your email address.'
        )
      }
    >
      {exhausted ? (
        <div className="space-y-4">
          <FormError message={error} />
          <p className="text-sm text-slate-600 dark:text-slate-300">{TEXT.retriesExhaustedHelp}</p>
          <Link
            to="/login"
            className="block text-center text-sm font-medium text-brand-600 dark:text-brand-300 hover:underline"
          >
            Return to Login
          </Link>
        </div>
      ) : (
        <FormProvider {...form}>
          <form onSubmit={onSubmit} className="space-y-4" noValidate>
            <TextField<MfaForm>
              name="code"
              label={byApp ? 'Authenticator code' : 'Verification code'}
              inputMode={byApp ? 'text' : 'numeric'}
              autoComplete="one-time-code"
              placeholder="6-digit code"
              required
              autoFocus
            />
            <FormError message={error ?? mfaErrorText(emailInstead.error)} />
            <Button type="submit" className="w-full" disabled={form.formState.isSubmitting || verify.isPending}>
              Authenticate
            </Button>
            {byApp && emailFallback && (
              <button
                type="button"
                className="block w-full text-center text-sm font-medium text-brand-600 dark:text-brand-300 hover:underline disabled:opacity-60"
                disabled={emailInstead.isPending}
                onClick={() =>
                  emailInstead.mutate(undefined, {
                    onSuccess: () => {
                      verify.reset();
                      form.reset();
                      setSecondFactor('email');
                    },
                  })
                }
              >
                {TWO_FACTOR_TEXT.emailInstead}
              </button>
            )}
            <Link
              to="/login"
              className="block text-center text-sm font-medium text-brand-600 dark:text-brand-300 hover:underline"
            >
              Return to Login
            </Link>
          </form>
        </FormProvider>
      )}
    </AuthCard>
  );
}
