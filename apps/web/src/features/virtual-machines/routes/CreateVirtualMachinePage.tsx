/**
 * /createVirtualMachine — the dependent chain of SPEC point 4: name → country → region → image →
 * configuration → provider (auto when one, dropdown when several, a message when none) → copies → team.
 * The form is react-hook-form over the contract's createVmBodySchema (plus the country, which only narrows
 * the regions); the schema's messages for unchosen lists become the spec's "Please select …" texts.
 * Issue 25 item 3: the image and the configuration are chosen on cards (radio groups named Image and
 * Configuration) with what each image is and each size's prices; a size that cannot be placed in the region now is
 * shown disabled with why; copies start at 1; a cost summary follows the copies (docs/virtual-machines.md).
 */
import { zodResolver } from '@hookform/resolvers/zod';
import ExternalLink from 'lucide-react/icons/external-link';
import { useEffect, useId, type ReactNode } from 'react';
import { useForm, useWatch, type FieldPath, type Resolver } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import { z } from 'zod';
import { idSchema } from '@portal/contract/common';
import { INSTANCE_COUNT_MAX, INSTANCE_COUNT_MIN } from '@portal/contract/constants';
import { ERRORS, SSH_KEY_TEXT, TEXT, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { instanceCountSchema } from '@portal/contract/validation';
import { createVmBodySchema } from '@portal/contract/virtual-machines';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';
import { useBack } from '../../../lib/use-back.ts';
import { useCreateVm, useSshKeyChoices } from '../api/vms.ts';
import { CostSummary } from '../components/create/CostSummary.tsx';
import { imageCards, sizeCards } from '../components/create/catalog-cards.tsx';
import { RadioCards } from '../components/create/RadioCards.tsx';

/** SPEC point 8 has no helper text for these three lookups; ours follow the catalogue's form. */
const FETCH_COUNTRIES = 'Error fetching countries';
const FETCH_REGIONS = 'Error fetching regions';
const FETCH_PROVIDERS = 'Error fetching providers';

/** What the screen holds: select and input values as strings ('' = nothing chosen), as the DOM gives them. */
interface CreateVmForm {
  name: string;
  countryId: string;
  regionId: string;
  image: string;
  configurationId: string;
  providerId: string;
  numberOfInstances: string;
  teamId: string;
  /** The chosen stored keys' ids (issue 23 item 5). */
  sshKeyIds: string[];
  userData: string;
}
type ChainField = Exclude<FieldPath<CreateVmForm>, 'name' | 'sshKeyIds' | `sshKeyIds.${number}` | 'userData'>;

const createVmFormSchema = createVmBodySchema.extend({
  countryId: idSchema,
  teamId: z.preprocess((v) => (v === '' ? null : v), createVmBodySchema.shape.teamId),
  // None chosen and an empty text are left out of the request.
  sshKeyIds: z.preprocess(
    (v) => (Array.isArray(v) && v.length > 0 ? v.map(Number) : undefined),
    createVmBodySchema.shape.sshKeyIds,
  ),
  userData: z.preprocess((v) => (v === '' ? undefined : v), createVmBodySchema.shape.userData),
});
type CreateVmValues = z.output<typeof createVmFormSchema>;

/** The dependent chain (SPEC point 4), top to bottom: a change clears every field below it. */
const CHAIN: readonly ChainField[] = [
  'countryId',
  'regionId',
  'image',
  'configurationId',
  'providerId',
  'numberOfInstances',
  'teamId',
];

/** The fields SPEC's 'Please fill in empty fields' is about: all but the optional team. */
const REQUIRED = [
  'name',
  'countryId',
  'regionId',
  'image',
  'configurationId',
  'providerId',
  'numberOfInstances',
] as const;

/** An unchosen list says which list (the contract's id/image messages are for API clients). */
const UNCHOSEN: Partial<Record<ChainField, string>> = {
  countryId: VALIDATION.selectCountry,
  regionId: VALIDATION.selectRegion,
  image: VALIDATION.selectImage,
  configurationId: VALIDATION.selectConfiguration,
};

const contractResolver = zodResolver(createVmFormSchema) as unknown as Resolver<CreateVmForm, unknown, CreateVmValues>;
const resolver: Resolver<CreateVmForm, unknown, CreateVmValues> = async (values, context, options) => {
  const result = await contractResolver(values, context, options);
  for (const [field, message] of Object.entries(UNCHOSEN) as [ChainField, string][]) {
    if (result.errors[field]) result.errors[field] = { type: 'required', message };
  }
  if (result.errors.numberOfInstances && values.numberOfInstances === '')
    result.errors.numberOfInstances = { type: 'required', message: VALIDATION.fillEmptyFields };
  return result;
};

/** Copies start at one (issue 25: a blank count made every create ask for it). */
const DEFAULT_COPIES = '1';

const EMPTY: CreateVmForm = {
  name: '',
  countryId: '',
  regionId: '',
  image: '',
  configurationId: '',
  providerId: '',
  numberOfInstances: DEFAULT_COPIES,
  teamId: '',
  sshKeyIds: [],
  userData: '',
};

/** Why a list of the chain is empty: the reseller offers nothing there (issue 25: an empty dropdown said nothing). */
const NO_IMAGES = 'No images are offered in this region. Choose another region.';
const NO_CONFIGURATIONS = 'No sizes are offered for this image in this region. Choose another image or region.';
const NONE_PLACEABLE = 'None of these sizes can be created in this region right now. Choose another region.';

function Field({
  label,
  children,
  error,
  hint,
}: {
  label: string;
  children: (id: string) => ReactNode;
  error?: string | null | undefined;
  /** Shown under the field when there is no error. */
  hint?: string | null | undefined;
}) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
        {label}
      </label>
      {children(id)}
      {error ? (
        <p className="text-sm text-red-600 dark:text-red-400">{error}</p>
      ) : (
        hint && (
          <p role="status" className="text-sm text-amber-800 dark:text-amber-200">
            {hint}
          </p>
        )
      )}
    </div>
  );
}

