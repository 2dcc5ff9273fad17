/**
 * /resetPassword — new and confirm password with the live checklist. The key and user id come from
 * the link's `token` and `id`, else the stored reset key and user (a forced reset after sign-in).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { ERRORS, TEXT, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { resetPasswordFormSchema } from '@portal/contract/validation';
import { useAuth } from '../../../lib/auth-context.tsx';
import { forgetAuthCheck } from '../../../lib/auth-check.ts';
import { Button } from '../../../components/ui/Button.tsx';
import { PasswordChecklist } from '../../../components/ui/PasswordChecklist.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { readStoredAuth, writeStoredAuth } from '../../../lib/auth-storage.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

type ResetForm = z.input<typeof resetPasswordFormSchema>;

function useResetTarget(): { resetKey: string | null; userId: number | null } {
  const [params] = useSearchParams();
  const passed = useLocation().state as { user?: { id: number; resetKey: string | null } } | null;
  const stored = readStoredAuth();
  const resetKey = params.get('token') ?? stored?.resetKey ?? passed?.user?.resetKey ?? null;
  const rawId = params.get('id') ?? stored?.user?.id ?? passed?.user?.id ?? null;
  const userId = rawId === null ? null : Number(rawId);
  return { resetKey, userId: Number.isInteger(userId) ? userId : null };
}

export function ResetPasswordPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { user, setUser } = useAuth();
  const { resetKey, userId } = useResetTarget();
  const reset = useRouteMutation(routes.password.resetPasswordFromEmail, { suppress401: true });
  const form = useForm<ResetForm>({
    resolver: zodResolver(resetPasswordFormSchema),
    defaultValues: { password: '', confirmPassword: '' },
  });
  const [password, confirmPassword] = useWatch({ control: form.control, name: ['password', 'confirmPassword'] });

  const onSubmit = form.handleSubmit((values) => {
    if (!resetKey || userId === null) {
      form.setError('root.link', { message: VALIDATION.missingResetToken });
      return;
    }
    reset.mutate(
      { params: { token: userId }, body: { resetKey, password: values.password } },
      {
        onSuccess: () => {
          writeStoredAuth({ needsReset: false, resetKey: null });
          if (user) setUser({ ...user, forcePasswordReset: false, resetKey: null }, true);
          forgetAuthCheck(queryClient);
        },
      },
    );
  });

  if (reset.isSuccess) {
    return (
      <AuthCard title={TEXT.passwordReset}>
        <Button className="w-full" onClick={() => navigate('/', { replace: true })}>
          Go to Dashboard
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Reset Password" subtitle="Choose a new password for your account.">
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          {(!resetKey || userId === null) && <FormError message={VALIDATION.missingResetToken} />}
          <TextField<ResetForm>
            name="password"
            label="New Password"
            type="password"
            autoComplete="new-password"
            required
          />
          <TextField<ResetForm>
            name="confirmPassword"
            label="Confirm Password"
            type="password"
            autoComplete="new-password"
            required
          />
          <PasswordChecklist password={password ?? ''} confirm={confirmPassword ?? ''} />
          <FormError
            message={form.formState.errors.root?.link?.message ?? errorText(reset.error, ERRORS.resetPassword)}
          />
          <Button type="submit" className="w-full" disabled={form.formState.isSubmitting || reset.isPending}>
            Reset Password
          </Button>
          <Link
            to="/login"
            className="block text-center text-sm font-medium text-brand-700 dark:text-brand-300 hover:underline"
          >
            Back to Login
          </Link>
        </form>
      </FormProvider>
    </AuthCard>
  );
}
