/**
 * /sshKeys — the signed-in user's SSH public keys (issue 23 item 5): listed with their fingerprints, added with a
 * name (the contract's rule refuses what is not an accepted key, with the server's words), removed after a
 * confirmation. The create form offers these keys; each machine keeps a copy of those it was made with.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import KeyRound from 'lucide-react/icons/key-round';
import Trash2 from 'lucide-react/icons/trash-2';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { addSshKeyBodySchema, type SshKey } from '@portal/contract/ssh-keys';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { formatDate } from '../../../lib/dates.ts';
import { useAddSshKey, useRemoveSshKey, useSshKeys } from '../api/ssh-keys.ts';

/** How a key's type reads in the list: "Ed25519", "ECDSA 384", "RSA 4096". */
function typeLabel(key: Pick<SshKey, 'type' | 'bits'>): string {
  if (key.type === 'ssh-ed25519') return 'Ed25519';
  if (key.type === 'ssh-rsa') return `RSA ${key.bits}`;
  return `ECDSA ${key.bits}`;
}

type AddKeyForm = z.input<typeof addSshKeyBodySchema>;

function AddKeyCard() {
  const add = useAddSshKey();
  const form = useForm<AddKeyForm, unknown, z.output<typeof addSshKeyBodySchema>>({
    resolver: zodResolver(addSshKeyBodySchema),
    defaultValues: { name: '', publicKey: '' },
  });
  // The server's answer (a name taken, say) goes away as soon as the user changes the form.
  const resetAdd = add.reset;
  useEffect(() => form.subscribe({ formState: { values: true }, callback: () => resetAdd() }), [form, resetAdd]);
  const onSubmit = form.handleSubmit((body) =>
    add.mutate(
      { body },
      {
        onSuccess: ({ data }) => {
          toast.success(SSH_KEY_TEXT.added(data.name));
          form.reset();
        },
      },
    ),
  );
  return (
    <section
      aria-labelledby="add-ssh-key"
      className="h-fit rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <h2 id="add-ssh-key" className="font-semibold text-slate-900 dark:text-slate-100">
        {SSH_KEY_TEXT.add}
      </h2>
      <form onSubmit={(e) => void onSubmit(e)} className="mt-4 space-y-4" noValidate>
        <TextField<AddKeyForm>
          name="name"
          label={SSH_KEY_TEXT.nameLabel}
          required
          register={form.register}
          errors={form.formState.errors}
          placeholder="laptop"
          autoComplete="off"
        />
        <div className="space-y-1">
          <TextField<AddKeyForm>
            name="publicKey"
            label={SSH_KEY_TEXT.keyLabel}
            type="textArea"
            rows={5}
            required
            register={form.register}
            errors={form.formState.errors}
            placeholder={SSH_KEY_TEXT.keyPlaceholder}
            spellCheck={false}
            className="[&_textarea]:font-mono [&_textarea]:text-xs"
          />
          <p className="text-xs text-slate-500 dark:text-slate-400">{SSH_KEY_TEXT.keyHelp}</p>
        </div>
        <ErrorText error={add.error} />
        <Button type="submit" className="w-full" disabled={add.isPending}>
          {SSH_KEY_TEXT.add}
        </Button>
      </form>
    </section>
  );
}

export function SshKeysPage() {
  const keys = useSshKeys();
  const remove = useRemoveSshKey();
  const [selected, setSelected] = useState<Pick<SshKey, 'id' | 'name' | 'fingerprint'> | null>(null);

  function confirmRemove() {
    if (!selected) return;
    const { name } = selected;
    remove.mutate(
      { params: { id: selected.id } },
      {
        onSuccess: () => {
          toast.success(SSH_KEY_TEXT.removed(name));
          setSelected(null);
        },
      },
    );
  }
  function closeRemove() {
    remove.reset();
    setSelected(null);
  }

  return (
    <PageLayout title={SSH_KEY_TEXT.title} secondaryTitle="Your public keys for new virtual machines">
      <div className="grid gap-6 xl:grid-cols-3">
        <div className="min-w-0 space-y-3 xl:col-span-2">
          <p className="text-sm text-slate-600 dark:text-slate-300">{SSH_KEY_TEXT.intro}</p>
          <DataTable
            title={SSH_KEY_TEXT.title}
            icon={<KeyRound className="h-5 w-5" />}
            columns={[
              {
                key: 'name',
                header: 'Name',
                render: (k) => (
                  <span>
                    <span className={`font-medium text-slate-900 dark:text-slate-100 ${wrapClass(k.name)}`}>
                      {k.name}
                    </span>
                    <span className="block text-xs text-slate-500 dark:text-slate-400">{typeLabel(k)}</span>
                  </span>
                ),
              },
              {
                key: 'fingerprint',
                header: 'Fingerprint',
                // SHA256:… has no space to wrap at: on a phone it breaks anywhere rather than push Remove off screen.
                className: 'wrap-anywhere',
                render: (k) => (
                  <code className="font-mono text-xs text-slate-700 dark:text-slate-300" data-fingerprint={k.name}>
                    {k.fingerprint}
                  </code>
                ),
              },
              { key: 'added', header: 'Added', hideOnSmall: true, render: (k) => formatDate(k.createdAt) },
              {
                key: 'remove',
                header: <span className="sr-only">Remove</span>,
                align: 'right',
                render: (k) => (
                  <button
                    type="button"
                    aria-label={`Remove ${k.name}`}
                    className="rounded p-1.5 text-slate-400 hover:bg-red-50 dark:hover:bg-red-950/50 hover:text-red-600"
                    onClick={() => {
                      remove.reset();
                      setSelected(k);
                    }}
                  >
                    <Trash2 className="h-4 w-4" />
                  </button>
                ),
              },
            ]}
            rows={keys.error ? [] : keys.data}
            rowKey={(k) => k.id}
            loading={keys.isPending}
            error={errorText(keys.error)}
            noDataMessage={SSH_KEY_TEXT.empty}
            onRefresh={() => keys.refetch()}
            page={1}
            totalPages={1}
            onPageChange={() => {}}
          />
        </div>
        <AddKeyCard />
      </div>
      <ConfirmDialog
        open={selected !== null}
        title={`Remove ${selected?.name ?? ''}?`}
        confirmLabel="Remove"
        variant="danger"
        showClose={false}
        pending={remove.isPending}
        error={remove.error}
        errorClassName="mt-3 rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
        onConfirm={confirmRemove}
        onCancel={closeRemove}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{SSH_KEY_TEXT.removeBody(selected?.name ?? '')}</p>
        {selected && (
          <p className="mt-2 break-all font-mono text-xs text-slate-500 dark:text-slate-400">{selected.fingerprint}</p>
        )}
      </ConfirmDialog>
    </PageLayout>
  );
}