const selectClass =
  'block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 text-sm disabled:bg-slate-100 dark:disabled:bg-slate-800 disabled:text-slate-400';

/**
 * The stored SSH keys to install (issue 23 item 5): a checkbox per key with its fingerprint, and a way to the
 * keys screen. The portal's own key and password are made for every machine as before.
 */
export function SshKeyChoice({
  keys,
  chosen,
  error,
  onChange,
}: {
  keys: ReturnType<typeof useSshKeyChoices>;
  chosen: string[];
  error: string | undefined;
  onChange: (ids: string[]) => void;
}) {
  const helpId = useId();
  return (
    <fieldset className="space-y-2" aria-describedby={helpId}>
      <legend className="text-sm font-medium text-slate-700 dark:text-slate-300">{SSH_KEY_TEXT.chooseLabel}</legend>
      <p id={helpId} className="text-xs text-slate-500 dark:text-slate-400">
        {SSH_KEY_TEXT.chooseHelp}
      </p>
      {keys.error ? (
        <ErrorText error={keys.error} />
      ) : keys.data?.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-300">{SSH_KEY_TEXT.noKeysToChoose}</p>
      ) : (
        <ul className="space-y-1">
          {keys.data?.map((k) => {
            const value = String(k.id);
            return (
              <li key={k.id}>
                <label className="flex items-start gap-2 rounded-md px-1 py-1 text-sm hover:bg-slate-50 dark:hover:bg-slate-800">
                  <input
                    type="checkbox"
                    className="mt-0.5 h-4 w-4 shrink-0 accent-brand-600"
                    checked={chosen.includes(value)}
                    onChange={(e) =>
                      onChange(e.target.checked ? [...chosen, value] : chosen.filter((id) => id !== value))
                    }
                  />
                  <span className="min-w-0">
                    <span className="font-medium text-slate-900 dark:text-slate-100">{k.name}</span>
                    <span className="block break-all font-mono text-xs text-slate-500 dark:text-slate-400">
                      {k.fingerprint}
                    </span>
                  </span>
                </label>
              </li>
            );
          })}
        </ul>
      )}
      {error && <p className="text-sm text-red-600 dark:text-red-400">{error}</p>}
      {/* In a new tab, so what is filled in here stays; the list is read again when this tab is back in front. */}
      <Link
        to="/sshKeys"
        target="_blank"
        rel="noopener"
        className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 underline hover:text-brand-800 dark:text-brand-300"
      >
        {SSH_KEY_TEXT.manageKeys}
        <ExternalLink className="h-3.5 w-3.5" aria-hidden />
        <span className="sr-only">(opens in a new tab)</span>
      </Link>
    </fieldset>
  );
}

