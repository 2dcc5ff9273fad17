/**
 * The providers section's dialogs: create or edit a provider (react-hook-form on the contract's schema, like the
 * host dialogs), and choose the regions a provider serves (one checkbox per platform region).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { PROVIDER_DRIVERS, providerInputSchema, type ProviderInput } from '@portal/contract/reseller-catalog';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { SelectField } from '../../../components/ui/SelectField.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { FormFooter } from './FormFooter.tsx';
import {
  useCreateProvider,
  useSetProviderRegions,
  useUpdateProvider,
  type ProviderView,
  type RegionChoice,
} from '../api/catalog.ts';

const DRIVER_LABELS: Record<(typeof PROVIDER_DRIVERS)[number], string> = {
  libvirt: 'libvirt (your hosts)',
  simulator: 'Simulator (no real machines)',
};

/** Creates a provider (no `provider` given) or edits one: name, driver, whether it takes new VMs. */
export function ProviderDialog({ provider, onClose }: { provider?: ProviderView; onClose: () => void }) {
  const formId = useId();
  const create = useCreateProvider();
  const update = useUpdateProvider();
  const mutation = provider ? update : create;
  type Form = z.input<typeof providerInputSchema>;
  const form = useForm<Form, unknown, ProviderInput>({
    resolver: zodResolver(providerInputSchema),
    defaultValues: {
      name: provider?.name ?? '',
      driver: (provider?.driver as ProviderInput['driver'] | undefined) ?? 'libvirt',
      enabled: provider?.enabled ?? true,
    },
  });
  const done = (name: string, verb: string) => {
    toast.success(`${name} ${verb}`);
    onClose();
  };
  const onSubmit = form.handleSubmit((body) =>
    provider
      ? update.mutate({ params: { id: provider.id }, body }, { onSuccess: (res) => done(res.data.name, 'saved') })
      : create.mutate({ body }, { onSuccess: (res) => done(res.data.name, 'created') }),
  );
  const enabledId = useId();
  return (
    <Modal
      open
      title={provider ? `Edit ${provider.name}` : 'New provider'}
      onClose={onClose}
      footer={
        <FormFooter
          formId={formId}
          label={provider ? 'Save' : 'Create'}
          pending={mutation.isPending}
          onClose={onClose}
        />
      }
    >
      <FormProvider {...form}>
        <form id={formId} onSubmit={onSubmit} noValidate className="space-y-3">
          <TextField<Form> name="name" label="Name" required />
          <SelectField<Form>
            name="driver"
            label="Driver"
            options={PROVIDER_DRIVERS.map((d) => ({ value: d, label: DRIVER_LABELS[d] }))}
          />
          <div className="flex items-center gap-2">
            <input id={enabledId} type="checkbox" {...form.register('enabled')} />
            <label htmlFor={enabledId} className="text-sm text-slate-700 dark:text-slate-300">
              Takes new VMs
            </label>
          </div>
        </form>
      </FormProvider>
      {provider && (provider.hosts > 0 || provider.vms > 0) && (
        <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
          Its driver cannot change: it has hosts or virtual machines.
        </p>
      )}
      <ErrorText error={mutation.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}

/** The regions a provider serves: every size is offered in each region checked. */
export function ProviderRegionsDialog({
  provider,
  regions,
  onClose,
}: {
  provider: ProviderView;
  regions: RegionChoice[];
  onClose: () => void;
}) {
  const formId = useId();
  const save = useSetProviderRegions();
  const [picked, setPicked] = useState(() => new Set(provider.regionIds));
  const toggle = (id: number) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <Modal
      open
      title={`Regions of ${provider.name}`}
      onClose={onClose}
      footer={<FormFooter formId={formId} label="Save" pending={save.isPending} onClose={onClose} />}
    >
      <form
        id={formId}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate(
            { params: { id: provider.id }, body: { regionIds: [...picked] } },
            {
              onSuccess: () => {
                toast.success(`${provider.name}: regions saved`);
                onClose();
              },
            },
          );
        }}
      >
        <fieldset>
          <legend className="mb-2 text-sm text-slate-600 dark:text-slate-300">
            Your customers can create VMs of every size you offer in the regions checked.
          </legend>
          <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
            {regions.map((r) => (
              <label key={r.id} className="flex items-center gap-2 text-sm text-slate-800 dark:text-slate-200">
                <input type="checkbox" checked={picked.has(r.id)} onChange={() => toggle(r.id)} />
                {r.name} <span className="text-slate-500 dark:text-slate-400">· {r.country}</span>
              </label>
            ))}
          </div>
        </fieldset>
      </form>
      <ErrorText error={save.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}
