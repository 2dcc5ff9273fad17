/**
 * The custom domains the portal answers on for this reseller: add, verify, remove, choose the primary one (mailed
 * links use it). A new domain is pending until the owner publishes its DNS TXT record and presses Verify (issue 21);
 * only verified domains carry the brand. Owners change them; support staff see the list only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useQueryClient } from '@tanstack/react-query';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { BRANDING_TEXT, hostSchema, type ResellerDomain } from '@portal/contract/reseller-branding';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { CopyButton } from '../../../components/ui/CopyButton.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { invalidateRoutes } from '../../../lib/route-keys.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { formatDateTime } from '../../../lib/dates.ts';

const r = routes.resellerBranding;
const addDomainForm = z.object({ host: hostSchema });
type AddDomainForm = z.input<typeof addDomainForm>;

/** The domain as the screen shows it (dates may arrive revived). */
type Domain = Omit<ResellerDomain, 'lastCheckedAt'> & { lastCheckedAt: string | Date | null };

function StateBadge({ state }: { state: Domain['state'] }) {
  return state === 'verified' ? (
    <span className="rounded-full bg-emerald-50 dark:bg-emerald-950 px-2 py-0.5 text-xs font-medium text-emerald-800 dark:text-emerald-300">
      {BRANDING_TEXT.stateVerified}
    </span>
  ) : (
    <span className="rounded-full bg-amber-50 dark:bg-amber-950 px-2 py-0.5 text-xs font-medium text-amber-800 dark:text-amber-300">
      {BRANDING_TEXT.statePending}
    </span>
  );
}

/** The TXT record to publish, each part copyable, and why the last check failed. */
function RecordToPublish({ domain }: { domain: Domain }) {
  const parts = [
    [BRANDING_TEXT.recordName, domain.record.name],
    [BRANDING_TEXT.recordValue, domain.record.value],
  ] as const;
  return (
    <div className="mt-2 w-full rounded-md border border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800/60 p-3 text-sm">
      <p className="text-slate-700 dark:text-slate-300">{BRANDING_TEXT.recordHeading}</p>
      <dl className="mt-2 grid grid-cols-[auto_1fr_auto] items-center gap-x-3 gap-y-1">
        {parts.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="text-slate-500 dark:text-slate-400">{label}</dt>
            <dd className="min-w-0 break-all font-mono text-slate-900 dark:text-slate-100">{value}</dd>
            <dd>
              <CopyButton label={`record ${label.toLowerCase()}`} value={value} />
            </dd>
          </div>
        ))}
      </dl>
      {domain.lastCheckError && (
        <p className="mt-2 text-red-700 dark:text-red-400" role="status">
          {BRANDING_TEXT.lastCheck}
          {domain.lastCheckedAt ? ` (${formatDateTime(domain.lastCheckedAt)})` : ''}: {domain.lastCheckError}
        </p>
      )}
    </div>
  );
}

export function DomainsCard({ domains, canEdit }: { domains: readonly Domain[]; canEdit: boolean }) {
  const queryClient = useQueryClient();
  const add = useRouteMutation(r.addDomain, { invalidates: [r.get] });
  const remove = useRouteMutation(r.removeDomain, { invalidates: [r.get] });
  const primary = useRouteMutation(r.setPrimaryDomain, { invalidates: [r.get] });
  const verify = useRouteMutation(r.verifyDomain, { invalidates: [r.get] });
  const form = useForm<AddDomainForm>({ resolver: zodResolver(addDomainForm), defaultValues: { host: '' } });
  const busy = add.isPending || remove.isPending || primary.isPending || verify.isPending;
  // A check that found no record (409) shows on its row, with the stored reason; other failures show here.
  const verifyError = verify.error?.status === 409 ? null : verify.error;
  const lastError = add.error ?? remove.error ?? primary.error ?? verifyError ?? null;

  const onAdd = form.handleSubmit(({ host }) =>
    add.mutate(
      { body: { host } },
      {
        onSuccess: () => {
          form.reset({ host: '' });
          toast.success(BRANDING_TEXT.domainAdded);
        },
      },
    ),
  );

  return (
    <section
      aria-labelledby="domains-heading"
      className="space-y-4 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 sm:p-6"
    >
      <div>
        <h2 id="domains-heading" className="text-lg font-semibold text-slate-900 dark:text-slate-100">
          Custom domains
        </h2>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          Point a domain's DNS at the portal and prove it is yours with a TXT record; its sign-in page and mails then
          carry your brand. Links in mails use the primary domain.
        </p>
      </div>
      {domains.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No custom domains yet.</p>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-700" aria-label="Domains">
          {domains.map((d) => (
            <li key={d.host} className="flex flex-wrap items-center gap-2 py-3" aria-label={d.host}>
              <span className="min-w-0 flex-1 break-all font-mono text-sm text-slate-800 dark:text-slate-200">
                {d.host}
              </span>
              <StateBadge state={d.state} />
              {d.isPrimary && (
                <span className="rounded-full bg-brand-50 dark:bg-brand-950 px-2 py-0.5 text-xs font-medium text-brand-700 dark:text-brand-300">
                  Primary
                </span>
              )}
              {canEdit && d.state === 'pending' && (
                <Button
                  variant="primary"
                  disabled={busy}
                  aria-label={`Verify ${d.host}`}
                  onClick={() =>
                    verify.mutate(
                      { params: { host: d.host } },
                      {
                        onSuccess: () => toast.success(BRANDING_TEXT.domainVerified),
                        // A failed check is stored with its reason: show it on the row too.
                        onError: () => void invalidateRoutes(queryClient, r.get),
                      },
                    )
                  }
                >
                  {BRANDING_TEXT.verifyButton}
                </Button>
              )}
              {canEdit && d.state === 'verified' && !d.isPrimary && (
                <Button
                  variant="ghost"
                  disabled={busy}
                  onClick={() =>
                    primary.mutate(
                      { params: { host: d.host } },
                      { onSuccess: () => toast.success(BRANDING_TEXT.primarySet) },
                    )
                  }
                >
                  {/* The name says which domain ("Make <host> primary"); the visible words are part of it (axe). */}
                  <span>
                    Make<span className="sr-only"> {d.host}</span> primary
                  </span>
                </Button>
              )}
              {canEdit && (
                <Button
                  variant="secondary"
                  disabled={busy}
                  aria-label={`Remove ${d.host}`}
                  onClick={() =>
                    remove.mutate(
                      { params: { host: d.host } },
                      { onSuccess: () => toast.success(BRANDING_TEXT.domainRemoved) },
                    )
                  }
                >
                  Remove
                </Button>
              )}
              {d.state === 'pending' && <RecordToPublish domain={d} />}
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <FormProvider {...form}>
          {/* Top-aligned, the button level with the input (past the label's 1.5rem): aligned at the bottom it dropped
              below the input when the field's error showed (issue 25 defect 9). */}
          <form onSubmit={onAdd} className="flex flex-wrap items-start gap-2" noValidate>
            <TextField<AddDomainForm>
              name="host"
              label="New domain"
              placeholder="portal.example.com"
              className="min-w-[16rem] flex-1"
            />
            <Button type="submit" disabled={busy} className="sm:mt-6">
              Add domain
            </Button>
          </form>
        </FormProvider>
      )}
      <ErrorText error={lastError} />
    </section>
  );
}
