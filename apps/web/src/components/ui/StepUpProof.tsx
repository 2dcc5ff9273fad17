/**
 * Step-up inline (docs/two-factor.md "Step-up"), for the destructive actions whose dialog is a form of its own (the
 * rebuild, the webhook's new secret): shown when the server answered 403 "Confirm it is you"; offers "Use my passkey"
 * first to a user with one (step-up-passkey.ts), and proves the password or an authenticator code (POST /auth/stepUp);
 * then calls `onProved`, which repeats the action. Not a <form>: it sits inside the action's own. The plain yes/no
 * dialogs have the same inside ConfirmDialog.
 */
import { useId, useState } from 'react';
import { routes } from '@portal/contract/routes';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { callApi } from '../../lib/api.ts';
import { Button } from './Button.tsx';
import { ErrorText } from './ErrorText.tsx';
import { inputClass } from './TextField.tsx';
import { usePasskeyStepUp } from './step-up-passkey.ts';

export function StepUpProof({ onProved }: { onProved: () => void }) {
  const fieldId = useId();
  const [proof, setProof] = useState('');
  const [proving, setProving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const passkey = usePasskeyStepUp(true);

  async function prove() {
    const typed = proof.trim();
    if (!typed) return setError(new Error(STEP_UP_TEXT.missing));
    setProving(true);
    setError(null);
    try {
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

  return (
    <div className="mt-3 space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/50">
      <p role="alert" className="text-sm font-medium text-amber-900 dark:text-amber-200">
        {STEP_UP_TEXT.title}
      </p>
      {passkey.offered ? (
        <>
          <p className="text-sm text-amber-900 dark:text-amber-200">{STEP_UP_TEXT.passkeyBody}</p>
          <Button
            type="button"
            disabled={passkey.busy || proving}
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
      <Button type="button" variant="danger" disabled={proving} onClick={() => void prove()}>
        {STEP_UP_TEXT.confirm}
      </Button>
    </div>
  );
}
