/**
 * The Security page's "Passkeys" section (issue 26 item 1; docs/two-factor.md "Passkeys"): name a passkey and
 * let the browser create it, the list (name, added, last used), rename, and remove (the password or a current
 * authenticator code). The browser's side is @simplewebauthn/browser; the server checks its answer.
 */
import KeyRound from 'lucide-react/icons/key-round';
import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { PASSKEY_TEXT as T, type Passkey } from '@portal/contract/passkeys';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { callApi } from '../../../lib/api.ts';
import { formatDate, formatDateTime, useDateFormat } from '../../../lib/dates.ts';
import type { Revived } from '../../../lib/dates.ts';
import { useAddPasskey, usePasskeys, useRemovePasskey, useRenamePasskey } from '../api/passkeys.ts';

type Fields = { name: string; password: string; code: string };
type Row = Revived<Passkey>;

function AddPasskey() {
  const add = useAddPasskey();
  const [name, setName] = useState('');
  const [browserError, setBrowserError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const supported = browserSupportsWebAuthn();

  async function onAdd(e: FormEvent) {
    e.preventDefault();
    setBrowserError(null);
    add.reset();
    if (!name.trim()) {
      setBrowserError(T.nameRequired);
      return;
    }
    setBusy(true);
    try {
      const options = await callApi(routes.passkeys.registrationOptions, { body: {} });
      let response;
      try {
        response = await startRegistration({
          optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
        });
      } catch {
        setBrowserError(T.cancelled);
        return;
      }
      add.mutate(
        { body: { name, response: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } } },
        {
          onSuccess: ({ message }) => {
            toast.success(message);
            setName('');
          },
        },
      );
    } catch (err) {
      setBrowserError(err instanceof Error ? err.message : T.notVerified);
    } finally {
      setBusy(false);
    }
  }

  if (!supported) return <p>{T.unsupported}</p>;
  return (
    <form onSubmit={(e) => void onAdd(e)} className="space-y-3" noValidate>
      <TextField<Fields>
        name="name"
        label={T.nameLabel}
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder={T.namePlaceholder}
        maxLength={60}
        autoComplete="off"
        className="max-w-xs"
      />
      <p className="text-slate-600 dark:text-slate-400">{T.addHint}</p>
      {browserError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {browserError}
        </p>
      )}
      <ErrorText error={add.error} />
      <Button type="submit" disabled={busy || add.isPending}>
        {T.add}
      </Button>
    </form>
  );
}

function RenameDialog({ passkey, onClose }: { passkey: Row; onClose: () => void }) {
  const rename = useRenamePasskey();
  const [name, setName] = useState(passkey.name);
  return (
    <Modal open title={T.rename} onClose={onClose}>
      <form
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate(
            { params: { id: passkey.id }, body: { name } },
            {
              onSuccess: ({ message }) => {
                toast.success(message);
                onClose();
              },
            },
          );
        }}
      >
        <TextField<Fields>
          name="name"
          label={T.nameLabel}
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={60}
          autoComplete="off"
          autoFocus
        />
        <ErrorText error={rename.error} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            {T.cancel}
          </Button>
          <Button type="submit" disabled={rename.isPending}>
            {T.save}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function RemoveDialog({ passkey, withApp, onClose }: { passkey: Row; withApp: boolean; onClose: () => void }) {
  const remove = useRemovePasskey();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  return (
    <Modal open title={T.removeTitle(passkey.name)} onClose={onClose}>
      <form
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          remove.mutate(
            {
              params: { id: passkey.id },
              body: { ...(password ? { password } : {}), ...(code ? { code } : {}) },
            },
            {
              onSuccess: ({ message }) => {
                toast.success(message);
                onClose();
              },
            },
          );
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{withApp ? T.removeHint : T.removeHintPassword}</p>
        <TextField<Fields>
          name="password"
          type="password"
          label={T.passwordLabel}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="current-password"
          autoFocus
        />
        {withApp && (
          <TextField<Fields>
            name="code"
            label={T.codeLabel}
            value={code}
            onChange={(e) => setCode(e.target.value)}
            inputMode="numeric"
            autoComplete="one-time-code"
            placeholder="123456"
            maxLength={6}
            className="max-w-xs"
          />
        )}
        <ErrorText error={remove.error} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            {T.cancel}
          </Button>
          <Button type="submit" variant="danger" disabled={remove.isPending}>
            {T.remove}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

export function PasskeysCard({ withApp }: { withApp: boolean }) {
  const list = usePasskeys();
  // The user's date format (the account page's): re-rendered when it changes.
  useDateFormat();
  const [renaming, setRenaming] = useState<Row | null>(null);
  const [removing, setRemoving] = useState<Row | null>(null);
  return (
    <section
      aria-labelledby="passkeys-heading"
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <h2 id="passkeys-heading" className="font-semibold text-slate-900 dark:text-slate-100">
        {T.heading}
      </h2>
      <div className="mt-3 space-y-4 text-sm text-slate-700 dark:text-slate-300">
        <p>{T.intro}</p>
        {list.isPending ? (
          <p className="text-slate-500">Loading…</p>
        ) : list.error ? (
          <ErrorText error={list.error} />
        ) : list.data.length === 0 ? (
          <p>{T.none}</p>
        ) : (
          <ul data-testid="passkey-list" className="divide-y divide-slate-200 dark:divide-slate-700">
            {list.data.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
                <div className="flex min-w-0 items-start gap-2">
                  <KeyRound className="mt-0.5 h-4 w-4 shrink-0 text-slate-500" aria-hidden />
                  <div className="min-w-0">
                    <p className="break-words font-medium text-slate-900 dark:text-slate-100">{p.name}</p>
                    <p className="text-slate-600 dark:text-slate-400">
                      {T.created} {formatDate(p.createdAt)} · {T.lastUsed}{' '}
                      {p.lastUsedAt ? formatDateTime(p.lastUsedAt) : T.neverUsed}
                    </p>
                  </div>
                </div>
                <div className="flex gap-2">
                  <Button
                    type="button"
                    variant="secondary"
                    aria-label={`${T.rename} ${p.name}`}
                    onClick={() => setRenaming(p)}
                  >
                    {T.rename}
                  </Button>
                  <Button
                    type="button"
                    variant="danger"
                    aria-label={`${T.remove} ${p.name}`}
                    onClick={() => setRemoving(p)}
                  >
                    {T.remove}
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
        <AddPasskey />
      </div>
      {renaming && <RenameDialog passkey={renaming} onClose={() => setRenaming(null)} />}
      {removing && <RemoveDialog passkey={removing} withApp={withApp} onClose={() => setRemoving(null)} />}
    </section>
  );
}
