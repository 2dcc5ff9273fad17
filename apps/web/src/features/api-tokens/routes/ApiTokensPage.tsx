/**
 * /apiTokens — the signed-in user's personal API tokens (issue 26 item 4; docs/api-tokens.md): created with a
 * name, an expiry, a scope (read-only, or acting as the user in all or chosen teams) and an optional list of
 * addresses; the secret is shown once, with a copy button; listed with when and from where each was last used;
 * revoked after a confirmation. Company administrators also see (and may revoke) their users' tokens.
 */
import KeyRound from 'lucide-react/icons/key-round';
import Users from 'lucide-react/icons/users';
import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { API_TOKEN_MAX_DAYS, API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import type { routes } from '@portal/contract/routes';
import type { ApiData } from '../../../lib/api.ts';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { CopyButton } from '../../../components/ui/CopyButton.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDate, formatTime } from '../../../lib/dates.ts';
import {
  useApiTokens,
  useCompanyApiTokens,
  useCompanyRevokeApiToken,
  useCreateApiToken,
  useMyTeams,
  useRevokeApiToken,
} from '../api/api-tokens.ts';

/** Rows as the portal's client gives them (timestamps as dates). */
type ApiToken = ApiData<typeof routes.apiTokens.list>[number];
type CompanyApiToken = ApiData<typeof routes.apiTokens.companyList>[number];

const EXPIRY_CHOICES = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: API_TOKEN_MAX_DAYS, label: '1 year' },
] as const;

const inputClass =
  'w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-800 px-3 py-2 text-sm text-slate-900 dark:text-slate-100';
const labelClass = 'block text-sm font-medium text-slate-700 dark:text-slate-200';

function scopeLabel(t: Pick<ApiToken, 'scope' | 'teamIds'>, teamName: (id: number) => string): string {
  if (t.scope === 'read') return 'Read-only';
  if (!t.teamIds) return 'Act: all my teams';
  return `Act: ${t.teamIds.map(teamName).join(', ')}`;
}

function stateBadge(t: Pick<ApiToken, 'state'>) {
  const tone =
    t.state === 'active'
      ? 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300'
      : 'bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-200';
  const label = t.state === 'active' ? 'Active' : t.state === 'expired' ? 'Expired' : 'Revoked';
  return <span className={`rounded px-2 py-0.5 text-xs font-medium ${tone}`}>{label}</span>;
}

function lastUsed(t: Pick<ApiToken, 'lastUsedAt' | 'lastUsedIp'>) {
  if (!t.lastUsedAt) return <span className="text-slate-500 dark:text-slate-400">Never</span>;
  return (
    <span>
      {formatDate(t.lastUsedAt)} <span className="text-slate-500 dark:text-slate-400">{formatTime(t.lastUsedAt)}</span>
      <span className="block font-mono text-xs text-slate-500 dark:text-slate-400">{t.lastUsedIp}</span>
    </span>
  );
}

