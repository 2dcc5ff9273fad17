/**
 * The one yes/no dialog: every delete and every confirmed VM action. The error comes straight from the
 * mutation (`mutation.error`); cancelling is the caller's cue to reset it.
 *
 * Step-up (docs/two-factor.md "Step-up"): when that error is the server's 403 "Confirm it is you" (the session has
 * not proved a factor in the last 5 minutes), the dialog offers "Use my passkey" first to a user with one
 * (step-up-passkey.ts) and asks for the password or an authenticator code inline, proves it (POST /auth/stepUp) and
 * confirms again. Only then: a fresh sign-in never sees the field.
 */
import { useId, useState, type ReactNode } from 'react';
import { routes } from '@portal/contract/routes';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { ApiError, callApi } from '../../lib/api.ts';
import { Button } from './Button.tsx';
import { ErrorText } from './ErrorText.tsx';
import { Modal } from './Modal.tsx';
import { inputClass } from './TextField.tsx';
import { usePasskeyStepUp } from './step-up-passkey.ts';

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
  const fieldId = useId();
  const [proof, setProof] = useState('');
  const [proving, setProving] = useState(false);
  const [proofError, setProofError] = useState<unknown>(null);
  const passkey = usePasskeyStepUp(open && stepUp);
  // Closing forgets what was typed (adjusted while rendering, React's way for state that follows a prop).
  const [wasOpen, setWasOpen] = useState(open);
  if (wasOpen !== open) {
    setWasOpen(open);
    if (!open) {
      setProof('');
      setProofError(null);
      passkey.reset();
    }
  }

  async function confirm() {
    if (!stepUp) return onConfirm();
    const typed = proof.trim();
    if (!typed) return setProofError(new Error(STEP_UP_TEXT.missing));
    setProving(true);
    setProofError(null);
    try {
      // Six digits may be an app's code or a password: the server tries the code, then the password.
      const digits = typed.replace(/\s+/g, '');
      await callApi(routes.stepUp.stepUp, {
        body: /^\d{6}$/.test(digits) ? { code: digits, password: proof } : { password: proof },
      });
      setProof('');
      onConfirm();
    } catch (err) {
      setProofError(err);
    } finally {
      setProving(false);
    }
  }

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
          <Button variant={variant} onClick={() => void confirm()} disabled={pending || proving || passkey.busy}>
            {stepUp ? STEP_UP_TEXT.confirm : confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {stepUp ? (
        <form
          className="mt-4 space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/50"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
        >
          <p role="alert" className="text-sm font-medium text-amber-900 dark:text-amber-200">
            {STEP_UP_TEXT.title}
          </p>
          {passkey.offered ? (
            <>
              <p className="text-sm text-amber-900 dark:text-amber-200">{STEP_UP_TEXT.passkeyBody}</p>
              <Button
                type="button"
                disabled={pending || proving || passkey.busy}
                onClick={() => void passkey.prove().then((ok) => ok && onConfirm())}
              >
                {STEP_UP_TEXT.usePasskey}
              </Button>
              <ErrorText error={passkey.error} className="text-sm text-red-700 dark:text-red-300" />
              <p className="text-sm text-amber-900 dark:text-amber-200">{STEP_UP_TEXT.orPassword}</p>
            </>
          ) : (
            <p className="text-sm text-amber-900 dark:text-amber-200">{STEP_UP_TEXT.body}</p>
          )}
          <label htmlFor={fieldId} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
            {STEP_UP_TEXT.passwordLabel}
          </label>
          <input
            id={fieldId}
            type="password"
            autoComplete="current-password"
            autoFocus={!passkey.offered}
            className={inputClass}
            value={proof}
            onChange={(e) => setProof(e.target.value)}
          />
          <ErrorText error={proofError} className="text-sm text-red-700 dark:text-red-300" />
        </form>
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
