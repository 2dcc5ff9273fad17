/**
 * The dialogs of the actions card. Confirmed actions (start, stop, power off, reset, and any row of VM_ACTIONS
 * with a `confirm`) share one dialog whose texts come from the table; rename and upgrade are forms.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useState, type FormEvent } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { toast } from 'react-toastify';
import type { z } from 'zod';
import { ERRORS, SIZE_TEXT, SSH_KEY_TEXT, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { renameSchema } from '@portal/contract/validation';
import { rebuildVmBodySchema, vmRoutes } from '@portal/contract/virtual-machines';
import { REBUILD_TEXT, VM_ACTIONS } from '@portal/contract/vm-actions';
import { describeImageLine } from '@portal/contract/images';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog, needsStepUp } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { StepUpProof } from '../../../components/ui/StepUpProof.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { useRouteQuery } from '../../../lib/route-query.ts';
import {
  useConfigurations,
  useRebuildVm,
  useRenameVm,
  useSshKeyChoices,
  useUpgradeVm,
  useVmIdAction,
  type ConfirmedVmAction,
} from '../api/vms.ts';
import { SshKeyChoice } from '../routes/CreateVirtualMachinePage.tsx';

export function ConfirmActionDialog({
  action,
  vmId,
  onClose,
  onDone,
}: {
  action: ConfirmedVmAction;
  vmId: number;
  onClose: () => void;
  onDone: () => Promise<unknown>;
}) {
  const run = useVmIdAction(action);
  const def = VM_ACTIONS[action];
  function confirm() {
    run.mutate(
      { params: { id: vmId } },
      {
        // The toast says the server took the action; a refused one shows its error in the dialog instead.
        onSuccess: async () => {
          toast.success(def.accepted);
          await onDone();
          onClose();
        },
      },
    );
  }
  return (
    <ConfirmDialog
      open
      title={def.confirm.title}
      confirmLabel={def.label}
      pending={run.isPending}
      error={run.error}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">{def.confirm.text}</p>
    </ConfirmDialog>
  );
}

export function RenameDialog({
  vmId,
  currentName,
  onClose,
}: {
  vmId: number;
  currentName: string;
  onClose: () => void;
}) {
  const rename = useRenameVm();
  const form = useForm<{ name: string }>({
    resolver: zodResolver(renameSchema(currentName)),
    defaultValues: { name: currentName },
  });
  const onSubmit = form.handleSubmit(({ name }) =>
    rename.mutateAsync({ params: { id: vmId }, body: { name } }).then(
      () => {
        toast.success(TEXT.vmRenamed(name));
        onClose();
      },
      // The error shows from rename.error.
      () => undefined,
    ),
  );
  return (
    <Modal open title="Rename VM" onClose={onClose}>
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <TextField<{ name: string }>
          name="name"
          label="New name"
          register={form.register}
          errors={form.formState.errors}
          autoFocus
        />
        <ErrorText error={rename.error} />
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={rename.isPending}>
            Rename
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** The upgrade dialog when no larger size is offered to this VM's company (the reseller prices only some). */
const UPGRADE_NONE_OFFERED = 'No larger size is offered for this VM. Contact your provider for more.';

/** The upgrade form: the configuration id of the contract's changeConfiguration body. */
const upgradeFormSchema = vmRoutes.changeConfiguration.body.pick({ configurationId: true });
type UpgradeForm = z.output<typeof upgradeFormSchema>;

