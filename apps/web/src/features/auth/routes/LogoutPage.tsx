/** /logout — ends the session on the server and clears all local storage. */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { useAuth } from '../../../lib/auth-context.tsx';
import { Button } from '../../../components/ui/Button.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { logout } from '../api/logout.ts';
import { AuthCard, FormError } from '../components/AuthCard.tsx';

export function LogoutPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { clear } = useAuth();
  const [state, setState] = useState<'running' | 'done'>('running');
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    logout()
      .catch((err: unknown) => setError(withDetail(ERRORS.logout, errorMessage(err))))
      .finally(() => {
        localStorage.clear();
        clear();
        queryClient.clear();
        setState('done');
      });
  }, [clear, queryClient]);

  return (
    <AuthCard title={state === 'running' ? TEXT.loggingOut : TEXT.logoutSuccessful}>
      {state === 'running' ? (
        <Spinner label={TEXT.loggingOut} />
      ) : (
        <div className="space-y-4">
          <FormError message={error} />
          <Button className="w-full" onClick={() => navigate('/login', { replace: true })}>
            Return to Login
          </Button>
        </div>
      )}
    </AuthCard>
  );
}
