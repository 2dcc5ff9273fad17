/**
 * A libvirt provider's settings the reseller manages (issue 23 item 2), beside its Edit and Regions dialogs: the
 * storage pool and network names on its hosts, the public addresses' way (a public network, or NAT by the host's
 * hook), and its images: each catalog name with the base volume in the pool it is made from. Forms on the contract's
 * schemas (errors under their fields); the server applies a change without a restart. Support staff read only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import {
  providerImageSchema,
  providerSettingsUpdateSchema,
  type ProviderImage,
  type ProviderSettings,
  type ProviderSettingsUpdate,
} from '@portal/contract/reseller-catalog';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import {
  useProviderSettings,
  useSaveProviderImage,
  useSaveProviderSettings,
  type ProviderView,
} from '../api/catalog.ts';

const hint = 'text-xs text-slate-500 dark:text-slate-400';
const heading = 'text-sm font-semibold text-slate-900 dark:text-slate-100';

export function ProviderSettingsDialog({
  provider,
  mayEdit,
  onDescribe,
  onClose,
}: {
  provider: ProviderView;
  mayEdit: boolean;
  /** Opens the image's Describe dialog (the regions list's); only for an image a region lists. */
  onDescribe?: (image: string) => void;
  onClose: () => void;
}) {
  const settings = useProviderSettings(provider.id);
  const save = useSaveProviderSettings();
  return (
    <Modal
      open
      title={`Settings of ${provider.name}`}
      onClose={onClose}
      width="max-w-2xl"
      footer={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {settings.isPending ? (
        <Spinner />
      ) : settings.error ? (
        <ErrorText error={settings.error} />
      ) : (
        <div className="space-y-6">
          <HostSettingsForm
            provider={provider}
            settings={settings.data}
            mayEdit={mayEdit}
            pending={save.isPending}
            onSave={(body) =>
              save.mutate(
                { params: { id: provider.id }, body },
                { onSuccess: () => toast.success(`${provider.name}: settings saved`) },
              )
            }
          />
          <ErrorText error={save.error} />
          <ImagesList provider={provider} settings={settings.data} mayEdit={mayEdit} onDescribe={onDescribe} />
        </div>
      )}
    </Modal>
  );
}

/** The names and the public addresses' way: saved together with their own button (the images apply one by one). */
function HostSettingsForm({
  provider,
  settings,
  mayEdit,
  pending,
  onSave,
}: {
  provider: ProviderView;
  settings: ProviderSettings;
  mayEdit: boolean;
  pending: boolean;
  onSave: (body: ProviderSettingsUpdate) => void;
}) {
  type Form = z.input<typeof providerSettingsUpdateSchema>;
  const form = useForm<Form, unknown, ProviderSettingsUpdate>({
    resolver: zodResolver(providerSettingsUpdateSchema),
    defaultValues: {
      poolName: settings.poolName,
      networkName: settings.networkName,
      publicNetworkName: settings.publicNetworkName,
      publicNat: settings.publicNat,
    },
  });
  const natId = useId();
  // An empty public network field is "none".
  const orNone = { setValueAs: (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v) };
  const locked = provider.vms > 0;
  return (
    <FormProvider {...form}>
      <form onSubmit={form.handleSubmit(onSave)} noValidate aria-label="Host settings" className="space-y-3">
        <h3 className={heading}>On each host</h3>
        <p className={hint}>
          The storage pool holds the base volumes and the machines&apos; disks; the network gives the machines their
          private addresses. Keep irontech (the portal makes both on a host that lacks them) or name a pool and a
          network you defined on every host of this provider.
          {locked && ' They cannot change while this provider has virtual machines.'}
        </p>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <TextField<Form> name="poolName" label="Storage pool" required disabled={!mayEdit || locked} />
          <TextField<Form> name="networkName" label="Network" required disabled={!mayEdit || locked} />
        </div>
        <h3 className={`${heading} pt-2`}>Public addresses</h3>
        <TextField<Form>
          name="publicNetworkName"
          label="Public network"
          placeholder="none"
          registerOptions={orNone}
          disabled={!mayEdit || locked}
        />
        <p className={hint}>
          A libvirt network you defined over your public block: a machine given a public address gets a second network
          card on it. Empty: none.
        </p>
        <div className="flex items-center gap-2">
          <input id={natId} type="checkbox" disabled={!mayEdit} {...form.register('publicNat')} />
          <label htmlFor={natId} className="text-sm text-slate-700 dark:text-slate-300">
            Without a public network, map each public address to its machine (the NAT hook on the host)
          </label>
        </div>
        {mayEdit && (
          <div className="flex justify-end">
            <Button type="submit" disabled={pending}>
              Save settings
            </Button>
          </div>
        )}
      </form>
    </FormProvider>
  );
}

function ImagesList({
  provider,
  settings,
  mayEdit,
  onDescribe,
}: {
  provider: ProviderView;
  settings: ProviderSettings;
  mayEdit: boolean;
  onDescribe: ((image: string) => void) | undefined;
}) {
  const save = useSaveProviderImage();
  const formId = useId();
  type Form = z.input<typeof providerImageSchema>;
  const form = useForm<Form, unknown, ProviderImage>({
    resolver: zodResolver(providerImageSchema),
    defaultValues: { image: '', volume: '' },
  });
  const remove = (image: string) =>
    save.mutate(
      { params: { id: provider.id }, body: { image, volume: null } },
      { onSuccess: () => toast.success(`${image} removed from ${provider.name}`) },
    );
  const add = form.handleSubmit((body) =>
    save.mutate(
      { params: { id: provider.id }, body },
      {
        onSuccess: () => {
          toast.success(`${body.image} added to ${provider.name}`);
          form.reset({ image: '', volume: '' });
        },
      },
    ),
  );
  return (
    <section aria-labelledby={`${formId}-images`} className="space-y-3">
      <h3 id={`${formId}-images`} className={heading}>
        Images
      </h3>
      <p className={hint}>
        Each image your customers pick by name is made from a base volume in the storage pool. Put the volume in each
        host&apos;s pool (a Debian, Ubuntu or Rocky cloud image), then add it here: it shows in your regions once a host
        holds it (the hosts are checked every few seconds). Then describe it for your customers.
      </p>
      {settings.images.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">No images of your own yet.</p>
      ) : (
        <ul className="divide-y divide-slate-100 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-700">
          {settings.images.map((i) => (
            <li
              key={i.image}
              data-image={i.image}
              className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm"
            >
              <div className="min-w-0">
                <div className="font-medium break-words text-slate-900 dark:text-slate-100">{i.image}</div>
                <div className="break-all text-slate-600 dark:text-slate-300">
                  volume {i.volume} ·{' '}
                  {i.regions.length ? (
                    `in ${i.regions.join(', ')}`
                  ) : (
                    <span className="text-amber-700 dark:text-amber-400">in no region yet: no host holds it</span>
                  )}
                </div>
              </div>
              <div className="flex gap-2">
                {mayEdit && onDescribe && i.regions.length > 0 && (
                  <Button variant="secondary" onClick={() => onDescribe(i.image)} aria-label={`Describe ${i.image}`}>
                    Describe
                  </Button>
                )}
                {mayEdit && (
                  <Button
                    variant="secondary"
                    onClick={() => remove(i.image)}
                    disabled={save.isPending}
                    aria-label={`Remove ${i.image}`}
                  >
                    Remove
                  </Button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {mayEdit && (
        <FormProvider {...form}>
          <form onSubmit={add} noValidate aria-label="Add an image" className="space-y-2">
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end">
              <TextField<Form> name="image" label="Image name" placeholder="Ubuntu 24.04 LTS" required />
              <TextField<Form> name="volume" label="Base volume" placeholder="ubuntu-24.04.qcow2" required />
              <Button type="submit" variant="secondary" disabled={save.isPending}>
                Add image
              </Button>
            </div>
          </form>
        </FormProvider>
      )}
      <ErrorText error={save.error} />
    </section>
  );
}
