import { useMutation } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const useSendSupportMessage = () => useMutation({ mutationFn: (message: string) => callApi(routes.platform.sendSupportEmail, { body: { message } }) });
