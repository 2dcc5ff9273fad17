/** Create company: its name and the first administrator, who is mailed the invitation. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import {
  COMPANIES_TEXT,
  createCompanyFormSchema,
  resellerCompaniesRoutes as r,
} from '@portal/contract/reseller-companies';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useCompanyWrite } from '../api/companies.ts';

type Form = z.input<typeof createCompanyFormSchema>;
const EMPTY: Form = { name: '', adminEmail: '', adminFirstName: '', adminLastName: '' };

export function CreateCompanyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const create = useCompanyWrite(r.create);
  const form = useForm<Form>({ resolver: zodResolver(createCompanyFormSchema), defaultValues: EMPTY });
  const close = () => {
    create.reset();
    form.reset(EMPTY);
    onClose();
  };
  const onSubmit = form.handleSubmit((values) =>
    create.mutateAsync({ body: values }).then(
      (res) => {
        toast.success(res.message);
        close();
      },
      // The error shows from create.error.
      () => undefined,
    ),
  );
  const field = (name: keyof Form, label: string, type: 'text' | 'email' = 'text') => (
    <TextField<Form>
      name={name}
      label={label}
      type={type}
      required
      register={form.register}
      errors={form.formState.errors}
    />
  );

  return (
    <Modal
      open={open}
      title={COMPANIES_TEXT.createTitle}
      onClose={close}
      footer={
        <>
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" form="create-company" disabled={create.isPending}>
            {COMPANIES_TEXT.createSubmit}
          </Button>
        </>
      }
    >
      <form id="create-company" onSubmit={onSubmit} noValidate className="space-y-4">
        {field('name', 'Company name')}
        <fieldset className="space-y-4 rounded-md border border-slate-200 p-4 dark:border-slate-700">
          <legend className="px-1 text-sm font-medium text-slate-700 dark:text-slate-300">First administrator</legend>
          {field('adminEmail', 'Email', 'email')}
          <div className="grid gap-4 sm:grid-cols-2">
            {field('adminFirstName', 'First Name')}
            {field('adminLastName', 'Last Name')}
          </div>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            They receive an invitation to confirm their email and choose a password.
          </p>
        </fieldset>
        <ErrorText error={create.error} className="text-sm text-red-600 dark:text-red-400" />
      </form>
    </Modal>
  );
}
