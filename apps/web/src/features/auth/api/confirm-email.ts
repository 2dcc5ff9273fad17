import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export type ConfirmEmailInput = { userId: number; resetKey: string; password: string; firstName: string; lastName: string };

export const confirmEmail = ({ userId, ...body }: ConfirmEmailInput) =>
  callApi(routes.password.confirmEmail, { params: { token: userId }, body, suppress401: true });
export const useConfirmEmail = () => useMutation({ mutationFn: confirmEmail });
