/**
 * A passkey as the step-up proof (docs/two-factor.md "Step-up"): offered first, when the server asked "Confirm it
 * is you", to a user who has a passkey and a browser that can use one. The request options come from POST
 * /auth/stepUp/passkey/options (a challenge of this session, once), the browser signs, POST /auth/stepUp takes the
 * answer. @simplewebauthn/browser is loaded only then: the dialogs that may ask are on many screens.
 */
import { useState } from 'react';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { routes } from '@portal/contract/routes';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { callApi } from '../../lib/api.ts';
import { useRouteQuery } from '../../lib/route-query.ts';

const canUsePasskeys = () => typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';

export function usePasskeyStepUp(asked: boolean) {
  // Read only once the server asked: a fresh session's dialogs never call it.
  const passkeys = useRouteQuery(routes.passkeys.list, {}, { enabled: asked && canUsePasskeys(), staleTime: 60_000 });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  /** The browser's prompt and the server's check; true when the session is stepped up. */
  async function prove(): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      const options = await callApi(routes.stepUp.passkeyOptions, { body: {} });
      const { startAuthentication } = await import('@simplewebauthn/browser');
      let response;
      try {
        response = await startAuthentication({
          optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
        });
      } catch {
        setError(new Error(STEP_UP_TEXT.passkeyCancelled));
        return false;
      }
      await callApi(routes.stepUp.stepUp, {
        body: { passkey: { ...response, clientExtensionResults: { ...response.clientExtensionResults } } },
      });
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  }

  return {
    /** The user has a passkey (on some address: the server says so if none is of this one) and the browser can sign. */
    offered: asked && (passkeys.data?.length ?? 0) > 0,
    busy,
    error,
    prove,
    reset: () => setError(null),
  };
}
