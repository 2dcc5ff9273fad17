/** Suspend (with an optional reason) or resume one company, confirmed in the one yes/no dialog. */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { COMPANIES_TEXT, resellerCompaniesRoutes as r } from '@portal/contract/reseller-companies';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { useCompanyWrite } from '../api/companies.ts';

export interface SuspensionTarget {
  id: number;
  name: string;
  status: 'active' | 'suspended';
}

export function SuspensionDialog({ target, onClose }: { target: SuspensionTarget | null; onClose: () => void }) {
  const suspend = useCompanyWrite(r.suspend);
  const resume = useCompanyWrite(r.resume);
  const [reason, setReason] = useState('');
  const suspending = target?.status === 'active';
  const mutation = suspending ? suspend : resume;

  const close = () => {
    suspend.reset();
    resume.reset();
    setReason('');
    onClose();
  };
  const confirm = () => {
    if (!target) return;
    const done = { onSuccess: (res: { message: string }) => (toast.success(res.message), close()) };
    if (suspending)
      suspend.mutate({ params: { id: target.id }, body: reason.trim() ? { reason: reason.trim() } : {} }, done);
    else resume.mutate({ params: { id: target.id } }, done);
  };

  return (
    <ConfirmDialog
      open={target !== null}
      title={
        target ? (suspending ? COMPANIES_TEXT.suspendTitle(target.name) : COMPANIES_TEXT.resumeTitle(target.name)) : ''
      }
      confirmLabel={suspending ? COMPANIES_TEXT.suspend : COMPANIES_TEXT.resume}
      variant={suspending ? 'danger' : 'primary'}
      pending={mutation.isPending}
      error={mutation.error}
      onConfirm={confirm}
      onCancel={close}
    >
      <p className="text-sm text-slate-600 dark:text-slate-300">
        {suspending ? COMPANIES_TEXT.suspendBody : COMPANIES_TEXT.resumeBody}
      </p>
      {suspending && (
        <label className="mt-4 block space-y-1 text-sm">
          <span className="font-medium text-slate-700 dark:text-slate-300">Reason (optional)</span>
          <input
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
            className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-600 dark:bg-slate-900"
          />
        </label>
      )}
    </ConfirmDialog>
  );
}
