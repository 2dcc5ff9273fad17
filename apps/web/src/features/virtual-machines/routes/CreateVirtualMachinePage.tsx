/**
 * /createVirtualMachine — the dependent chain of SPEC point 4: name → country → region → image →
 * configuration → provider (auto when one, dropdown when several, a message when none) → copies → team.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { INSTANCE_COUNT_MAX, INSTANCE_COUNT_MIN } from '@portal/contract/constants';
import { ERRORS, TEXT, VALIDATION, withDetail } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { instanceCountSchema, vmNameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { callApi, errorMessage } from '../../../lib/api.ts';
import { useCreateVm } from '../api/vms.ts';

const idOrNull = (v: string) => (v ? Number(v) : null);

/** SPEC point 8 has no helper text for these three lookups; ours follow the catalogue's form. */
const FETCH_COUNTRIES = 'Error fetching countries';
const FETCH_REGIONS = 'Error fetching regions';
const FETCH_PROVIDERS = 'Error fetching providers';

const fetchError = (prefix: string, err: unknown) => (err ? withDetail(prefix, errorMessage(err)) : null);

/** The dependent chain (SPEC point 4), top to bottom: a change clears every field below it. */
const CHAIN = ['country', 'region', 'image', 'configuration', 'provider', 'copies', 'team'] as const;
type ChainStep = (typeof CHAIN)[number];

function Field({ label, children, error }: { label: string; children: (id: string) => ReactNode; error?: string | null | undefined }) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      {children(id)}
      {error && <p className="text-sm text-red-600">{error}</p>}
    </div>
  );
}

const selectClass = 'block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm disabled:bg-slate-100 disabled:text-slate-400';

