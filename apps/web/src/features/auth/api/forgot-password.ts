import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const forgotPassword = (email: string) => callApi(routes.password.forgotPassword, { body: { email }, suppress401: true });
export const useForgotPassword = () => useMutation({ mutationFn: forgotPassword });
