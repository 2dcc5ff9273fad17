/** The roles list failed to load: said wherever a role is chosen or shown (SPEC point 8). */
import { ERRORS, withDetail } from '@portal/contract/messages';
import { errorMessage } from '../../../lib/api.ts';

export function RolesFetchError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="text-sm text-red-600">
      {withDetail(ERRORS.fetchRoles, errorMessage(error))}
    </p>
  );
}
