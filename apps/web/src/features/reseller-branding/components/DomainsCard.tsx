/**
 * The custom domains the portal answers on for this reseller: add, remove, choose the primary one (mailed links
 * use it). Owners change them; support staff see the list only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { FormProvider, useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { BRANDING_TEXT, hostSchema } from '@portal/contract/reseller-branding';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';

const r = routes.resellerBranding;
const addDomainForm = z.object({ host: hostSchema });
type AddDomainForm = z.input<typeof addDomainForm>;

export function DomainsCard({
  domains,
  canEdit,
}: {
  domains: readonly { host: string; isPrimary: boolean }[];
  canEdit: boolean;
}) {
  const add = useRouteMutation(r.addDomain, { invalidates: [r.get] });
  const remove = useRouteMutation(r.removeDomain, { invalidates: [r.get] });
  const primary = useRouteMutation(r.setPrimaryDomain, { invalidates: [r.get] });
  const form = useForm<AddDomainForm>({ resolver: zodResolver(addDomainForm), defaultValues: { host: '' } });
  const busy = add.isPending || remove.isPending || primary.isPending;

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
          Point a domain's DNS at the portal; its sign-in page and mails then carry your brand. Links in mails use the
          primary domain.
        </p>
      </div>
      {domains.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No custom domains yet.</p>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-700" aria-label="Domains">
          {domains.map((d) => (
            <li key={d.host} className="flex flex-wrap items-center gap-2 py-2">
              <span className="flex-1 font-mono text-sm text-slate-800 dark:text-slate-200">{d.host}</span>
              {d.isPrimary ? (
                <span className="rounded-full bg-brand-50 dark:bg-brand-950 px-2 py-0.5 text-xs font-medium text-brand-700 dark:text-brand-300">
                  Primary
                </span>
              ) : (
                canEdit && (
                  <Button
                    variant="ghost"
                    disabled={busy}
                    aria-label={`Make ${d.host} primary`}
                    onClick={() =>
                      primary.mutate(
                        { params: { host: d.host } },
                        { onSuccess: () => toast.success(BRANDING_TEXT.primarySet) },
                      )
                    }
                  >
                    Make primary
                  </Button>
                )
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
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <FormProvider {...form}>
          <form onSubmit={onAdd} className="flex flex-wrap items-end gap-2" noValidate>
            <TextField<AddDomainForm>
              name="host"
              label="New domain"
              placeholder="portal.example.com"
              className="min-w-[16rem] flex-1"
            />
            <Button type="submit" disabled={busy}>
              Add domain
            </Button>
          </form>
        </FormProvider>
      )}
      <ErrorText error={add.error ?? remove.error ?? primary.error} />
    </section>
  );
}
