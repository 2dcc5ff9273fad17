/** /login — Welcome, email, password, Remember me, Forgot Password, Login. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod';
import { ERRORS, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { loginFormSchema } from '@portal/contract/validation';
import { useAuth } from '../../../app/auth-context.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { callApi, errorMessage } from '../../../lib/api.ts';
import { clearStoredAuth, writeStoredAuth } from '../../../lib/auth-storage.ts';
import { useLogin } from '../api/login.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

type LoginForm = z.input<typeof loginFormSchema>;

export function LoginPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { clear } = useAuth();
  const loginMutation = useLogin();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<LoginForm>({ resolver: zodResolver(loginFormSchema), defaultValues: { email: '', password: '', rememberMe: false } });

  // An existing session skips the form and goes to the MFA screen (SPEC point 2), which asks for the code
  // or, when the session is already signed in, sends the user onward (point 4).
  useEffect(() => {
    let active = true;
    callApi(routes.auth.check, { suppress401: true })
      .then(() => {
        if (active) navigate('/mfa', { replace: true });
      })
      .catch(() => {});
    return () => {
      active = false;
    };
  }, [navigate]);

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    try {
      // Before the code the server tells only where it was sent; the profile comes with the accepted code.
      const { user } = await loginMutation.mutateAsync({ email: values.email, password: values.password, rememberMe: values.rememberMe ?? false });
      clear();
      writeStoredAuth({ rememberMe: values.rememberMe ?? false });
      queryClient.removeQueries();
      navigate('/mfa', { state: { email: user.email, resellerEmail: user.resellerEmail } });
    } catch (err) {
      clearStoredAuth();
      clear();
      setError(withDetail(ERRORS.login, errorMessage(err)));
    }
  });

  return (
    <AuthCard title="Welcome" subtitle="Sign in to manage your virtual machines and teams.">
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          <TextField<LoginForm> name="email" label="Email" type="email" autoComplete="username" required placeholder="you@company.com" />
          <TextField<LoginForm> name="password" label="Password" type="password" autoComplete="current-password" required />
          <div className="flex items-center justify-between">
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" className="h-4 w-4 rounded border-slate-300 text-brand-600" {...form.register('rememberMe')} />
              Remember me
            </label>
            <Link to="/forgotPassword" className="text-sm font-medium text-brand-600 hover:underline">
              Forgot Password
            </Link>
          </div>
          <FormError message={error} />
          <Button type="submit" className="w-full" disabled={form.formState.isSubmitting}>
            Login
          </Button>
        </form>
      </FormProvider>
    </AuthCard>
  );
}
