/**
 * The hosts screen's dialogs: edit a host's capacity and overcommit, and register a new host. Both are
 * react-hook-form forms validated by the contract's schemas (the server's own), with each field's message.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { FormProvider, useForm, useWatch, type FieldValues, type Path } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import {
  hostRegistrationSchema,
  hostUpdateSchema,
  type HostRegistration,
  type HostUpdate,
} from '@portal/contract/reseller-catalog';
import { Button } from '../../../components/ui/Button.tsx';
import { CopyButton } from '../../../components/ui/CopyButton.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { SelectField } from '../../../components/ui/SelectField.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { FormFooter } from './FormFooter.tsx';
import { useCheckHost, useRegisterHost, useUpdateHost, type HostView } from '../api/catalog.ts';

const CAPACITY = [
  ['cpus', 'CPUs'],
  ['ramGb', 'RAM (GB)'],
  ['diskGb', 'Disk (GB)'],
  ['cpuOvercommit', 'CPU overcommit'],
  ['ramOvercommit', 'RAM overcommit'],
  ['diskOvercommit', 'Disk overcommit'],
] as const;

/** Typed text to a number; an empty field is left out (the server keeps the value, or reads it from the host). */
const asNumber = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : Number(v));
/** Backups at once: an empty field is null, the portal's default (decision 0027). */
const asLimit = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? null : Number(v));

function CapacityFields<T extends FieldValues>() {
  return (
    <>
      {CAPACITY.map(([name, label]) => (
        <TextField<T>
          key={name}
          name={name as Path<T>}
          label={label}
          inputMode="decimal"
          registerOptions={{ setValueAs: asNumber }}
        />
      ))}
    </>
  );
}

export function EditCapacityDialog({ host, onClose }: { host: HostView; onClose: () => void }) {
  const formId = useId();
  const update = useUpdateHost();
  const form = useForm<z.input<typeof hostUpdateSchema>, unknown, HostUpdate>({
    resolver: zodResolver(hostUpdateSchema),
    defaultValues: {
      ...Object.fromEntries(CAPACITY.map(([k]) => [k, host[k]])),
      backupConcurrency: host.backupConcurrency,
    },
  });
  const onSubmit = form.handleSubmit((body) =>
    update.mutate(
      { params: { id: host.id }, body },
      {
        onSuccess: () => {
          toast.success(`${host.name} saved`);
          onClose();
        },
      },
    ),
  );
  return (
    <Modal
      open
      title={`Edit ${host.name}`}
      onClose={onClose}
      footer={<FormFooter formId={formId} label="Save" pending={update.isPending} onClose={onClose} />}
    >
      <FormProvider {...form}>
        <form id={formId} onSubmit={onSubmit} noValidate className="grid grid-cols-2 gap-3">
          <CapacityFields<z.input<typeof hostUpdateSchema>> />
          <TextField<z.input<typeof hostUpdateSchema>>
            name="backupConcurrency"
            label="Backups at once"
            inputMode="numeric"
            placeholder="Default"
            registerOptions={{ setValueAs: asLimit }}
          />
        </form>
      </FormProvider>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        A host takes new VMs while they fit within capacity × overcommit. Backups at once: how many backups are taken on
        it at the same time (1 to 16); empty for the portal&apos;s default.
      </p>
      <ErrorText error={update.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}

/**
 * Registering a host (issue 21): the portal logs in with its own key (shown here, for the host's authorized_keys);
 * "Check host" validates the URI and reads a qemu+ssh host's key, whose fingerprint the reseller compares with the
 * host's (`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`) before Register pins it.
 */
export function RegisterHostDialog({
  providers,
  regions,
  publicKey,
  onClose,
}: {
  providers: { id: number; name: string }[];
  regions: { id: number; name: string }[];
  publicKey: string;
  onClose: () => void;
}) {
  const formId = useId();
  const register = useRegisterHost();
  const check = useCheckHost();
  const form = useForm<z.input<typeof hostRegistrationSchema>, unknown, HostRegistration>({
    resolver: zodResolver(hostRegistrationSchema),
    defaultValues: { name: '', uri: '', providerId: providers[0]?.id, regionId: regions[0]?.id },
  });
  const uri = useWatch({ control: form.control, name: 'uri' });
  // The check holds for the URI it was made for: another URI needs another check.
  const checked = check.data && check.variables?.body.uri === uri ? check.data.data : null;
  const needsCheck = /^qemu\+ssh:/.test(uri ?? '') && !checked?.fingerprint;
  const onSubmit = form.handleSubmit((input) => {
    const body = checked?.fingerprint ? { ...input, hostKeyFingerprint: checked.fingerprint } : input;
    register.mutate(
      { body },
      {
        onSuccess: (res) => {
          toast.success(`${res.data.name} registered`);
          onClose();
        },
      },
    );
  });
  type Form = z.input<typeof hostRegistrationSchema>;
  return (
    <Modal
      open
      title="Register host"
      onClose={onClose}
      footer={
        <FormFooter
          formId={formId}
          label="Register"
          pending={register.isPending || providers.length === 0 || needsCheck}
          onClose={onClose}
        />
      }
    >
      <div className="mb-3 text-sm text-slate-700 dark:text-slate-300">
        <p>
          The portal logs in to qemu+ssh hosts with this key: add it to the user&apos;s{' '}
          <code>~/.ssh/authorized_keys</code> on the host.
        </p>
        <div className="mt-1 flex items-start gap-2">
          <code className="block min-w-0 flex-1 break-all rounded bg-slate-100 p-2 text-xs dark:bg-slate-800">
            {publicKey}
          </code>
          <CopyButton label="Public key" value={publicKey} />
        </div>
      </div>
      <FormProvider {...form}>
        <form id={formId} onSubmit={onSubmit} noValidate className="grid grid-cols-2 gap-3">
          <TextField<Form> name="name" label="Name" required />
          <TextField<Form> name="uri" label="libvirt URI" required />
          <div className="col-span-2 flex flex-wrap items-center gap-3 text-sm">
            <Button
              type="button"
              variant="secondary"
              disabled={check.isPending || !uri}
              onClick={() => check.mutate({ body: { uri } })}
            >
              Check host
            </Button>
            {checked &&
              (checked.fingerprint ? (
                <span className="text-slate-700 dark:text-slate-300">
                  Host key <code className="break-all">{checked.fingerprint}</code>: compare it with the host&apos;s
                  before you register.
                </span>
              ) : (
                <span className="text-slate-700 dark:text-slate-300">The URI is valid.</span>
              ))}
            <ErrorText error={check.error} className="text-red-600 dark:text-red-400" />
          </div>
          <SelectField<Form>
            name="providerId"
            label="Provider"
            options={providers.map((p) => ({ value: p.id, label: p.name }))}
            registerOptions={{ valueAsNumber: true }}
          />
          <SelectField<Form>
            name="regionId"
            label="Region"
            options={regions.map((r) => ({ value: r.id, label: r.name }))}
            registerOptions={{ valueAsNumber: true }}
          />
          <CapacityFields<Form> />
        </form>
      </FormProvider>
      <p className="mt-3 text-xs text-slate-500 dark:text-slate-400">
        Use qemu+ssh://user@host[:port]/system (checked first) or qemu+tls://host[:port]/system. Capacity left empty is
        read from the host, which must then answer.
      </p>
      <ErrorText error={register.error} className="mt-3 text-sm text-red-600 dark:text-red-400" />
    </Modal>
  );
}
