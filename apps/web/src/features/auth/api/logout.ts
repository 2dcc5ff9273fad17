import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const logout = () => callApi(routes.auth.logout, { suppress401: true });
