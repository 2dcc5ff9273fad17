/** The dialogs of the actions card: start/stop/reset confirmations, rename, upgrade. */
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { renameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useConfigurations, useRenameVm, useUpgradeVm, useVmAction } from '../api/vms.ts';

const CONFIRM = {
  start: { title: TEXT.startVmTitle, text: TEXT.startVmText, toast: TEXT.vmStarted, label: 'Start' },
  stop: { title: TEXT.stopVmTitle, text: TEXT.stopVmText, toast: TEXT.vmStopped, label: 'Stop' },
  reset: { title: TEXT.resetVmTitle, text: TEXT.resetVmText, toast: TEXT.vmReset, label: 'Reset' },
} as const;

export function ConfirmActionDialog({ action, vmId, onClose, onDone }: { action: 'start' | 'stop' | 'reset'; vmId: number; onClose: () => void; onDone: () => Promise<unknown> }) {
  const run = useVmAction(action);
  const [error, setError] = useState<string | null>(null);
  const c = CONFIRM[action];
  async function confirm() {
    setError(null);
    try {
      toast.success(c.toast);
      await run.mutateAsync(vmId);
      await onDone();
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <Modal
      open
      title={c.title}
      onClose={onClose}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void confirm()} disabled={run.isPending}>
            {c.label}
          </Button>
        </>
      }
    >
      <p className="text-sm text-slate-700">{c.text}</p>
      {error && <p role="alert" className="mt-3 text-sm text-red-600">{error}</p>}
    </Modal>
  );
}

export function RenameDialog({ vmId, currentName, onClose }: { vmId: number; currentName: string; onClose: () => void }) {
  const rename = useRenameVm();
  const [error, setError] = useState<string | null>(null);
  const form = useForm<{ name: string }>({ resolver: zodResolver(renameSchema(currentName)), defaultValues: { name: currentName } });
  const onSubmit = form.handleSubmit(async ({ name }) => {
    setError(null);
    try {
      await rename.mutateAsync({ id: vmId, name });
      toast.success('VM renamed');
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  });
  return (
    <Modal open title="Rename VM" onClose={onClose}>
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <TextField<{ name: string }> name="name" label="New name" register={form.register} errors={form.formState.errors} autoFocus />
        {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
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

export function UpgradeDialog({ vmId, currentCpu, onClose }: { vmId: number; currentCpu: number; onClose: () => void }) {
  const configs = useConfigurations();
  const upgrade = useUpgradeVm();
  const [choice, setChoice] = useState<number | null>(null);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A failed fetch must not read as "already the largest": the error is shown instead.
  const bigger = configs.error ? [] : (configs.data ?? []).filter((c) => c.cpu > currentCpu);
  async function confirm() {
    if (choice === null) return;
    setError(null);
    try {
      await upgrade.mutateAsync({ id: vmId, configurationId: choice });
      setDone(true);
    } catch (err) {
      setError(errorMessage(err));
    }
  }
  return (
    <Modal open title="Upgrade VM" onClose={onClose}>
      {done ? (
        <div className="space-y-4">
          <p className="text-sm text-slate-700">{TEXT.upgradeWait}</p>
          <div className="flex justify-end">
            <Button onClick={onClose}>Return</Button>
          </div>
        </div>
      ) : (
        <div className="space-y-4">
          {configs.error ? (
            <p role="alert" className="text-sm text-red-600">
              {withDetail(ERRORS.fetchConfigurations, errorMessage(configs.error))}
            </p>
          ) : configs.isPending ? (
            <p className="text-sm text-slate-500">Loading configurations…</p>
          ) : bigger.length === 0 ? (
            <p className="text-sm text-slate-600">This VM already has the largest configuration.</p>
          ) : (
            <fieldset className="space-y-2">
              <legend className="mb-2 text-sm text-slate-600">Choose a configuration with more CPU:</legend>
              {bigger.map((c) => (
                <label key={c.id} className="flex cursor-pointer items-center gap-3 rounded-md border border-slate-200 px-3 py-2 text-sm hover:bg-slate-50">
                  <input type="radio" name="configuration" value={c.id} checked={choice === c.id} onChange={() => setChoice(c.id)} />
                  <span className="font-medium">{c.name}</span>
                  <span className="text-slate-500">{`${c.cpu} cores · ${c.ram} GB RAM · ${c.disk} GB disk`}</span>
                </label>
              ))}
            </fieldset>
          )}
          {error && <p role="alert" className="text-sm text-red-600">{error}</p>}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button onClick={() => void confirm()} disabled={choice === null || upgrade.isPending}>
              Upgrade
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}
