/**
 * The create form's cards (issue 25 item 3): an image card names the image as the catalog lists it (the spec's
 * Image is that string) with what it is (OS family and version, login, minimum disk: listImageDetails); a size card
 * its cores, RAM and disk and the reseller's monthly and hourly prices (fetchVirtualMachineConfigurations), or why it
 * cannot be chosen in the region now.
 */
import { OS_FAMILY_LABELS, describeImageLine, type ImageDetails } from '@portal/contract/images';
import type { RegionConfiguration } from '@portal/contract/virtual-machines';
import type { RadioCard } from './RadioCards.tsx';
import { formatPrice } from './prices.ts';

/** The OS family's initials in a round badge: decoration, the card's text says it. */
function OsBadge({ label }: { label: string }) {
  return (
    <span
      aria-hidden
      className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-slate-200 text-xs font-bold text-slate-700 dark:bg-slate-700 dark:text-slate-100"
    >
      {label.slice(0, 2)}
    </span>
  );
}

/** listImages' names, in its order, each with its description when listImageDetails has one. */
export function imageCards(names: string[], details: ImageDetails[] | undefined): RadioCard[] {
  return names.map((name) => {
    const description = details?.find((d) => d.name === name)?.description ?? null;
    return {
      value: name,
      title: name,
      badge: <OsBadge label={description ? OS_FAMILY_LABELS[description.osFamily] : name} />,
      body: (
        <span data-testid="image-about" className="block text-xs text-slate-600 dark:text-slate-300">
          {describeImageLine(description)}
        </span>
      ),
    };
  });
}

/** "2 cores · 4 GB RAM · 80 GB disk" */
export const sizeLine = (c: { cpu: number; ram: number; disk: number }) =>
  `${c.cpu} ${c.cpu === 1 ? 'core' : 'cores'} \u00b7 ${c.ram} GB RAM \u00b7 ${c.disk} GB disk`;

export function sizeCards(sizes: RegionConfiguration[]): RadioCard[] {
  return sizes.map((c) => ({
    value: String(c.id),
    title: c.name,
    disabledReason: c.available ? null : (c.unavailableReason ?? 'Not available in this region'),
    body: (
      <>
        <span className="block text-xs text-slate-600 dark:text-slate-300">{sizeLine(c)}</span>
        {c.monthlyPrice !== null && (
          <span data-testid="size-price" className="flex flex-wrap items-baseline gap-x-2">
            <span className="text-base font-semibold tabular-nums text-slate-900 dark:text-slate-100">
              {formatPrice(c.monthlyPrice, c.currency)}
              <span className="text-xs font-normal text-slate-600 dark:text-slate-300"> per month</span>
            </span>
            {c.hourlyPrice !== null && (
              <span className="text-xs tabular-nums text-slate-600 dark:text-slate-300">
                {formatPrice(c.hourlyPrice, c.currency)} per hour
              </span>
            )}
          </span>
        )}
      </>
    ),
  }));
}
