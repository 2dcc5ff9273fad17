/**
 * Describe an image for the reseller's customers (decision 0018): OS family, version, default user, minimum disk,
 * on the contract's schema. Its own description overrides the platform's; "Use the platform's" removes it.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import {
  describeImageLine,
  imageDescriptionSchema,
  OS_FAMILIES,
  OS_FAMILY_LABELS,
  type ImageDescription,
} from '@portal/contract/images';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { SelectField } from '../../../components/ui/SelectField.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useDescribeImage, type ImageDescriptionView } from '../api/catalog.ts';

const asNumber = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : Number(v));

export function ImageDescriptionDialog({
  described,
  onClose,
}: {
  described: ImageDescriptionView;
  onClose: () => void;
}) {
  const formId = useId();
  const save = useDescribeImage();
  type Form = z.input<typeof imageDescriptionSchema>;
  const start = described.own ?? described.platform;
  const form = useForm<Form, unknown, ImageDescription>({
    resolver: zodResolver(imageDescriptionSchema),
    defaultValues: start ?? { osFamily: 'debian', version: '', defaultUser: '', minDiskGb: undefined },
  });
  const send = (description: ImageDescription | null) =>
    save.mutate(
      { body: { image: described.image, description } },
      {
        onSuccess: () => {
          toast.success(
            description ? `${described.image} described` : `${described.image}: the platform's description`,
          );
          onClose();
        },
      },
    );
  return (
    <Modal
      open
      title={`Describe ${described.image}`}
      onClose={onClose}
      footer={
        <>
          {described.own && (
            <Button variant="secondary" onClick={() => send(null)} disabled={save.isPending}>
              Use the platform&apos;s
            </Button>
          )}
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} disabled={save.isPending}>
            Save
          </Button>
        </>
      }
    >
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">
        {described.platform
          ? `The platform describes it as ${describeImageLine(described.platform)}.`
          : 'The platform has not described it: its machines log in as root.'}{' '}
        Your description is what your customers see, in every region of yours that lists this image; new machines log in
        as its default user.
      </p>
      <FormProvider {...form}>
        <form id={formId} onSubmit={form.handleSubmit((d) => send(d))} noValidate className="space-y-3">
          <SelectField<Form>
            name="osFamily"
            label="OS family"
            options={OS_FAMILIES.map((f) => ({ value: f, label: OS_FAMILY_LABELS[f] }))}
          />
          <TextField<Form> name="version" label="Version" placeholder="12" required />
          <TextField<Form> name="defaultUser" label="Default user" placeholder="debian" required />
          <TextField<Form>
            name="minDiskGb"
            label="Minimum disk (GB)"
            inputMode="numeric"
            required
            registerOptions={{ setValueAs: asNumber }}
          />
        </form>
      </FormProvider>
      <ErrorText error={save.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}
