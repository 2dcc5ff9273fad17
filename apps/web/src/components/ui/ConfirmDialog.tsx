/**
 * The one yes/no dialog: every delete and every confirmed VM action. The error comes straight from the
 * mutation (`mutation.error`); cancelling is the caller's cue to reset it.
 */
import type { ReactNode } from 'react';
import { Button } from './Button.tsx';
import { ErrorText } from './ErrorText.tsx';
import { Modal } from './Modal.tsx';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  confirmLabel: string;
  variant?: 'primary' | 'danger';
  /** Deletes show no close "x": only Delete or Cancel. */
  showClose?: boolean;
  /** The confirm button is disabled while the request runs. */
  pending?: boolean;
  error?: unknown;
  /** "Error deleting team" and the like, put before the server's message. */
  errorPrefix?: string;
  errorClassName?: string;
  onConfirm: () => void;
  onCancel: () => void;
  children: ReactNode;
}

export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  variant = 'primary',
  showClose = true,
  pending = false,
  error,
  errorPrefix,
  errorClassName,
  onConfirm,
  onCancel,
  children,
}: ConfirmDialogProps) {
  return (
    <Modal
      open={open}
      title={title}
      onClose={onCancel}
      showClose={showClose}
      footer={
        <>
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
          <Button variant={variant} onClick={onConfirm} disabled={pending}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      <ErrorText
        error={error}
        {...(errorPrefix ? { prefix: errorPrefix } : {})}
        className={errorClassName ?? 'mt-3 text-sm text-red-600 dark:text-red-400'}
      />
    </Modal>
  );
}
