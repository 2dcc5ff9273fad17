/**
 * /reseller/branding (issue 13): the reseller's name, logos, sender and support addresses with a live preview,
 * and its custom domains. Owners edit; support staff see the same screen read-only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect } from 'react';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { toast } from 'react-toastify';
import { staffMayWrite } from '@portal/contract/permissions';
import { BRANDING_TEXT, brandingFormSchema, type BrandingForm } from '@portal/contract/reseller-branding';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { LoadFailure } from '../../../components/ui/LoadFailure.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { BrandPreview } from '../components/BrandPreview.tsx';
import { DomainsCard } from '../components/DomainsCard.tsx';

const r = routes.resellerBranding;
const EMPTY: BrandingForm = { name: '', logoUrl: '', tabLogoUrl: '', email: '', supportEmail: '' };

export function BrandingPage() {
  const { user } = useAuth();
  const canEdit = staffMayWrite(user?.staffRole);
  const page = useRouteQuery(r.get);
  const save = useRouteMutation(r.update, { invalidates: [r.get] });
  const form = useForm<BrandingForm>({ resolver: zodResolver(brandingFormSchema), defaultValues: EMPTY });
  const [name, logoUrl, tabLogoUrl] = useWatch({ control: form.control, name: ['name', 'logoUrl', 'tabLogoUrl'] });

  const loaded = page.data?.branding;
  useEffect(() => {
    if (loaded)
      form.reset({
        name: loaded.name,
        logoUrl: loaded.logoUrl ?? '',
        tabLogoUrl: loaded.tabLogoUrl ?? '',
        email: loaded.email ?? '',
        supportEmail: loaded.supportEmail ?? '',
      });
  }, [loaded, form]);

  const onSubmit = form.handleSubmit((body) =>
    save.mutate({ body }, { onSuccess: () => toast.success(BRANDING_TEXT.saved) }),
  );

  if (page.isPending)
    return (
      <PageLayout title={BRANDING_TEXT.pageTitle}>
        <Spinner label="Loading branding" />
      </PageLayout>
    );
  if (page.error)
    return (
      <PageLayout title={BRANDING_TEXT.pageTitle}>
        <LoadFailure
          error={page.error}
          notFound="Reseller not found"
          back={{ to: '/reseller', label: 'Back to the reseller area' }}
          onRetry={() => void page.refetch()}
        />
      </PageLayout>
    );

  return (
    <PageLayout
      title={BRANDING_TEXT.pageTitle}
      secondaryTitle="How your portal looks to your customers, and where it answers"
    >
      <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_minmax(0,26rem)]">
        <div className="space-y-6">
          <FormProvider {...form}>
            <form
              onSubmit={onSubmit}
              noValidate
              aria-label="Branding"
              className="space-y-4 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 sm:p-6"
            >
              <fieldset disabled={!canEdit} className="grid gap-4 sm:grid-cols-2">
                <TextField<BrandingForm> name="name" label="Name (tab title)" required className="sm:col-span-2" />
                <TextField<BrandingForm> name="logoUrl" label="Logo URL" placeholder="https://…/logo.svg" />
                <TextField<BrandingForm> name="tabLogoUrl" label="Tab icon URL" placeholder="https://…/icon.png" />
                <TextField<BrandingForm> name="email" label="Sender address" type="email" placeholder="no-reply@…" />
                <TextField<BrandingForm>
                  name="supportEmail"
                  label="Support address"
                  type="email"
                  placeholder="support@…"
                />
              </fieldset>
              <ErrorText error={save.error} />
              {canEdit ? (
                <Button type="submit" disabled={save.isPending}>
                  Save
                </Button>
              ) : (
                <p className="text-sm text-slate-500 dark:text-slate-400">Your staff role may only view.</p>
              )}
            </form>
          </FormProvider>
          <DomainsCard domains={page.data.domains} canEdit={canEdit} />
        </div>
        <BrandPreview name={name ?? ''} logoUrl={logoUrl} tabLogoUrl={tabLogoUrl} />
      </div>
    </PageLayout>
  );
}
