/**
 * /reseller/billing: the billing webhook (URL, enabled; the signing secret is shown once, with copy), "send now" for a
 * month, and the delivery log with "retry now" for a failed delivery. Support staff see it all and change nothing.
 */
import Copy from 'lucide-react/icons/copy';
import Send from 'lucide-react/icons/send';
import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import type { Delivery } from '@portal/contract/billing';
import { Button } from '../../../components/ui/Button.tsx';
import { needsStepUp } from '../../../components/ui/ConfirmDialog.tsx';
import { DataTable, type Column } from '../../../components/ui/DataTable.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { StepUpProof } from '../../../components/ui/StepUpProof.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDateTime, formatMonth, type Revived } from '../../../lib/dates.ts';
import {
  useDeliveries,
  useRetryDelivery,
  useRotateSecret,
  useSaveWebhook,
  useSendNow,
  useWebhook,
} from '../api/webhook.ts';
import { MonthSelect } from '../components/MonthSelect.tsx';
import { lastClosedMonth } from '../components/month.ts';

const input =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900';
const card = 'rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900';

function SecretOnce({ secret }: { secret: string }) {
  return (
    <div
      role="status"
      className="mt-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm dark:border-amber-700 dark:bg-amber-950"
    >
      <p className="font-medium text-amber-900 dark:text-amber-200">
        Signing secret (shown once: store it in your billing system now)
      </p>
      <div className="mt-2 flex items-center gap-2">
        <code className="break-all rounded bg-white px-2 py-1 dark:bg-slate-900" data-testid="webhook-secret">
          {secret}
        </code>
        <button
          type="button"
          aria-label="Copy secret"
          onClick={() =>
            void navigator.clipboard.writeText(secret).then(() => toast.success('Secret copied to clipboard'))
          }
          className="rounded p-1 text-slate-500 dark:text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800"
        >
          <Copy className="h-4 w-4" />
        </button>
      </div>
    </div>
  );
}

function WebhookCard({ canWrite }: { canWrite: boolean }) {
  const webhook = useWebhook();
  const [secret, setSecret] = useState<string | null>(null);
  if (webhook.isPending) return null;
  // Keyed by the stored webhook, so the form starts from what the server has after every save.
  return (
    <WebhookForm
      key={webhook.data ? String(webhook.data.updatedAt) : 'none'}
      stored={webhook.data ?? null}
      canWrite={canWrite}
      secret={secret}
      onSecret={setSecret}
    />
  );
}

function WebhookForm({
  stored,
  canWrite,
  secret,
  onSecret: setSecret,
}: {
  stored: { url: string; enabled: boolean } | null;
  canWrite: boolean;
  secret: string | null;
  onSecret: (secret: string) => void;
}) {
  const save = useSaveWebhook();
  const rotate = useRotateSecret();
  const rotateNow = () =>
    rotate.mutate(undefined, {
      onSuccess: (res) => {
        toast.success(res.message);
        setSecret(res.data.secret);
      },
    });
  const [url, setUrl] = useState(stored?.url ?? '');
  const [enabled, setEnabled] = useState(stored?.enabled ?? true);

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate(
      { body: { url, enabled } },
      {
        onSuccess: (res) => {
          toast.success(res.message);
          if (res.data.secret) setSecret(res.data.secret);
        },
      },
    );
  }

  return (
    <section className={card} aria-labelledby="webhook-title">
      <h2 id="webhook-title" className="text-base font-semibold">
        Billing webhook
      </h2>
      <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">
        Each company's usage of a month is POSTed here once the month has closed (event usage.month), signed with
        HMAC-SHA256 in the X-Portal-Signature header.
      </p>
      <form onSubmit={submit} className="mt-3 space-y-3">
        <label className="block text-sm font-medium">
          URL
          <input
            className={input}
            type="url"
            value={url}
            placeholder="https://billing.example.com/hooks/portal"
            disabled={!canWrite}
            onChange={(e) => setUrl(e.target.value)}
            required
          />
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={enabled}
            disabled={!canWrite}
            onChange={(e) => setEnabled(e.target.checked)}
          />
          Enabled
        </label>
        {save.error && <p className="text-sm text-red-600">{errorMessage(save.error)}</p>}
        {canWrite && (
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={save.isPending}>
              Save webhook
            </Button>
            {stored && (
              <Button variant="secondary" disabled={rotate.isPending} onClick={rotateNow}>
                Generate a new secret
              </Button>
            )}
          </div>
        )}
        {/* A new secret needs a recent proof of the owner's factor (docs/two-factor.md "Step-up"). */}
        {needsStepUp(rotate.error) ? (
          <StepUpProof onProved={rotateNow} />
        ) : (
          rotate.error && <p className="text-sm text-red-600 dark:text-red-400">{errorMessage(rotate.error)}</p>
        )}
      </form>
      {secret && <SecretOnce secret={secret} />}
    </section>
  );
}

