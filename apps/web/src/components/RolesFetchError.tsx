/** The roles list failed to load: said wherever a role is chosen or shown (SPEC point 8). */
import { ERRORS } from '@portal/contract/messages';
import { ErrorText } from './ui/ErrorText.tsx';

export function RolesFetchError({ error }: { error: unknown }) {
  return <ErrorText error={error} prefix={ERRORS.fetchRoles} />;
}
