/** /login — Welcome, email, password, Remember me, Forgot Password, Login. */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod';
import { ERRORS } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import type { loginFormSchema } from '@portal/contract/validation';
import { useAuth } from '../../../lib/auth-context.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { ApiError, callApi } from '../../../lib/api.ts';
import { lazyResolver } from '../../../lib/lazy-resolver.ts';
import { clearStoredAuth, readStoredAuth, writeStoredAuth } from '../../../lib/auth-storage.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';
import { SsoButton } from '../components/SsoButton.tsx';

type LoginForm = z.input<typeof loginFormSchema>;

// zod and the schema load on the form's first focus, not with the page: the screen paints without them.
const validation = lazyResolver(() => import('../validation/login-resolver.ts').then((m) => m.loginResolver));

export function LoginPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { clear } = useAuth();
  const loginMutation = useRouteMutation(routes.auth.login, { suppress401: true });
  const form = useForm<LoginForm>({
    resolver: validation.resolver,
    defaultValues: { email: '', password: '', rememberMe: false },
  });

  // An existing session skips the form and goes to the MFA screen (SPEC point 2), which asks for the code
  // or, when the session is already signed in, sends the user onward (point 4).
  // Only a browser that signed in (the stored auth record) can have one: asking on every visit answered a 401
  // that the browser logs as an error in the console each time (issue 25).
  useEffect(() => {
    if (!readStoredAuth()) return;
    let active = true;
    callApi(routes.auth.check, { suppress401: true })
      .then(() => {
        if (active) navigate('/mfa', { replace: true });
      })
      .catch((err: unknown) => {
        // The session is gone: forget the record, so the next visit does not ask again.
        if (err instanceof ApiError && err.status === 401) clearStoredAuth();
      });
    return () => {
      active = false;
    };
  }, [navigate]);

  const onSubmit = form.handleSubmit((values) => {
    const rememberMe = values.rememberMe ?? false;
    loginMutation.mutate(
      { body: { email: values.email, password: values.password, rememberMe } },
      {
        // Before the code the server tells only where it was sent; the profile comes with the accepted code.
        onSuccess: ({ data: { user } }) => {
          clear();
          writeStoredAuth({ rememberMe });
          queryClient.removeQueries();
          navigate('/mfa', {
            state: {
              email: user.email,
              resellerEmail: user.resellerEmail,
              secondFactor: user.secondFactor,
              factors: user.factors,
              emailFallback: user.emailFallback,
            },
          });
        },
        // A failed sign-in forgets the stored auth (SPEC point 4); the message shows from loginMutation.error.
        onError: () => {
          clearStoredAuth();
          clear();
        },
      },
    );
  });

  return (
    <AuthCard title="Welcome" subtitle="Sign in to manage your virtual machines and teams.">
      <FormProvider {...form}>
        <form
          onSubmit={onSubmit}
          onFocus={() => void validation.preload().catch(() => {})}
          className="space-y-4"
          noValidate
        >
          <TextField<LoginForm>
            name="email"
            label="Email"
            type="email"
            autoComplete="username"
            required
            placeholder="you@company.com"
          />
          <TextField<LoginForm>
            name="password"
            label="Password"
            type="password"
            autoComplete="current-password"
            required
          />
          <div className="flex items-center justify-between">
            <label className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
              <input
                type="checkbox"
                className="h-4 w-4 rounded border-slate-300 dark:border-slate-600 text-brand-600 dark:text-brand-300"
                {...form.register('rememberMe')}
              />
              Remember me
            </label>
            <Link
              to="/forgotPassword"
              className="text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
            >
              Forgot Password
            </Link>
          </div>
          <FormError message={errorText(loginMutation.error, ERRORS.login)} />
          <Button type="submit" className="w-full" disabled={form.formState.isSubmitting || loginMutation.isPending}>
            Login
          </Button>
          {/* Issue 26 item 3: the company's identity provider, found by the email's domain (docs/single-sign-on.md). */}
          <SsoButton beforeValidate={validation.preload} />
        </form>
      </FormProvider>
    </AuthCard>
  );
}
