/**
 * Restore a backup as a new VM (issue 24 item 2; decision 0021): the new VM's name asked, the rest the backup's own
 * (region, provider, size, team). The server checks it as a create (the team's role, quotas, placement) and its
 * refusal is shown in the dialog as it answered. Used by the company's Backups screen and the VM page's Backups card.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { routes } from '@portal/contract/routes';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { vmNameSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { VM_READS } from '../../../lib/reads.ts';
import { useRouteMutation } from '../../../lib/route-query.ts';

const formSchema = z.object({ name: vmNameSchema });
type Form = { name: string };

/** What a restore as new changes: the VMs, and the backup's state (restoring, then ready) in both lists. */
export const RESTORE_AS_NEW_READS = [...VM_READS, routes.backups.listBackups, routes.backups.listCompanyBackups];

/**
 * No autoFocus on the name: the Modal notes what had focus when it opens (to give it back on close), and a field
 * focused on mount would be that element instead of the button that opened it.
 */
export function RestoreAsNewDialog({
  backup,
  onClose,
}: {
  /** The backup, and the name of the VM it was taken of (a deleted one's too). */
  backup: { id: number; name: string; vmName: string };
  onClose: () => void;
}) {
  const restore = useRouteMutation(routes.backups.restoreBackupAsNew, { invalidates: RESTORE_AS_NEW_READS });
  const form = useForm<Form>({
    resolver: zodResolver(formSchema),
    defaultValues: { name: BACKUP_SCREEN_TEXT.newVmNameDefault(backup.vmName) },
  });
  const onSubmit = form.handleSubmit(({ name }) =>
    restore.mutateAsync({ params: { backupId: backup.id }, body: { name } }).then(
      () => {
        toast.success(BACKUP_TEXT.restoringAsNew);
        onClose();
      },
      // The server's refusal (quota, placement, the team's role) shows from restore.error.
      () => undefined,
    ),
  );
  function cancel() {
    restore.reset();
    onClose();
  }
  return (
    <Modal open title={BACKUP_TEXT.restoreAsNewTitle} onClose={cancel}>
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <p className="break-words text-sm text-slate-700 dark:text-slate-300">
          {BACKUP_SCREEN_TEXT.restoreAsNewText(backup.name, backup.vmName)}
        </p>
        <TextField<Form>
          name="name"
          label={BACKUP_SCREEN_TEXT.newVmName}
          register={form.register}
          errors={form.formState.errors}
          maxLength={63}
          autoComplete="off"
        />
        <ErrorText error={restore.error} />
        <div className="flex flex-wrap justify-end gap-2">
          <Button variant="secondary" onClick={cancel}>
            Cancel
          </Button>
          <Button type="submit" disabled={restore.isPending}>
            {BACKUP_SCREEN_TEXT.restoreAsNew}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
