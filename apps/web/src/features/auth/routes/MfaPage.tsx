/**
 * /mfa — "Please check your email", the one-time code, Authenticate, Return to Login. A user with a strong factor
 * is offered the strongest first: a passkey ("Use my passkey"), else the authenticator app's code (or a recovery
 * code); they may switch to another they have, and to "Email me a code instead" where the company allows it
 * (docs/two-factor.md).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { FormProvider, useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import type { z } from 'zod';
import { API_MESSAGES, ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { TWO_FACTOR_TEXT } from '@portal/contract/two-factor';
import { PASSKEY_TEXT } from '@portal/contract/passkeys';
import type { AuthUser } from '@portal/contract/auth';
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
type Factor = 'email' | 'authenticator' | 'passkey';
type StrongFactor = Exclude<Factor, 'email'>;
type FromLogin = {
  email?: string;
  resellerEmail?: string | null;
  secondFactor?: Factor | undefined;
  /** The strong factors the user has, strongest first: the others are offered as a switch. */
  factors?: StrongFactor[] | undefined;
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
  const passkey = useRouteMutation(routes.passkeys.signIn, { suppress401: true });
  const [passkeyError, setPasskeyError] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const exhausted = isExhausted(verify.error) || isExhausted(passkey.error);
  const error = mfaErrorText(verify.error) ?? (passkey.error ? errorMessage(passkey.error) : null);
  const form = useForm<MfaForm>({ resolver: zodResolver(mfaFormSchema), defaultValues: { code: '' } });
  // Which code is due: the app's (until "Email me a code instead") or the emailed one.
  const [secondFactor, setSecondFactor] = useState<Factor>(passed?.secondFactor ?? 'email');
  const [factors, setFactors] = useState<StrongFactor[]>(passed?.factors ?? []);
  const emailInstead = useRouteMutation(routes.twoFactor.emailCode, { suppress401: true });
  const byApp = secondFactor === 'authenticator';
  const byPasskey = secondFactor === 'passkey';
  const [emailFallback, setEmailFallback] = useState(passed?.emailFallback !== false);

  // Already signed in: go on as after a code; no session at all: back to login.
  useEffect(() => {
    let active = true;
    callApi(routes.auth.check, { suppress401: true })
      .then((res) => {
        if (active && res.authed) navigate(pathAfterSignIn(res.user), { replace: true });
        else if (
          active &&
          !res.authed &&
          res.user.secondFactor &&
          res.user.secondFactor !== 'email' &&
          !passed?.secondFactor
        ) {
          setSecondFactor(res.user.secondFactor);
          setFactors(res.user.factors ?? []);
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

  function signedInAs(signedIn: Omit<AuthUser, 'createdAt'> & { createdAt: Date }) {
    const plain = { ...signedIn, createdAt: signedIn.createdAt.toISOString() };
    setUser(plain, true);
    writeStoredAuth({ needsReset: signedIn.forcePasswordReset, resetKey: signedIn.resetKey });
    forgetAuthCheck(queryClient);
    navigate(pathAfterSignIn(signedIn), { replace: true });
  }
  function onFailure(err: unknown) {
    if (!isExhausted(err)) return;
    clearStoredAuth();
    clear();
  }

  const onSubmit = form.handleSubmit(({ code }) =>
    verify.mutate(
      { body: { code } },
      { onSuccess: ({ data: { user: signedIn } }) => signedInAs(signedIn), onError: onFailure },
    ),
  );

  /** The passkey step: request options, the browser's prompt, its answer to the server. */
  async function signInWithPasskey() {
    setPasskeyError(null);
    passkey.reset();
    setPasskeyBusy(true);
    try {
      const options = await callApi(routes.passkeys.signInOptions, { body: {}, suppress401: true });
      let response;
      try {
        response = await startAuthentication({
          optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
        });
      } catch {
        setPasskeyError(PASSKEY_TEXT.signInCancelled);
        return;
      }
      passkey.mutate(
        { body: { response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } } },
        { onSuccess: ({ data: { user: signedIn } }) => signedInAs(signedIn), onError: onFailure },
      );
    } catch (err) {
      setPasskeyError(errorMessage(err));
      onFailure(err);
    } finally {
      setPasskeyBusy(false);
    }
  }

  function switchTo(next: Factor) {
    verify.reset();
    passkey.reset();
    emailInstead.reset();
    setPasskeyError(null);
    form.reset();
    setSecondFactor(next);
  }

  const linkClass =
    'block w-full text-center text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline disabled:opacity-60';
  /** The other factors the user has: passkey, app, and the emailed code where the company allows it. */
  const switches = (
    <>
      {!byPasskey && factors.includes('passkey') && (
        <button type="button" className={linkClass} onClick={() => switchTo('passkey')}>
          {PASSKEY_TEXT.usePasskey}
        </button>
      )}
      {!byApp && factors.includes('authenticator') && (
        <button type="button" className={linkClass} onClick={() => switchTo('authenticator')}>
          {PASSKEY_TEXT.useAuthenticator}
        </button>
      )}
      {(byApp || byPasskey) && emailFallback && (
        <button
          type="button"
          className={linkClass}
          disabled={emailInstead.isPending}
          onClick={() =>
            emailInstead.mutate(undefined, {
              onSuccess: () => switchTo('email'),
            })
          }
        >
          {TWO_FACTOR_TEXT.emailInstead}
        </button>
      )}
    </>
  );

  return (
    <AuthCard
      title={byPasskey ? PASSKEY_TEXT.signInHeading : byApp ? TWO_FACTOR_TEXT.signInHeading : TEXT.mfaHeading}
      subtitle={
        byPasskey ? (
          PASSKEY_TEXT.signInBody
        ) : byApp ? (
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
            className="block text-center text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
          >
            Return to Login
          </Link>
        </div>
      ) : byPasskey ? (
        <div className="space-y-4">
          <FormError message={passkeyError ?? error ?? mfaErrorText(emailInstead.error)} />
          <Button
            type="button"
            className="w-full"
            autoFocus
            disabled={passkeyBusy || passkey.isPending}
            onClick={() => void signInWithPasskey()}
          >
            {PASSKEY_TEXT.signInButton}
          </Button>
          {switches}
          <Link
            to="/login"
            className="block text-center text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
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
            {switches}
            <Link
              to="/login"
              className="block text-center text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
            >
              Return to Login
            </Link>
          </form>
        </FormProvider>
      )}
    </AuthCard>
  );
}
