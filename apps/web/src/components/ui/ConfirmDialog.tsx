/**
 * The one yes/no dialog: every delete and every confirmed VM action. The error comes straight from the
 * mutation (`mutation.error`); cancelling is the caller's cue to reset it.
 *
 * Step-up (docs/two-factor.md "Step-up"): when that error is the server's 403 "Confirm it is you" (the session has
 * not proved a factor in the last 5 minutes), the dialog shows StepUpProof (passkey first to a user with one, else
 * the password or an authenticator code), its footer button proves (POST /auth/stepUp) and it confirms again. Only
 * then: a fresh sign-in never sees the field.
 */
import { useId, useState, type ReactNode } from 'react';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { ApiError } from '../../lib/api.ts';
import { Button } from './Button.tsx';
import { ErrorText } from './ErrorText.tsx';
import { Modal } from './Modal.tsx';
import { StepUpProof } from './StepUpProof.tsx';

/** The server refused a destructive action until the session proves a factor again. */
export const needsStepUp = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 403 && error.message === STEP_UP_TEXT.required;

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
  const stepUp = needsStepUp(error);
  const formId = useId();
  const [proving, setProving] = useState(false);

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
          {stepUp ? (
            <Button type="submit" form={formId} variant={variant} disabled={pending || proving}>
              {STEP_UP_TEXT.confirm}
            </Button>
          ) : (
            <Button variant={variant} onClick={() => onConfirm()} disabled={pending}>
              {confirmLabel}
            </Button>
          )}
        </>
      }
    >
      {children}
      {stepUp ? (
        <StepUpProof formId={formId} onProved={onConfirm} disabled={pending} onBusyChange={setProving} />
      ) : (
        <ErrorText
          error={error}
          {...(errorPrefix ? { prefix: errorPrefix } : {})}
          className={errorClassName ?? 'mt-3 text-sm text-red-600 dark:text-red-400'}
        />
      )}
    </Modal>
  );
}
