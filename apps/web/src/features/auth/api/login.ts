import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export type LoginInput = { email: string; password: string; rememberMe: boolean };

export const login = (body: LoginInput) => callApi(routes.auth.login, { body, suppress401: true });
export const useLogin = () => useMutation({ mutationFn: login });
