/** /confirmNewUser?token=…&id=… — an invited user sets names and password. */
import { zodResolver } from '@hookform/resolvers/zod';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router';
import type { z } from 'zod';
import { ERRORS, TEXT, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { confirmEmailFormSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { PasswordChecklist } from '../../../components/ui/PasswordChecklist.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

type ConfirmForm = z.input<typeof confirmEmailFormSchema>;

export function ConfirmEmailPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token');
  const userId = Number(params.get('id'));
  const confirm = useRouteMutation(routes.password.confirmEmail, { suppress401: true });
  const form = useForm<ConfirmForm>({
    resolver: zodResolver(confirmEmailFormSchema),
    defaultValues: { firstName: '', lastName: '', password: '', confirmPassword: '' },
  });
  const [password, confirmPassword] = useWatch({ control: form.control, name: ['password', 'confirmPassword'] });
  const linkBroken = !token || !Number.isInteger(userId) || userId <= 0;

  const onSubmit = form.handleSubmit((values) => {
    if (linkBroken) {
      form.setError('root.link', { message: VALIDATION.missingResetToken });
      return;
    }
    confirm.mutate({
      params: { token: userId },
      body: { resetKey: token, password: values.password, firstName: values.firstName, lastName: values.lastName },
    });
  });

  if (confirm.isSuccess) {
    return (
      <AuthCard title={TEXT.emailConfirmed}>
        <Button className="w-full" onClick={() => navigate('/login', { replace: true })}>
          Go to Login
        </Button>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Confirm Email" subtitle="Welcome! Tell us your name and choose a password.">
      <FormProvider {...form}>
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          {linkBroken && <FormError message={VALIDATION.missingResetToken} />}
          <div className="grid grid-cols-2 gap-3">
            <TextField<ConfirmForm> name="firstName" label="First Name" autoComplete="given-name" required />
            <TextField<ConfirmForm> name="lastName" label="Last Name" autoComplete="family-name" required />
          </div>
          <TextField<ConfirmForm>
            name="password"
            label="New Password"
            type="password"
            autoComplete="new-password"
            required
          />
          <TextField<ConfirmForm>
            name="confirmPassword"
            label="Confirm Password"
            type="password"
            autoComplete="new-password"
            required
          />
          <PasswordChecklist password={password ?? ''} confirm={confirmPassword ?? ''} />
          <FormError
            message={form.formState.errors.root?.link?.message ?? errorText(confirm.error, ERRORS.confirmEmail)}
          />
          <Button type="submit" className="w-full" disabled={form.formState.isSubmitting || confirm.isPending}>
            Confirm Email
          </Button>
        </form>
      </FormProvider>
    </AuthCard>
  );
}