export function CreateVirtualMachinePage() {
  const navigate = useNavigate();
  const create = useCreateVm();
  const [name, setName] = useState('');
  const [countryId, setCountryId] = useState<number | null>(null);
  const [regionId, setRegionId] = useState<number | null>(null);
  const [image, setImage] = useState('');
  const [configurationId, setConfigurationId] = useState<number | null>(null);
  const [providerId, setProviderId] = useState<number | null>(null);
  const [copies, setCopies] = useState('');
  const [teamId, setTeamId] = useState<number | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);

  const countries = useQuery({ queryKey: ['catalog', 'countries'], queryFn: () => callApi(routes.vms.listCountries) });
  const regions = useQuery({ queryKey: ['catalog', 'regions', countryId], queryFn: () => callApi(routes.vms.listRegions, { params: { id: countryId! } }), enabled: countryId !== null });
  // Keyed by region: a late answer for an earlier region never lands in the list.
  const images = useQuery({ queryKey: ['catalog', 'images', regionId], queryFn: ({ signal }) => callApi(routes.vms.listImages, { params: { id: regionId! }, signal }), enabled: regionId !== null });
  const configurations = useQuery({
    queryKey: ['catalog', 'configurations', regionId, image],
    queryFn: ({ signal }) => callApi(routes.vms.fetchConfigurations, { params: { regionId: regionId! }, query: { image }, signal }),
    enabled: regionId !== null && image !== '',
  });
  const providers = useQuery({
    queryKey: ['catalog', 'providers', regionId, configurationId],
    queryFn: () => callApi(routes.vms.listProviders, { params: { regionId: regionId! }, query: { configurationId: configurationId! } }),
    enabled: regionId !== null && configurationId !== null,
  });
  const teams = useQuery({ queryKey: ['teams', 'list', 'for-vm'], queryFn: () => callApi(routes.teams.list, { query: { page: 1, rowsPerPage: 100 } }) });

  /** Clears every field of the chain below `step`. */
  function clearBelow(step: ChainStep) {
    const below = new Set<ChainStep>(CHAIN.slice(CHAIN.indexOf(step) + 1));
    if (below.has('region')) setRegionId(null);
    if (below.has('image')) setImage('');
    if (below.has('configuration')) setConfigurationId(null);
    if (below.has('provider')) setProviderId(null);
    if (below.has('copies')) setCopies('');
    if (below.has('team')) setTeamId(null);
  }

  // Exactly one provider is chosen for the user; several make a dropdown; none gets a message. A failed
  // fetch shows its error and never reads as "no provider".
  const providerList = providers.error ? undefined : providers.data;
  const providerError = fetchError(FETCH_PROVIDERS, providers.error);
  useEffect(() => {
    if (providerList?.length === 1) setProviderId(providerList[0]!.id);
  }, [providerList]);

  const copiesValid = instanceCountSchema.safeParse(copies).success;

  // Messages of a failed submit go away as soon as the user changes something.
  useEffect(() => {
    setErrors({});
    setFormError(null);
  }, [name, countryId, regionId, image, configurationId, providerId, copies, teamId]);

  function validate(): boolean {
    const next: Record<string, string> = {};
    const parsedName = vmNameSchema.safeParse(name);
    if (!parsedName.success) next.name = parsedName.error.issues[0]!.message;
    if (countryId === null) next.country = VALIDATION.selectCountry;
    if (regionId === null) next.region = VALIDATION.selectRegion;
    if (!image) next.image = VALIDATION.selectImage;
    if (configurationId === null) next.configuration = VALIDATION.selectConfiguration;
    if (!copiesValid) next.copies = copies === '' ? VALIDATION.fillEmptyFields : VALIDATION.copiesRange;
    setErrors(next);
    const incomplete = Object.keys(next).length > 0 || providerId === null;
    setFormError(incomplete ? VALIDATION.fillEmptyFields : null);
    return !incomplete;
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (!validate()) return;
    try {
      await create.mutateAsync({ body: { regionId: regionId!, image, configurationId: configurationId!, providerId: providerId!, name: name.trim(), numberOfInstances: Number(copies), teamId } });
      navigate('/virtualMachines');
    } catch (err) {
      setFormError(errorMessage(err) || ERRORS.createVm);
    }
  }

  return (
    <PageLayout title="Create Virtual Machine" secondaryTitle="Choose where and how big" onBack={() => navigate(-1)}>
      <form onSubmit={(e) => void submit(e)} noValidate className="max-w-2xl space-y-5 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <Field label="Name" error={errors.name}>
          {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="web-1" className={selectClass} />}
        </Field>
        <div className="grid gap-5 sm:grid-cols-2">
          <Field label="Country" error={errors.country ?? fetchError(FETCH_COUNTRIES, countries.error)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={!name.trim()}
                value={countryId ?? ''}
                onChange={(e) => {
                  setCountryId(idOrNull(e.target.value));
                  clearBelow('country');
                }}
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
          <Field label="Region" error={errors.region ?? fetchError(FETCH_REGIONS, regions.error)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={countryId === null}
                value={regionId ?? ''}
                onChange={(e) => {
                  setRegionId(idOrNull(e.target.value));
                  clearBelow('region');
                }}
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
          <Field label="Image" error={errors.image ?? fetchError(ERRORS.fetchImages, images.error)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={regionId === null}
                value={image}
                onChange={(e) => {
                  setImage(e.target.value);
                  clearBelow('image');
                }}
              >
                <option value="">Select an image</option>
                {(images.isFetching ? [] : (images.data ?? [])).map((i) => (
                  <option key={i} value={i}>
                    {i}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Configuration" error={errors.configuration ?? fetchError(ERRORS.fetchConfigurations, configurations.error)}>
            {(id) => (
              <select
                id={id}
                className={selectClass}
                disabled={!image}
                value={configurationId ?? ''}
                onChange={(e) => {
                  setConfigurationId(idOrNull(e.target.value));
                  clearBelow('configuration');
                }}
              >
                <option value="">Select a configuration</option>
                {configurations.data?.map((c) => (
                  <option key={c.id} value={c.id}>
                    {`${c.name} — ${c.cpu} cores, ${c.ram} GB RAM, ${c.disk} GB disk`}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>

        {configurationId !== null && providerError && (
          <p role="alert" className="text-sm text-red-600">
            {providerError}
          </p>
        )}
        {configurationId !== null && providerList && providerList.length === 0 && (
          <p role="alert" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800">
            {TEXT.noProvider}
          </p>
        )}
        {providerList && providerList.length === 1 && <p className="text-sm text-slate-600">Provider: <strong>{providerList[0]!.name}</strong></p>}
        {providerList && providerList.length > 1 && (
          <Field label="Provider">
            {(id) => (
              <select id={id} className={selectClass} value={providerId ?? ''} onChange={(e) => setProviderId(idOrNull(e.target.value))}>
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
          <Field label="Number of copies" error={errors.copies}>
            {(id) => (
              <input
                id={id}
                type="number"
                min={INSTANCE_COUNT_MIN}
                max={INSTANCE_COUNT_MAX}
                className={selectClass}
                disabled={providerId === null}
                value={copies}
                onChange={(e) => setCopies(e.target.value)}
              />
            )}
          </Field>
          <Field label="Team (optional)" error={fetchError(ERRORS.fetchTeams, teams.error)}>
            {(id) => (
              <select id={id} className={selectClass} disabled={!copiesValid} value={teamId ?? ''} onChange={(e) => setTeamId(idOrNull(e.target.value))}>
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

        {formError && (
          <p role="alert" className="text-sm text-red-600">
            {formError}
          </p>
        )}
        <Button type="submit" disabled={create.isPending}>
          Create Virtual Machine
        </Button>
      </form>
    </PageLayout>
  );
}
