import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const verifyMfa = (code: string) => callApi(routes.auth.mfa, { body: { code }, suppress401: true });
export const useVerifyMfa = () => useMutation({ mutationFn: verifyMfa });
