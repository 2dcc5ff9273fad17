/**
 * /reseller/catalog: the sizes the reseller offers and at what price, its storage prices (snapshots, backups per
 * GB-month), its own providers and the regions they serve, and the images its customers see in each region.
 */
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { useMayEdit, useResellerRegions, useResellerSizes } from '../api/catalog.ts';
import { ProvidersSection } from '../components/ProvidersSection.tsx';
import { RegionImages } from '../components/RegionImages.tsx';
import { SizeRow } from '../components/SizeRow.tsx';
import { StoragePricesSection } from '../components/StoragePricesSection.tsx';
import { ScrollRegion } from '../../../components/ui/ScrollRegion.tsx';

const th = 'px-4 py-2.5 font-medium';
const card = 'rounded-lg border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900';

export function CatalogPage() {
  const sizes = useResellerSizes();
  const regions = useResellerRegions();
  const mayEdit = useMayEdit();
  return (
    <PageLayout title="Catalog" secondaryTitle="Sizes your customers may create, at your prices, and where">
      <section className={`${card} mb-6`} aria-labelledby="sizes-title">
        <div className="border-b border-slate-200 px-4 py-3 dark:border-slate-700">
          <h2 id="sizes-title" className="font-semibold text-slate-900 dark:text-slate-100">
            Sizes
          </h2>
          {sizes.data && !sizes.data.pricesSet && (
            <p className="text-sm text-slate-500 dark:text-slate-400">
              You have priced no size yet: your customers see every size. Once you price one, they see only the sizes
              you offer.
            </p>
          )}
        </div>
        {sizes.isPending ? (
          <div className="p-6">
            <Spinner />
          </div>
        ) : sizes.error ? (
          <ErrorText error={sizes.error} className="p-4 text-sm text-red-600" />
        ) : (
          <ScrollRegion label="Sizes and prices">
            <table className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-700">
              <thead className="bg-slate-50 text-slate-600 dark:bg-slate-800/50 dark:text-slate-300">
                <tr>
                  <th className={`${th} text-left`}>Name</th>
                  <th className={`${th} hidden text-left md:table-cell`}>Configuration</th>
                  <th className={`${th} text-right`}>Monthly</th>
                  <th className={`${th} text-right`}>Hourly</th>
                  <th className={`${th} text-right`}>Snapshots per VM</th>
                  <th className={`${th} text-right`}>Backups per VM</th>
                  <th className={`${th} text-center`}>Status</th>
                  <th className={th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                {sizes.data.sizes.map((s) => (
                  <SizeRow
                    key={`${s.id}:${s.monthlyPrice}:${s.hourlyPrice}:${s.snapshotLimit}:${s.backupLimit}`}
                    size={s}
                    currency={sizes.data.currency}
                    mayEdit={mayEdit}
                  />
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
      </section>

      <StoragePricesSection mayEdit={mayEdit} />

      <ProvidersSection mayEdit={mayEdit} />

      <section className={card} aria-labelledby="regions-title">
        <div className="border-b border-slate-200 px-4 py-3 dark:border-slate-700">
          <h2 id="regions-title" className="font-semibold text-slate-900 dark:text-slate-100">
            Regions and images
          </h2>
          <p className="text-sm text-slate-500 dark:text-slate-400">
            {regions.data && !regions.data.ownProviders ? "Served by the platform's providers. " : ''}
            The images come from the hosts; your customers see those checked, described as shown (describe one to set
            what your customers see: OS, version, the user their machines log in as, the smallest disk it needs).
          </p>
        </div>
        {regions.isPending ? (
          <div className="p-6">
            <Spinner />
          </div>
        ) : regions.error ? (
          <ErrorText error={regions.error} className="p-4 text-sm text-red-600" />
        ) : regions.data.regions.length === 0 ? (
          <p className="p-6 text-center text-sm text-slate-500 dark:text-slate-400">
            Your providers serve no region yet: choose their regions under Providers
          </p>
        ) : (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800">
            {regions.data.regions.map((r) => (
              <li key={r.id} className="px-4 py-3 text-sm" data-region={r.name}>
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <span className="font-medium text-slate-900 dark:text-slate-100">
                    {r.name} <span className="font-normal text-slate-500 dark:text-slate-400">· {r.country}</span>
                  </span>
                  <span className="text-slate-500 dark:text-slate-400">
                    {r.providers.join(', ')} · {r.hosts} host{r.hosts === 1 ? '' : 's'}
                  </span>
                </div>
                <RegionImages region={r} descriptions={regions.data.descriptions} mayEdit={mayEdit} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </PageLayout>
  );
}
