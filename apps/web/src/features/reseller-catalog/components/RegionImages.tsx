/**
 * A served region's images (from its hosts' pools) with whether the reseller's customers see each: a checkbox
 * per image offers it at once; withdrawing one asks first (customers stop seeing it in the create form at once,
 * issue 25). Support staff see the same boxes, read-only.
 */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { useSaveImage, type RegionView } from '../api/catalog.ts';

export function RegionImages({ region, mayEdit }: { region: RegionView; mayEdit: boolean }) {
  const save = useSaveImage();
  // The box shows its new state at once (the server's answer, and the refreshed list, follow); an error puts it back.
  const [pending, setPending] = useState<Record<string, boolean>>({});
  // The image whose withdrawal waits for the confirm dialog.
  const [withdrawing, setWithdrawing] = useState<string | null>(null);
  const apply = (image: string, offered: boolean) => {
    setPending((p) => ({ ...p, [image]: offered }));
    save.mutate(
      { body: { regionId: region.id, image, offered } },
      {
        onSuccess: () => toast.success(`${image} in ${region.name}: ${offered ? 'offered' : 'withdrawn'}`),
        onSettled: () => setPending((p) => Object.fromEntries(Object.entries(p).filter(([name]) => name !== image))),
      },
    );
  };
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
              onChange={(e) => (e.target.checked ? apply(image, true) : setWithdrawing(image))}
            />
            {image}
          </label>
        ))}
      </div>
      <ErrorText error={save.error} className="mt-1 text-sm text-red-600 dark:text-red-400" />
      <ConfirmDialog
        open={withdrawing !== null}
        title="Withdraw image"
        confirmLabel="Withdraw"
        variant="danger"
        onCancel={() => setWithdrawing(null)}
        onConfirm={() => {
          if (withdrawing) apply(withdrawing, false);
          setWithdrawing(null);
        }}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {`Withdraw ${withdrawing ?? ''} in ${region.name}? Your customers can no longer create machines from it there; their existing machines keep running.`}
        </p>
      </ConfirmDialog>
    </fieldset>
  );
}