export function UpgradeDialog({
  vmId,
  currentCpu,
  currentConfigurationId,
  running,
  onClose,
}: {
  vmId: number;
  currentCpu: number;
  currentConfigurationId: number;
  /** The VM is Running: the upgrade restarts it to apply the new CPU and memory (issue 23 item 3), said before. */
  running: boolean;
  onClose: () => void;
}) {
  const configs = useConfigurations();
  const upgrade = useUpgradeVm();
  const form = useForm<z.input<typeof upgradeFormSchema>, unknown, UpgradeForm>({
    resolver: zodResolver(upgradeFormSchema),
  });
  const choice = useWatch({ control: form.control, name: 'configurationId' });
  const [done, setDone] = useState(false);
  // A failed fetch must not read as "already the largest": the error is shown instead.
  const bigger = configs.error ? [] : (configs.data ?? []).filter((c) => c.cpu > currentCpu);
  // The list holds only the sizes the reseller offers: when the VM's own size is not among them, larger sizes
  // may well exist but are not offered, and "the largest configuration" would be wrong (issue 25).
  const ownSizeOffered = (configs.data ?? []).some((c) => c.id === currentConfigurationId);
  const onSubmit = form.handleSubmit(({ configurationId }) =>
    upgrade.mutateAsync({ body: { id: vmId, configurationId } }).then(
      () => {
        toast.success(TEXT.vmUpgradeAccepted);
        setDone(true);
      },
      // The error shows from upgrade.error.
      () => undefined,
    ),
  );
  return (
    <Modal open title="Upgrade VM" onClose={onClose}>
      {done ? (
        <div className="space-y-4">
          <p className="text-sm text-slate-700 dark:text-slate-300">{TEXT.upgradeWait}</p>
          <div className="flex justify-end">
            <Button onClick={onClose}>Return</Button>
          </div>
        </div>
      ) : (
        <form onSubmit={onSubmit} className="space-y-4" noValidate>
          {configs.error ? (
            <ErrorText error={configs.error} prefix={ERRORS.fetchConfigurations} />
          ) : configs.isPending ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">Loading configurations…</p>
          ) : bigger.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-300">
              {ownSizeOffered ? 'This VM already has the largest configuration.' : UPGRADE_NONE_OFFERED}
            </p>
          ) : (
            <fieldset className="space-y-2">
              <legend className="mb-2 text-sm text-slate-600 dark:text-slate-300">
                Choose a configuration with more CPU:
              </legend>
              {bigger.map((c) => (
                <label
                  key={c.id}
                  className="flex cursor-pointer items-center gap-3 rounded-md border border-slate-200 dark:border-slate-700 px-3 py-2 text-sm hover:bg-slate-50 dark:hover:bg-slate-800"
                >
                  <input
                    type="radio"
                    value={c.id}
                    checked={Number(choice) === c.id}
                    onChange={() => form.setValue('configurationId', c.id)}
                    name="configuration"
                  />
                  <span className="font-medium">{c.name}</span>
                  <span className="text-slate-500 dark:text-slate-400">{`${c.cpu} cores · ${c.ram} GB RAM · ${c.disk} GB disk`}</span>
                </label>
              ))}
            </fieldset>
          )}
          {running && bigger.length > 0 && (
            <p
              data-testid="upgrade-restart-warning"
              className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-800 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
            >
              {SIZE_TEXT.upgradeRestarts}
            </p>
          )}
          <ErrorText error={upgrade.error} />
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={choice === undefined || upgrade.isPending}>
              Upgrade
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}

/**
 * Rebuild (reinstall): an image of the VM's region, the caller's stored keys, optional user-data, and the VM's name
 * typed to confirm (the disk is erased). The server checks everything again.
 */
export function RebuildDialog({
  vm,
  onClose,
}: {
  vm: { id: number; name: string; regionId: number; image: string };
  onClose: () => void;
}) {
  const images = useRouteQuery(routes.vms.listImages, { params: { id: vm.regionId } });
  // What each image is: the login the rebuilt machine gets, its minimum disk (decision 0018).
  const imageDetails = useRouteQuery(routes.vms.listImageDetails, { params: { id: vm.regionId } });
  const keys = useSshKeyChoices();
  const rebuild = useRebuildVm();
  const [image, setImage] = useState(vm.image);
  const chosenImage = image ? imageDetails.data?.find((d) => d.name === image) : undefined;
  const [sshKeyIds, setSshKeyIds] = useState<string[]>([]);
  const [userData, setUserData] = useState('');
  const [typed, setTyped] = useState('');
  const ids = useId();
  const parsed = rebuildVmBodySchema.safeParse({
    image,
    sshKeyIds: sshKeyIds.map(Number),
    ...(userData ? { userData } : {}),
  });
  const userDataError = parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === 'userData')?.message;
  function submit(e?: FormEvent) {
    e?.preventDefault();
    if (!parsed.success || typed !== vm.name) return;
    rebuild.mutate(
      { params: { id: vm.id }, body: parsed.data },
      {
        onSuccess: () => {
          toast.success(VM_ACTIONS.rebuild.accepted);
          onClose();
        },
      },
    );
  }
  return (
    <Modal open title={REBUILD_TEXT.title(vm.name)} onClose={onClose}>
      <form onSubmit={submit} className="space-y-4" noValidate>
        <p className="text-sm font-medium text-red-700 dark:text-red-300">{REBUILD_TEXT.warning}</p>
        <div className="space-y-1">
          <label htmlFor={`${ids}-image`} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
            {REBUILD_TEXT.imageLabel}
          </label>
          {images.error ? (
            <ErrorText error={images.error} prefix={ERRORS.fetchImages} />
          ) : (
            <select
              id={`${ids}-image`}
              className="block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 text-sm"
              value={image}
              onChange={(e) => setImage(e.target.value)}
            >
              <option value="">{REBUILD_TEXT.chooseImage}</option>
              {(images.data ?? []).map((i) => (
                <option key={i} value={i}>
                  {i}
                </option>
              ))}
            </select>
          )}
          {chosenImage && (
            <p data-testid="rebuild-image-about" className="text-xs text-slate-600 dark:text-slate-300">
              {describeImageLine(chosenImage.description)}
            </p>
          )}
        </div>
        <SshKeyChoice keys={keys} chosen={sshKeyIds} error={undefined} onChange={setSshKeyIds} />
        <div className="space-y-1">
          <label htmlFor={`${ids}-userdata`} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
            {SSH_KEY_TEXT.userDataLabel}
          </label>
          <textarea
            id={`${ids}-userdata`}
            rows={4}
            spellCheck={false}
            value={userData}
            onChange={(e) => setUserData(e.target.value)}
            placeholder={'#cloud-config\npackages:\n  - nginx'}
            aria-describedby={`${ids}-userdata-help`}
            aria-invalid={userDataError ? true : undefined}
            className="block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 font-mono text-xs"
          />
          <p id={`${ids}-userdata-help`} className="text-xs text-slate-500 dark:text-slate-400">
            {SSH_KEY_TEXT.userDataHelp}
          </p>
          {userData && userDataError && <p className="text-sm text-red-600 dark:text-red-400">{userDataError}</p>}
        </div>
        <div className="space-y-1">
          <label htmlFor={`${ids}-confirm`} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
            {REBUILD_TEXT.confirmLabel(vm.name)}
          </label>
          <input
            id={`${ids}-confirm`}
            value={typed}
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setTyped(e.target.value)}
            className="block w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-2 text-sm"
          />
        </div>
        {needsStepUp(rebuild.error) ? <StepUpProof onProved={() => submit()} /> : <ErrorText error={rebuild.error} />}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" disabled={!parsed.success || typed !== vm.name || rebuild.isPending}>
            {VM_ACTIONS.rebuild.label}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
