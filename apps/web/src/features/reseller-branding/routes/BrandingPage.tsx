/**
 * /reseller/branding (issue 13): the reseller's name, logos, sender and support addresses with a live preview,
 * and its custom domains. Owners edit; support staff see the same screen read-only.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useState } from 'react';
import { FormProvider, useForm, useWatch } from 'react-hook-form';
import { toast } from 'react-toastify';
import { staffMayWrite } from '@portal/contract/permissions';
import {
  BRANDING_TEXT,
  brandingFormSchema,
  type BrandAssetKind,
  type BrandingForm,
} from '@portal/contract/reseller-branding';
import { routes } from '@portal/contract/routes';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { LoadFailure } from '../../../components/ui/LoadFailure.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { AccentField } from '../components/AccentField.tsx';
import { AssetUpload } from '../components/AssetUpload.tsx';
import { BrandPreview } from '../components/BrandPreview.tsx';
import { imageLoads } from '../lib/image-loads.ts';
import { DomainsCard } from '../components/DomainsCard.tsx';

const r = routes.resellerBranding;
const EMPTY: BrandingForm = { name: '', logoUrl: '', tabLogoUrl: '', email: '', supportEmail: '', accentColor: '' };
/**
 * A saved brand shows at once in the reseller's own shell (logo, title, accent, tab icon: the session check) and on
 * the address's sign-in screens (issue 25 defect 7), not after a reload.
 */
const BRAND_READS = [r.get, routes.auth.check, r.publicBrand];

export function BrandingPage() {
  const { user } = useAuth();
  const canEdit = staffMayWrite(user?.staffRole);
  const page = useRouteQuery(r.get);
  const save = useRouteMutation(r.update, { invalidates: BRAND_READS });
  const upload = useRouteMutation(r.uploadAsset, { invalidates: BRAND_READS });
  const [checking, setChecking] = useState(false);
  const form = useForm<BrandingForm>({ resolver: zodResolver(brandingFormSchema), defaultValues: EMPTY });
  const [name, logoUrl, tabLogoUrl, accentColor] = useWatch({
    control: form.control,
    name: ['name', 'logoUrl', 'tabLogoUrl', 'accentColor'],
  });

  const loaded = page.data?.branding;
  useEffect(() => {
    if (loaded)
      form.reset(
        {
          name: loaded.name,
          logoUrl: loaded.logoUrl ?? '',
          tabLogoUrl: loaded.tabLogoUrl ?? '',
          email: loaded.email ?? '',
          supportEmail: loaded.supportEmail ?? '',
          accentColor: loaded.accentColor ?? '',
        },
        // An upload refreshes the page's data: what the owner typed and has not saved yet stays.
        { keepDirtyValues: true },
      );
  }, [loaded, form]);

  const onSubmit = form.handleSubmit(async (body) => {
    // A typed logo must load as an image before it is saved, so customers never see a broken-image box.
    setChecking(true);
    const broken = await Promise.all(
      (
        [
          ['logoUrl', BRANDING_TEXT.logoDoesNotLoad],
          ['tabLogoUrl', BRANDING_TEXT.iconDoesNotLoad],
        ] as const
      ).map(async ([field, message]) => {
        const url = body[field]?.trim();
        const ok = !url || (await imageLoads(url));
        if (!ok) form.setError(field, { message });
        return !ok;
      }),
    );
    setChecking(false);
    if (broken.some(Boolean)) return;
    save.mutate({ body }, { onSuccess: () => toast.success(BRANDING_TEXT.saved) });
  });

  const uploadAsset = (kind: BrandAssetKind) => (body: { data: string; fileName: string; contentType: string }) =>
    upload.mutateAsync({ params: { kind }, body }).then((res) => {
      toast.success(res.message);
      const field = kind === 'logo' ? 'logoUrl' : 'tabLogoUrl';
      const url = res.data.branding[field] ?? '';
      // Only the uploaded field changes: anything else typed and not yet saved stays in the form.
      form.resetField(field, { defaultValue: url });
    });

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
                <div className="space-y-2">
                  <TextField<BrandingForm> name="logoUrl" label="Logo URL" placeholder="https://…/logo.svg" />
                  <AssetUpload kind="logo" label="Upload logo" disabled={!canEdit} onUpload={uploadAsset('logo')} />
                </div>
                <div className="space-y-2">
                  <TextField<BrandingForm> name="tabLogoUrl" label="Tab icon URL" placeholder="https://…/icon.png" />
                  <AssetUpload kind="icon" label="Upload tab icon" disabled={!canEdit} onUpload={uploadAsset('icon')} />
                </div>
                <AccentField />
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
                <Button type="submit" disabled={save.isPending || checking}>
                  Save
                </Button>
              ) : (
                <p className="text-sm text-slate-500 dark:text-slate-400">Your staff role may only view.</p>
              )}
            </form>
          </FormProvider>
          <DomainsCard domains={page.data.domains} canEdit={canEdit} />
        </div>
        <BrandPreview name={name ?? ''} logoUrl={logoUrl} tabLogoUrl={tabLogoUrl} accentColor={accentColor} />
      </div>
    </PageLayout>
  );
}
