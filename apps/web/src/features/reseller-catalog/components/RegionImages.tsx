/**
 * A served region's images (from its hosts' pools) with whether the reseller's customers see each: a checkbox
 * per image offers or withdraws it at once. Support staff see the same boxes, read-only.
 */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { useSaveImage, type RegionView } from '../api/catalog.ts';

export function RegionImages({ region, mayEdit }: { region: RegionView; mayEdit: boolean }) {
  const save = useSaveImage();
  // The box shows its new state at once (the server's answer, and the refreshed list, follow); an error puts it back.
  const [pending, setPending] = useState<Record<string, boolean>>({});
  if (region.images.length === 0) return <p className="mt-1 text-slate-600 dark:text-slate-300">No images yet</p>;
  const withdrawn = new Set(region.withdrawnImages);
  return (
    <fieldset className="mt-2">
      <legend className="sr-only">{`Images offered in ${region.name}`}</legend>
      <div className="flex flex-wrap gap-x-5 gap-y-1">
        {region.images.map((image) => (
          <label key={image} className="flex items-center gap-1.5 text-slate-700 dark:text-slate-300">
            <input
              type="checkbox"
              checked={pending[image] ?? !withdrawn.has(image)}
              disabled={!mayEdit || save.isPending}
              onChange={(e) => {
                const offered = e.target.checked;
                setPending((p) => ({ ...p, [image]: offered }));
                save.mutate(
                  { body: { regionId: region.id, image, offered } },
                  {
                    onSuccess: () => toast.success(`${image} in ${region.name}: ${offered ? 'offered' : 'withdrawn'}`),
                    onSettled: () =>
                      setPending((p) => Object.fromEntries(Object.entries(p).filter(([name]) => name !== image))),
                  },
                );
              }}
            />
            {image}
          </label>
        ))}
      </div>
      <ErrorText error={save.error} className="mt-1 text-sm text-red-600 dark:text-red-400" />
    </fieldset>
  );
}
