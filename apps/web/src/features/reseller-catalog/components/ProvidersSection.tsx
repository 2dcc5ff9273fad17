/**
 * The catalog screen's providers: the reseller's own clouds, their driver, whether they take VMs, their regions, and a
 * libvirt provider's settings (pool and network names, public addresses, images: ProviderSettingsDialog).
 */
import { useState } from 'react';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { useResellerProviders, useResellerRegions, type ProviderView } from '../api/catalog.ts';
import { ImageDescriptionDialog } from './ImageDescriptionDialog.tsx';
import { ProviderDialog, ProviderRegionsDialog } from './ProviderDialogs.tsx';
import { ProviderSettingsDialog } from './ProviderSettingsDialog.tsx';

const card = 'rounded-lg border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900';

export function ProvidersSection({ mayEdit }: { mayEdit: boolean }) {
  const providers = useResellerProviders();
  const [editing, setEditing] = useState<ProviderView | 'new' | null>(null);
  const [regionsOf, setRegionsOf] = useState<ProviderView | null>(null);
  const [settingsOf, setSettingsOf] = useState<ProviderView | null>(null);
  // An image of a provider's settings to describe: the regions list's Describe dialog (decision 0018).
  const regions = useResellerRegions();
  const [describing, setDescribing] = useState<string | null>(null);
  const described = describing ? regions.data?.descriptions.find((d) => d.image === describing) : undefined;
  const regionName = new Map(providers.data?.regions.map((r) => [r.id, r.name]));

  return (
    <section className={`${card} mb-6`} aria-labelledby="providers-title">
      <div className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-200 px-4 py-3 dark:border-slate-700">
        <div>
          <h2 id="providers-title" className="font-semibold text-slate-900 dark:text-slate-100">
            Providers
          </h2>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            Once you have a provider of your own, your customers create VMs on your providers only, in the regions they
            serve.
          </p>
        </div>
        {mayEdit && <Button onClick={() => setEditing('new')}>New provider</Button>}
      </div>
      {providers.isPending ? (
        <div className="p-6">
          <Spinner />
        </div>
      ) : providers.error ? (
        <ErrorText error={providers.error} className="p-4 text-sm text-red-600" />
      ) : providers.data.providers.length === 0 ? (
        <p className="p-6 text-center text-sm text-slate-500 dark:text-slate-400">
          You run no provider of your own: your customers use the platform's providers.
        </p>
      ) : (
        <ul className="divide-y divide-slate-100 dark:divide-slate-800">
          {providers.data.providers.map((p) => (
            <li
              key={p.id}
              data-provider={p.name}
              className="flex flex-wrap items-center justify-between gap-3 px-4 py-3"
            >
              <div className="text-sm">
                <div className="font-medium text-slate-900 dark:text-slate-100">
                  {p.name}{' '}
                  <span className="font-normal text-slate-500 dark:text-slate-400">
                    · {p.driver} · {p.enabled ? 'takes new VMs' : 'disabled'}
                  </span>
                </div>
                <div className="text-slate-600 dark:text-slate-300">
                  {p.regionIds.length
                    ? p.regionIds.map((id) => regionName.get(id) ?? `#${id}`).join(', ')
                    : 'Serves no region yet'}
                  {` · ${p.hosts} host${p.hosts === 1 ? '' : 's'} · ${p.vms} VM${p.vms === 1 ? '' : 's'}`}
                </div>
              </div>
              {(mayEdit || p.driver === 'libvirt') && (
                <div className="flex gap-2">
                  {p.driver === 'libvirt' && (
                    <Button variant="secondary" onClick={() => setSettingsOf(p)} aria-label={`Settings of ${p.name}`}>
                      Settings
                    </Button>
                  )}
                  {mayEdit && (
                    <>
                      <Button variant="secondary" onClick={() => setRegionsOf(p)} aria-label={`Regions of ${p.name}`}>
                        Regions
                      </Button>
                      <Button variant="secondary" onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>
                        Edit
                      </Button>
                    </>
                  )}
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {editing && (
        <ProviderDialog {...(editing === 'new' ? {} : { provider: editing })} onClose={() => setEditing(null)} />
      )}
      {settingsOf && (
        <ProviderSettingsDialog
          provider={settingsOf}
          mayEdit={mayEdit}
          onDescribe={(image) => {
            setSettingsOf(null);
            setDescribing(image);
          }}
          onClose={() => setSettingsOf(null)}
        />
      )}
      {described && <ImageDescriptionDialog described={described} onClose={() => setDescribing(null)} />}
      {regionsOf && providers.data && (
        <ProviderRegionsDialog
          provider={regionsOf}
          regions={providers.data.regions}
          onClose={() => setRegionsOf(null)}
        />
      )}
    </section>
  );
}
