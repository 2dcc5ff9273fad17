/**
 * A served region's images (from its hosts' pools) with whether the reseller's customers see each: a checkbox
 * per image offers it at once; withdrawing one asks first (customers stop seeing it in the create form at once,
 * issue 25). Each shows what it is (OS and version, default user, minimum disk: the reseller's own description or
 * the platform's; decision 0018), and owners describe it for their customers. Support staff see the same, read-only.
 */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { useSaveImage, type ImageDescriptionView, type RegionView } from '../api/catalog.ts';
import { ImageDescriptionDialog } from './ImageDescriptionDialog.tsx';
import { OS_FAMILY_LABELS } from '@portal/contract/images';

/** "Debian 12 · user root · 2 GB min. disk", whose description it is, or that nobody described it. */
function DescriptionLine({ described }: { described: ImageDescriptionView | undefined }) {
  const d = described?.own ?? described?.platform ?? null;
  if (!d) return <span className="text-slate-500 dark:text-slate-400">Not described · user root</span>;
  return (
    <span className="text-slate-600 dark:text-slate-300">
      {`${OS_FAMILY_LABELS[d.osFamily]} ${d.version} · user ${d.defaultUser} · ${d.minDiskGb} GB min. disk`}
      <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300">
        {described?.own ? 'your description' : "platform's"}
      </span>
    </span>
  );
}

export function RegionImages({
  region,
  descriptions,
  mayEdit,
}: {
  region: RegionView;
  descriptions: ImageDescriptionView[];
  mayEdit: boolean;
}) {
  const save = useSaveImage();
  // The image whose description dialog is open.
  const [describing, setDescribing] = useState<ImageDescriptionView | null>(null);
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
      <ul className="divide-y divide-slate-100 dark:divide-slate-800">
        {region.images.map((image) => {
          const described = descriptions.find((d) => d.image === image);
          return (
            <li
              key={image}
              data-image={image}
              className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 py-1.5"
            >
              <div className="flex min-w-0 flex-wrap items-center gap-x-4 gap-y-0.5">
                <label className="flex min-w-40 items-center gap-1.5 text-slate-700 dark:text-slate-300">
                  <input
                    type="checkbox"
                    checked={pending[image] ?? !withdrawn.has(image)}
                    disabled={!mayEdit || save.isPending}
                    onChange={(e) => (e.target.checked ? apply(image, true) : setWithdrawing(image))}
                  />
                  {image}
                </label>
                <DescriptionLine described={described} />
              </div>
              {mayEdit && (
                <Button
                  variant="ghost"
                  className="px-2 py-1"
                  onClick={() => setDescribing(described ?? { image, platform: null, own: null })}
                >
                  Describe<span className="sr-only"> {image}</span>
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      {describing && <ImageDescriptionDialog described={describing} onClose={() => setDescribing(null)} />}
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
