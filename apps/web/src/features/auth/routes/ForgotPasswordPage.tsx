/** /forgotPassword — email, Continue, Back to Login; then the "sent" texts. */
import { zodResolver } from '@hookform/resolvers/zod';
import { FormProvider, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { z } from 'zod';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { forgotPasswordFormSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

type ForgotForm = z.input<typeof forgotPasswordFormSchema>;

export function ForgotPasswordPage() {
  const forgot = useRouteMutation(routes.password.forgotPassword, { suppress401: true });
  const form = useForm<ForgotForm>({ resolver: zodResolver(forgotPasswordFormSchema), defaultValues: { email: '' } });

  const onSubmit = form.handleSubmit(({ email }) => forgot.mutate({ body: { email } }));

  if (forgot.isSuccess) {
    return (
      <AuthCard title={TEXT.forgotSent}>
        <div className="space-y-3 text-sm text-slate-600 dark:text-slate-300">
          <p>{TEXT.forgotSentBody}</p>
          <p>{TEXT.forgotContact}</p>
          <Link to="/login" className="block pt-2 font-medium text-brand-700 dark:text-brand-300 hover:underline">
            Back to Login
          </Link>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Forgot password" subtitle="Enter your email and we will send you a link to set a new password.">
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          <TextField<ForgotForm> name="email" label="Email" type="email" autoComplete="email" required />
          <FormError message={errorText(forgot.error, ERRORS.forgotPassword)} />
          <Button type="submit" className="w-full" disabled={form.formState.isSubmitting || forgot.isPending}>
            Continue
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
