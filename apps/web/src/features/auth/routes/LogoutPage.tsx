/** /logout — ends the session on the server and clears all local storage. */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { useAuth } from '../../../lib/auth-context.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useRouteMutation } from '../../../lib/route-query.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

export function LogoutPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { clear } = useAuth();
  const [state, setState] = useState<'running' | 'done'>('running');
  const logout = useRouteMutation(routes.auth.logout, { suppress401: true });
  const { mutate } = logout;
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    mutate(undefined, {
      onSettled: () => {
        localStorage.clear();
        clear();
        queryClient.clear();
        setState('done');
      },
    });
  }, [clear, queryClient, mutate]);

  return (
    <AuthCard title={state === 'running' ? TEXT.loggingOut : TEXT.logoutSuccessful}>
      {state === 'running' ? (
        <Spinner label={TEXT.loggingOut} />
      ) : (
        <div className="space-y-4">
          <FormError message={errorText(logout.error, ERRORS.logout)} />
          <Button className="w-full" onClick={() => navigate('/login', { replace: true })}>
            Return to Login
          </Button>
        </div>
      )}
    </AuthCard>
  );
}
