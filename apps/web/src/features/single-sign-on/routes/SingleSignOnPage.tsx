/**
 * /singleSignOn — the company's single sign-on (issue 26 item 3; docs/single-sign-on.md), company administrators
 * only: the issuer, client and email domains, the redirect URI to register at the provider, "Test connection" (the
 * server fetches the discovery document through its network rule), save, and turning it off (a confirmation).
 */
import { useState, type FormEvent } from 'react';
import type { SsoConnection } from '@portal/contract/single-sign-on';
import { toast } from 'react-toastify';
import { SSO_TEXT as S } from '@portal/contract/single-sign-on-text';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { CopyButton } from '../../../components/ui/CopyButton.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { formatDate } from '../../../lib/dates.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useDisableSso, useSaveSso, useSsoSettings, useTestSso } from '../api/sso.ts';

type Fields = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  domains: string;
  enabled: boolean;
  passwordsDisabled: boolean;
};
const EMPTY: Fields = {
  issuer: '',
  clientId: '',
  clientSecret: '',
  domains: '',
  enabled: true,
  passwordsDisabled: false,
};

const cardClass =
  'rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm space-y-4 text-sm text-slate-700 dark:text-slate-300';

function Check({
  id,
  label,
  hint,
  checked,
  onChange,
}: {
  id: string;
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (v: boolean) => void;
}) {
  return (
    <label htmlFor={id} className="flex items-start gap-3">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="mt-0.5 h-4 w-4 rounded border-slate-300 dark:border-slate-600 text-brand-600"
      />
      <span>
        <span className="block font-medium text-slate-900 dark:text-slate-100">{label}</span>
        {hint && (
          <span id={`${id}-hint`} className="block text-slate-600 dark:text-slate-400">
            {hint}
          </span>
        )}
      </span>
    </label>
  );
}

type Stored = Omit<SsoConnection, 'updatedAt'> & { updatedAt: Date | string };

function fieldsOf(connection: Stored | null): Fields {
  if (!connection) return EMPTY;
  return {
    issuer: connection.issuer,
    clientId: connection.clientId,
    clientSecret: '',
    domains: connection.domains.join(', '),
    enabled: connection.enabled,
    passwordsDisabled: connection.passwordsDisabled,
  };
}

export function SingleSignOnPage() {
  const { user } = useAuth();
  const settings = useSsoSettings();
  const disable = useDisableSso();
  const [asking, setAsking] = useState(false);
  const connection = settings.data?.connection ?? null;
  const redirectUri = settings.data?.redirectUri ?? '';

  if (!user?.isCompanyAdmin) {
    return (
      <PageLayout title={S.pageTitle}>
        <p className="text-sm text-slate-700 dark:text-slate-300">{S.adminsOnly}</p>
      </PageLayout>
    );
  }

  return (
    <PageLayout title={S.pageTitle}>
      <div className="max-w-3xl space-y-6">
        <section aria-labelledby="sso-status-heading" className={cardClass}>
          <h2 id="sso-status-heading" className="font-semibold text-slate-900 dark:text-slate-100">
            {S.pageTitle}
          </h2>
          <p>{S.intro}</p>
          <ErrorText error={settings.error} />
          <p data-testid="sso-status">
            {connection
              ? `${connection.enabled ? 'On' : 'Off'} · ${connection.domains.join(', ')} · ${formatDate(connection.updatedAt)}`
              : S.notConfiguredYet}
          </p>
          <div className="space-y-1">
            <p className="font-medium text-slate-900 dark:text-slate-100">{S.redirectUriLabel}</p>
            <div className="flex flex-wrap items-center gap-2">
              <code
                data-testid="sso-redirect-uri"
                className="break-all rounded bg-slate-100 dark:bg-slate-800 px-2 py-1"
              >
                {redirectUri}
              </code>
              {redirectUri && <CopyButton label="Copy redirect URI" value={redirectUri} />}
            </div>
          </div>
          {connection?.enabled && (
            <Button type="button" variant="secondary" onClick={() => setAsking(true)}>
              {S.disable}
            </Button>
          )}
        </section>

        {settings.data && (
          // Starts from what is stored (the secret never comes back: an empty field keeps it).
          <SsoForm key={String(connection?.updatedAt ?? 'new')} connection={connection} />
        )}
      </div>
      <ConfirmDialog
        open={asking}
        title={S.confirmDisableTitle}
        confirmLabel={S.disable}
        pending={disable.isPending}
        error={disable.error}
        onCancel={() => setAsking(false)}
        onConfirm={() =>
          disable.mutate(
            { body: {} },
            {
              onSuccess: ({ message }) => {
                toast.success(message);
                setAsking(false);
              },
            },
          )
        }
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">{S.confirmDisableBody}</p>
      </ConfirmDialog>
    </PageLayout>
  );
}

