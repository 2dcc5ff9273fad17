import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export type ResetPasswordInput = { userId: number; resetKey: string; password: string };

export const resetPassword = ({ userId, resetKey, password }: ResetPasswordInput) =>
  callApi(routes.password.resetPasswordFromEmail, { params: { token: userId }, body: { password, resetKey }, suppress401: true });
export const useResetPassword = () => useMutation({ mutationFn: resetPassword });
