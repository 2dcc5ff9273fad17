/**
 * Step-up inline (docs/two-factor.md "Step-up"): shown when the server answered 403 "Confirm it is you"; offers "Use my
 * passkey" first to a user with one (step-up-passkey.ts), and proves the password or an authenticator code (POST
 * /auth/stepUp); then calls `onProved`, which repeats the action. The one proof form of the portal:
 * - inside an action's own form (the rebuild, the webhook's new secret): not a <form>, with its own "Confirm and
 *   continue" button (Enter in the field proves too);
 * - with `formId` (ConfirmDialog, every yes/no dialog): a <form> of that id and no button of its own; the caller's
 *   submit button (`form={formId}`, the dialog's footer) proves, and `onBusyChange` tells it when to be disabled.
 * It forgets what was typed when it unmounts (a dialog closing, the error reset).
 */
import { useEffect, useId, useState } from 'react';
import { routes } from '@portal/contract/routes';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { callApi } from '../../lib/api.ts';
import { Button } from './Button.tsx';
import { ErrorText } from './ErrorText.tsx';
import { inputClass } from './TextField.tsx';
import { usePasskeyStepUp } from './step-up-passkey.ts';

export interface StepUpProofProps {
  onProved: () => void;
  /** Render as a <form> of this id, proved by the caller's submit button, instead of with a button of its own. */
  formId?: string;
  /** The caller's request runs: the passkey button waits too. */
  disabled?: boolean;
  /** A proof is under way (true) or not (false; also when unmounted). */
  onBusyChange?: (busy: boolean) => void;
}

export function StepUpProof({ onProved, formId, disabled = false, onBusyChange }: StepUpProofProps) {
  const fieldId = useId();
  const [proof, setProof] = useState('');
  const [proving, setProving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const passkey = usePasskeyStepUp(true);
  const busy = proving || passkey.busy;
  useEffect(() => onBusyChange?.(busy), [busy, onBusyChange]);
  useEffect(() => () => onBusyChange?.(false), [onBusyChange]);

  async function prove() {
    const typed = proof.trim();
    if (!typed) return setError(new Error(STEP_UP_TEXT.missing));
    setProving(true);
    setError(null);
    try {
      // Six digits may be an app's code or a password: the server tries the code, then the password.
      const digits = typed.replace(/\s+/g, '');
      await callApi(routes.stepUp.stepUp, {
        body: /^\d{6}$/.test(digits) ? { code: digits, password: proof } : { password: proof },
      });
      setProof('');
      onProved();
    } catch (err) {
      setError(err);
    } finally {
      setProving(false);
    }
  }

  const fields = (
    <>
      <p role="alert" className="text-sm font-medium text-amber-900 dark:text-amber-200">
        {STEP_UP_TEXT.title}
      </p>
      {passkey.offered ? (
        <>
          <p className="text-sm text-amber-900 dark:text-amber-200">{STEP_UP_TEXT.passkeyBody}</p>
          <Button
            type="button"
            disabled={disabled || busy}
            onClick={() => void passkey.prove().then((ok) => ok && onProved())}
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
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          void prove();
        }}
      />
      <ErrorText error={error} className="text-sm text-red-700 dark:text-red-300" />
    </>
  );
  const boxClass =
    'mt-3 space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/50';

  return formId ? (
    <form
      id={formId}
      className={boxClass}
      onSubmit={(e) => {
        e.preventDefault();
        void prove();
      }}
    >
      {fields}
    </form>
  ) : (
    <div className={boxClass}>
      {fields}
      <Button type="button" variant="danger" disabled={proving} onClick={() => void prove()}>
        {STEP_UP_TEXT.confirm}
      </Button>
    </div>
  );
}