function SsoForm({ connection }: { connection: Stored | null }) {
  const save = useSaveSso();
  const test = useTestSso();
  const [fields, setFields] = useState<Fields>(() => fieldsOf(connection));
  const set =
    <K extends keyof Fields>(key: K) =>
    (value: Fields[K]) =>
      setFields((f) => ({ ...f, [key]: value }));

  function onSave(e: FormEvent) {
    e.preventDefault();
    save.mutate(
      {
        body: {
          issuer: fields.issuer,
          clientId: fields.clientId,
          ...(fields.clientSecret ? { clientSecret: fields.clientSecret } : {}),
          domains: fields.domains
            .split(/[\s,]+/)
            .map((d) => d.trim())
            .filter(Boolean),
          enabled: fields.enabled,
          passwordsDisabled: fields.passwordsDisabled,
        },
      },
      { onSuccess: ({ message }) => toast.success(message) },
    );
  }

  return (
    <form onSubmit={onSave} className={cardClass} noValidate aria-labelledby="sso-settings-heading">
      <h2 id="sso-settings-heading" className="font-semibold text-slate-900 dark:text-slate-100">
        Connection
      </h2>
      <TextField
        name="issuer"
        label={S.issuerLabel}
        required
        value={fields.issuer}
        onChange={(e) => set('issuer')(e.target.value)}
        placeholder="https://login.example.com"
        aria-describedby="sso-issuer-hint"
      />
      <p id="sso-issuer-hint" className="-mt-3 text-slate-600 dark:text-slate-400">
        {S.issuerHint}
      </p>
      <TextField
        name="clientId"
        label={S.clientIdLabel}
        required
        value={fields.clientId}
        onChange={(e) => set('clientId')(e.target.value)}
        autoComplete="off"
      />
      <TextField
        name="clientSecret"
        label={S.clientSecretLabel}
        type="password"
        required={!connection?.hasClientSecret}
        value={fields.clientSecret}
        onChange={(e) => set('clientSecret')(e.target.value)}
        autoComplete="new-password"
        placeholder={connection?.hasClientSecret ? S.clientSecretKept : ''}
      />
      <TextField
        name="domains"
        label={S.domainsLabel}
        required
        value={fields.domains}
        onChange={(e) => set('domains')(e.target.value)}
        placeholder="example.com"
        aria-describedby="sso-domains-hint"
      />
      <p id="sso-domains-hint" className="-mt-3 text-slate-600 dark:text-slate-400">
        {S.domainsHint}
      </p>
      <Check id="sso-enabled" label={S.enabledLabel} checked={fields.enabled} onChange={set('enabled')} />
      <Check
        id="sso-passwords-disabled"
        label={S.passwordsDisabledLabel}
        hint={S.passwordsDisabledHint}
        checked={fields.passwordsDisabled}
        onChange={set('passwordsDisabled')}
      />
      {test.data && (
        <p role="status" className="text-green-700 dark:text-green-400">
          {test.data.message}
        </p>
      )}
      <ErrorText error={test.error} />
      <ErrorText error={save.error} />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={save.isPending}>
          {S.save}
        </Button>
        <Button
          type="button"
          variant="secondary"
          disabled={test.isPending || !fields.issuer.trim()}
          onClick={() => test.mutate({ body: { issuer: fields.issuer } })}
        >
          {S.test}
        </Button>
      </div>
    </form>
  );
}