function SendNowCard() {
  const [month, setMonth] = useState(lastClosedMonth);
  const send = useSendNow();
  return (
    <section className={card} aria-labelledby="send-title">
      <h2 id="send-title" className="text-base font-semibold">
        Send now
      </h2>
      <div className="mt-2 flex flex-wrap items-end gap-3">
        <label className="text-sm font-medium">
          Month
          <MonthSelect className={input} value={month} onChange={setMonth} />
        </label>
        <Button
          disabled={send.isPending}
          onClick={() =>
            send.mutate(
              { body: { month } },
              {
                onSuccess: ({ message, data }) =>
                  toast.success(
                    `${message}: ${data.queued} queued${data.alreadyQueued ? `, ${data.alreadyQueued} already waiting` : ''}`,
                  ),
              },
            )
          }
        >
          <Send className="h-4 w-4" /> Send usage of {formatMonth(month)}
        </Button>
      </div>
      {send.error && <p className="mt-2 text-sm text-red-600">{errorMessage(send.error)}</p>}
    </section>
  );
}

const STATUS_STYLE = {
  pending: 'bg-amber-100 text-amber-800',
  delivered: 'bg-green-100 text-green-800',
  failed: 'bg-red-100 text-red-800',
} as const;

export function BillingPage() {
  const canWrite = useAuth().user?.staffRole === 'owner';
  const [page, setPage] = useState(1);
  const deliveries = useDeliveries(page, 10);
  const retry = useRetryDelivery();
  type Row = Revived<Delivery>;
  const columns: Column<Row>[] = [
    { key: 'id', header: 'Delivery', render: (d) => `#${d.id}` },
    { key: 'event', header: 'Event', render: (d) => d.event, hideOnSmall: true },
    { key: 'company', header: 'Company / month', render: (d) => `${d.companyName ?? '—'} · ${d.month ?? '—'}` },
    {
      key: 'status',
      header: 'Status',
      render: (d) => (
        <span className={`rounded px-2 py-0.5 text-xs font-medium ${STATUS_STYLE[d.status]}`}>{d.status}</span>
      ),
    },
    { key: 'attempts', header: 'Attempts', render: (d) => d.attempts, align: 'right' },
    {
      key: 'last',
      header: 'Last answer',
      render: (d) => d.lastError ?? (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : '—'),
      hideOnSmall: true,
    },
    {
      key: 'when',
      header: 'Delivered / next try',
      render: (d) => formatDateTime(d.deliveredAt ?? d.nextAttemptAt, { utc: true, seconds: true }),
      hideOnSmall: true,
    },
    {
      key: 'retry',
      header: '',
      render: (d) =>
        canWrite && d.status === 'failed' ? (
          <Button
            variant="secondary"
            disabled={retry.isPending}
            onClick={() => retry.mutate({ params: { id: d.id } }, { onSuccess: (res) => toast.success(res.message) })}
          >
            Retry now
          </Button>
        ) : null,
    },
  ];
  return (
    <PageLayout title="Billing" secondaryTitle="Push usage to your billing system">
      <div className="space-y-4">
        <WebhookCard canWrite={canWrite} />
        {canWrite && <SendNowCard />}
        <DataTable
          title="Delivery log"
          columns={columns}
          rows={deliveries.data?.data}
          rowKey={(d) => d.id}
          loading={deliveries.isPending}
          error={deliveries.error ? errorMessage(deliveries.error) : null}
          noDataMessage="No deliveries yet."
          onRefresh={() => deliveries.refetch()}
          page={page}
          totalPages={deliveries.data?.totalPages ?? 0}
          onPageChange={setPage}
        />
      </div>
    </PageLayout>
  );
}