function CreateTokenCard({ onCreated }: { onCreated: (token: string, name: string) => void }) {
  const create = useCreateApiToken();
  const teams = useMyTeams();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'read' | 'act'>('read');
  const [allTeams, setAllTeams] = useState(true);
  const [teamIds, setTeamIds] = useState<number[]>([]);
  const [days, setDays] = useState<number>(30);
  const [addresses, setAddresses] = useState('');

  function submit(e: FormEvent) {
    e.preventDefault();
    const ipAllowList = addresses
      .split(/[\s,]+/)
      .map((a) => a.trim())
      .filter(Boolean);
    create.mutate(
      {
        body: {
          name,
          scope,
          ...(scope === 'act' && !allTeams ? { teamIds } : {}),
          expiresAt: new Date(Date.now() + days * 86_400_000).toISOString(),
          ipAllowList,
        },
      },
      {
        onSuccess: ({ data }) => {
          onCreated(data.token, data.apiToken.name);
          setName('');
          setAddresses('');
        },
      },
    );
  }

  return (
    <section
      aria-labelledby="create-api-token"
      className="h-fit rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-5 shadow-sm"
    >
      <h2 id="create-api-token" className="font-semibold text-slate-900 dark:text-slate-100">
        Create a token
      </h2>
      <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
        <div className="space-y-1">
          <label htmlFor="token-name" className={labelClass}>
            Name
          </label>
          <input
            id="token-name"
            className={inputClass}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="deploy script"
            autoComplete="off"
            required
          />
        </div>
        <fieldset className="space-y-2">
          <legend className={labelClass}>Scope</legend>
          <label className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
            <input type="radio" name="scope" checked={scope === 'read'} onChange={() => setScope('read')} />
            Read-only
          </label>
          <label className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
            <input type="radio" name="scope" checked={scope === 'act'} onChange={() => setScope('act')} />
            Act as me
          </label>
          {scope === 'act' && (
            <div className="ml-6 space-y-1">
              <label className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
                <input type="checkbox" checked={allTeams} onChange={(e) => setAllTeams(e.target.checked)} />
                In all my teams
              </label>
              {!allTeams &&
                (teams.data?.data ?? []).map((team) => (
                  <label key={team.id} className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
                    <input
                      type="checkbox"
                      checked={teamIds.includes(team.id)}
                      onChange={(e) =>
                        setTeamIds((ids) => (e.target.checked ? [...ids, team.id] : ids.filter((id) => id !== team.id)))
                      }
                    />
                    <span className={wrapClass(team.name)}>{team.name}</span>
                  </label>
                ))}
            </div>
          )}
        </fieldset>
        <div className="space-y-1">
          <label htmlFor="token-expiry" className={labelClass}>
            Expires in
          </label>
          <select
            id="token-expiry"
            className={inputClass}
            value={days}
            onChange={(e) => setDays(Number(e.target.value))}
          >
            {EXPIRY_CHOICES.map((c) => (
              <option key={c.days} value={c.days}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        <div className="space-y-1">
          <label htmlFor="token-addresses" className={labelClass}>
            Allowed addresses <span className="font-normal text-slate-500 dark:text-slate-400">(optional)</span>
          </label>
          <textarea
            id="token-addresses"
            className={`${inputClass} font-mono text-xs`}
            rows={3}
            value={addresses}
            onChange={(e) => setAddresses(e.target.value)}
            placeholder={'203.0.113.0/24\n2001:db8::/32'}
            spellCheck={false}
          />
          <p className="text-xs text-slate-500 dark:text-slate-400">
            One address or range per line; empty allows any address.
          </p>
        </div>
        <ErrorText error={create.error} />
        <Button type="submit" className="w-full" disabled={create.isPending}>
          Create token
        </Button>
      </form>
    </section>
  );
}

type Revoking = { id: number; name: string; company: boolean };

export function ApiTokensPage() {
  const { user } = useAuth();
  const isAdmin = user?.isCompanyAdmin === true;
  const tokens = useApiTokens();
  const company = useCompanyApiTokens(isAdmin);
  const teams = useMyTeams();
  const revoke = useRevokeApiToken();
  const companyRevoke = useCompanyRevokeApiToken();
  const [created, setCreated] = useState<{ token: string; name: string } | null>(null);
  const [revoking, setRevoking] = useState<Revoking | null>(null);
  const teamName = (id: number) => teams.data?.data.find((t) => t.id === id)?.name ?? `team ${id}`;
  const mutation = revoking?.company ? companyRevoke : revoke;

  function confirmRevoke() {
    if (!revoking) return;
    mutation.mutate(
      { params: { id: revoking.id } },
      {
        onSuccess: () => {
          toast.success(`${API_TOKEN_TEXT.revoked}: ${revoking.name}`);
          setRevoking(null);
        },
      },
    );
  }

  const revokeButton = (t: ApiToken, isCompany: boolean) =>
    t.state === 'active' ? (
      <Button
        variant="secondary"
        aria-label={`Revoke ${t.name}`}
        onClick={() => {
          mutation.reset();
          setRevoking({ id: t.id, name: t.name, company: isCompany });
        }}
      >
        Revoke
      </Button>
    ) : null;

  const common = [
    {
      key: 'name',
      header: 'Name',
      render: (t: ApiToken) => (
        <span>
          <span className={`font-medium text-slate-900 dark:text-slate-100 ${wrapClass(t.name)}`}>{t.name}</span>
          <code className="block font-mono text-xs text-slate-500 dark:text-slate-400">{t.hint}…</code>
        </span>
      ),
    },
    { key: 'scope', header: 'Scope', hideOnSmall: true, render: (t: ApiToken) => scopeLabel(t, teamName) },
    { key: 'expires', header: 'Expires', hideOnSmall: true, render: (t: ApiToken) => formatDate(t.expiresAt) },
    { key: 'lastUsed', header: 'Last used', render: lastUsed },
    { key: 'state', header: 'State', render: stateBadge },
  ];

  return (
    <PageLayout title="API tokens" secondaryTitle="Personal tokens for scripts and tools">
      <div className="grid gap-6 xl:grid-cols-3">
        <div className="min-w-0 space-y-6 xl:col-span-2">
          <p className="text-sm text-slate-600 dark:text-slate-300">
            A token acts for you from scripts with <code>Authorization: Bearer</code>. It can read only, or act as you
            in all or some of your teams; it cannot create tokens or change your password. Revoking stops it at once.
          </p>
          <DataTable
            title="Your tokens"
            icon={<KeyRound className="h-5 w-5" />}
            columns={[
              ...common,
              {
                key: 'revoke',
                header: <span className="sr-only">Revoke</span>,
                align: 'right',
                render: (t: ApiToken) => revokeButton(t, false),
              },
            ]}
            rows={tokens.error ? [] : tokens.data}
            rowKey={(t) => t.id}
            loading={tokens.isPending}
            error={errorText(tokens.error)}
            noDataMessage="No tokens yet"
            onRefresh={() => tokens.refetch()}
            page={1}
            totalPages={1}
            onPageChange={() => {}}
          />
          {isAdmin && (
            <DataTable
              title="Your company's tokens"
              icon={<Users className="h-5 w-5" />}
              columns={[
                {
                  key: 'user',
                  header: 'User',
                  render: (t: CompanyApiToken) => <span className="break-all">{t.userEmail}</span>,
                },
                ...common,
                {
                  key: 'revoke',
                  header: <span className="sr-only">Revoke</span>,
                  align: 'right',
                  render: (t: CompanyApiToken) => revokeButton(t, true),
                },
              ]}
              rows={company.error ? [] : company.data}
              rowKey={(t) => t.id}
              loading={company.isPending}
              error={errorText(company.error)}
              noDataMessage="No tokens in your company"
              onRefresh={() => company.refetch()}
              page={1}
              totalPages={1}
              onPageChange={() => {}}
            />
          )}
        </div>
        <CreateTokenCard onCreated={(token, name) => setCreated({ token, name })} />
      </div>
      <Modal open={created !== null} title={`Token ${created?.name ?? ''} created`} onClose={() => setCreated(null)}>
        <p className="text-sm text-slate-700 dark:text-slate-300">{API_TOKEN_TEXT.created}</p>
        <div className="mt-3 flex items-center gap-2">
          <code
            data-testid="new-api-token"
            className="min-w-0 flex-1 break-all rounded bg-slate-100 dark:bg-slate-800 px-2 py-1.5 font-mono text-xs text-slate-900 dark:text-slate-100"
          >
            {created?.token}
          </code>
          {created && <CopyButton label="Copy token" value={created.token} />}
        </div>
        <div className="mt-4 flex justify-end">
          <Button onClick={() => setCreated(null)}>Done</Button>
        </div>
      </Modal>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke ${revoking?.name ?? ''}?`}
        confirmLabel="Revoke"
        variant="danger"
        showClose={false}
        pending={mutation.isPending}
        error={mutation.error}
        errorClassName="mt-3 rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
        onConfirm={confirmRevoke}
        onCancel={() => setRevoking(null)}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          Scripts using this token will be refused from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </PageLayout>
  );
}
