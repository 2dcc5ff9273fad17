/** "Delete {name}?" — the spec's confirmation: warning, error text, Delete (disabled while loading), Cancel. */
import { TEXT } from '@portal/contract/messages';
import { Button } from './Button.tsx';
import { Modal } from './Modal.tsx';

export interface DeleteConfirmationModalProps {
  open: boolean;
  name: string;
  /** What is deleted, e.g. "team", "user", "virtual machine". */
  item: string;
  loading?: boolean;
  error?: string | null;
  onConfirm: () => void;
  /** Cancel clears errors and closes. */
  onCancel: () => void;
}

export function DeleteConfirmationModal({ open, name, item, loading = false, error, onConfirm, onCancel }: DeleteConfirmationModalProps) {
  return (
    <Modal
      open={open}
      title={TEXT.deleteTitle(name)}
      onClose={onCancel}
      showClose={false}
      footer={
        <>
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onConfirm} disabled={loading}>
            Delete
          </Button>
        </>
      }
    >
      <p className="text-sm text-slate-700">{TEXT.deleteBody(item)}</p>
      <p className="mt-2 text-sm font-medium text-red-600">{TEXT.cannotBeReversed}</p>
      {error && (
        <p role="alert" className="mt-3 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700">
          {error}
        </p>
      )}
    </Modal>
  );
}