export function CreateVirtualMachinePage() {
  const navigate = useNavigate();
  const back = useBack('/virtualMachines');
  const create = useCreateVm();
  // Errors are shown after a submit and go away at the next change (no re-validation while typing).
  const form = useForm<CreateVmForm, unknown, CreateVmValues>({
    resolver,
    defaultValues: EMPTY,
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
  });
  const { name, countryId, regionId, image, configurationId, providerId, numberOfInstances, teamId, sshKeyIds } =
    useWatch({ control: form.control });
  const errors = form.formState.errors;
  const resetCreate = create.reset;

  const countries = useRouteQuery(routes.vms.listCountries);
  const regions = useRouteQuery(
    routes.vms.listRegions,
    { params: { id: Number(countryId) } },
    { enabled: countryId !== '' },
  );
  // Keyed by region: a late answer for an earlier region never lands in the list.
  const images = useRouteQuery(
    routes.vms.listImages,
    { params: { id: Number(regionId) } },
    { enabled: regionId !== '' },
  );
  // What each image is (OS and version, login, minimum disk: decision 0018); the list itself stays listImages'.
  const imageDetails = useRouteQuery(
    routes.vms.listImageDetails,
    { params: { id: Number(regionId) } },
    { enabled: regionId !== '' },
  );
  const configurations = useRouteQuery(
    routes.vms.fetchConfigurations,
    { params: { regionId: Number(regionId) }, query: { image } },
    { enabled: regionId !== '' && image !== '' },
  );
  const providers = useRouteQuery(
    routes.vms.listProviders,
    { params: { regionId: Number(regionId) }, query: { configurationId: Number(configurationId) } },
    { enabled: regionId !== '' && configurationId !== '' },
  );
  const teams = useRouteQuery(routes.teams.list, { query: { page: 1, rowsPerPage: 100 } });
  const sshKeys = useSshKeyChoices();

  // Messages of a failed submit go away as soon as the user changes something.
  useEffect(() => {
    return form.subscribe({
      formState: { values: true },
      callback: () => {
        form.clearErrors();
        resetCreate();
      },
    });
  }, [form, resetCreate]);

  /** Sets one list of the chain (country to configuration) and clears every field below it (copies back to 1). */
  function choose(field: ChainField, value: string) {
    form.setValue(field, value);
    for (const below of CHAIN.slice(CHAIN.indexOf(field) + 1))
      form.setValue(below, below === 'numberOfInstances' ? DEFAULT_COPIES : '');
  }

  // Exactly one provider is chosen for the user; several make a dropdown; none gets a message. A failed
  // fetch shows its error and never reads as "no provider".
  const providerList = providers.error ? undefined : providers.data;
  const providerError = errorText(providers.error, FETCH_PROVIDERS);
  useEffect(() => {
    if (providerList?.length === 1) form.setValue('providerId', String(providerList[0]!.id));
  }, [providerList, form]);

  const copiesValid = instanceCountSchema.safeParse(numberOfInstances).success;
  const sizes = configurations.isFetching ? undefined : configurations.data;
  const chosenSize = sizes?.find((c) => String(c.id) === configurationId);
  const imageNames = images.isFetching ? undefined : images.data;

  const onSubmit = form.handleSubmit(({ countryId: _country, ...body }) =>
    create.mutate({ body }, { onSuccess: () => navigate('/virtualMachines') }),
  );
  // A missing provider has no field of its own: the form-wide message covers it. It says "empty", so it shows
  // only when a required field is: 11 copies is out of range, not empty, and says so under its field alone.
  const watched = { name, countryId, regionId, image, configurationId, providerId, numberOfInstances };
  const anyEmpty = REQUIRED.some((field) => !watched[field]?.trim());
  const formError =
    Object.keys(errors).length > 0 && anyEmpty
      ? VALIDATION.fillEmptyFields
      : create.error
        ? errorMessage(create.error) || ERRORS.createVm
        : null;

  return (
    <PageLayout title="Create Virtual Machine" secondaryTitle="Choose where and how big" onBack={back}>
      <form
        onSubmit={(e) => void onSubmit(e)}
        noValidate
        className="max-w-3xl space-y-5 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-6 shadow-sm"
      >
        <Field label="Name" error={errors.name?.message}>
          {(id) => <input id={id} {...form.register('name')} placeholder="web-1" className={selectClass} />}
        </Field>
        <div className="grid gap-5 sm:grid-cols-2">
          <Field label="Country" error={errors.countryId?.message ?? errorText(countries.error, FETCH_COUNTRIES)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={!name?.trim()}
                value={countryId}
                onChange={(e) => choose('countryId', e.target.value)}
              >
                <option value="">Select a country</option>
                {countries.data?.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Region" error={errors.regionId?.message ?? errorText(regions.error, FETCH_REGIONS)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={countryId === ''}
                value={regionId}
                onChange={(e) => choose('regionId', e.target.value)}
              >
                <option value="">Select a region</option>
                {regions.data?.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>

        <RadioCards
          label="Image"
          cards={imageCards(imageNames ?? [], imageDetails.data)}
          value={image ?? ''}
          onChange={(v) => choose('image', v)}
          error={errors.image?.message ?? errorText(images.error, ERRORS.fetchImages)}
          hint={regionId !== '' && imageNames?.length === 0 ? NO_IMAGES : null}
          placeholder={
            regionId === ''
              ? 'Choose a region to see its images.'
              : !imageNames && !images.error
                ? 'Loading images…'
                : null
          }
        />
        <RadioCards
          label="Configuration"
          cards={sizeCards(sizes ?? [])}
          value={configurationId ?? ''}
          onChange={(v) => choose('configurationId', v)}
          error={errors.configurationId?.message ?? errorText(configurations.error, ERRORS.fetchConfigurations)}
          hint={
            image === '' || !sizes
              ? null
              : sizes.length === 0
                ? NO_CONFIGURATIONS
                : sizes.every((c) => !c.available)
                  ? NONE_PLACEABLE
                  : null
          }
          placeholder={
            !image
              ? 'Choose an image to see the sizes and their prices.'
              : !sizes && !configurations.error
                ? 'Loading sizes…'
                : null
          }
        />

        {configurationId !== '' && providerError && (
          <p role="alert" className="text-sm text-red-600 dark:text-red-400">
            {providerError}
          </p>
        )}
        {configurationId !== '' && providerList && providerList.length === 0 && (
          <p
            role="alert"
            className="rounded-md bg-amber-50 dark:bg-amber-950/40 px-3 py-2 text-sm text-amber-800 dark:text-amber-200"
          >
            {TEXT.noProvider}
          </p>
        )}
        {providerList && providerList.length === 1 && (
          <p className="text-sm text-slate-600 dark:text-slate-300">
            Provider: <strong>{providerList[0]!.name}</strong>
          </p>
        )}
        {providerList && providerList.length > 1 && (
          <Field label="Provider">
            {(id) => (
              <select
                id={id}
                className={selectClass}
                value={providerId}
                onChange={(e) => form.setValue('providerId', e.target.value)}
              >
                <option value="">Select a provider</option>
                {providerList.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}

        <div className="grid gap-5 sm:grid-cols-2">
          <Field label="Number of copies" error={errors.numberOfInstances?.message}>
            {(id) => (
              <input
                id={id}
                type="number"
                min={INSTANCE_COUNT_MIN}
                max={INSTANCE_COUNT_MAX}
                className={selectClass}
                disabled={providerId === ''}
                value={numberOfInstances}
                onChange={(e) => form.setValue('numberOfInstances', e.target.value)}
              />
            )}
          </Field>
          <Field label="Team (optional)" error={errorText(teams.error, ERRORS.fetchTeams)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={providerId === '' || !copiesValid}
                value={teamId}
                onChange={(e) => form.setValue('teamId', e.target.value)}
              >
                <option value="">No team</option>
                {teams.data?.data.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>

        <CostSummary size={chosenSize} copies={copiesValid ? Number(numberOfInstances) : null} />

        <SshKeyChoice
          keys={sshKeys}
          chosen={sshKeyIds ?? []}
          error={errors.sshKeyIds?.message}
          onChange={(ids) => form.setValue('sshKeyIds', ids)}
        />
        <Field label={SSH_KEY_TEXT.userDataLabel} error={errors.userData?.message}>
          {(id) => (
            <>
              <textarea
                id={id}
                rows={5}
                spellCheck={false}
                {...form.register('userData')}
                placeholder={'#cloud-config\npackages:\n  - nginx'}
                aria-describedby={`${id}-help`}
                className={`${selectClass} font-mono text-xs`}
              />
              <p id={`${id}-help`} className="text-xs text-slate-500 dark:text-slate-400">
                {SSH_KEY_TEXT.userDataHelp}
              </p>
            </>
          )}
        </Field>

        {formError && <ErrorText error={formError} />}
        <Button type="submit" disabled={create.isPending}>
          Create Virtual Machine
        </Button>
      </form>
    </PageLayout>
  );
}
