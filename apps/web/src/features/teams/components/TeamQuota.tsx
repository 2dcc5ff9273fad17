/** A team's usage against its limits and its company's, for company administrators (who may edit them). */
import { QUOTA_TEXT, quotaRoutes } from '@portal/contract/quotas';
import { QuotaPanel } from '../../../components/QuotaPanel.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

export function TeamQuota({ teamId }: { teamId: number }) {
  const admin = useAuth().user?.isCompanyAdmin ?? false;
  const view = useRouteQuery(quotaRoutes.view, {}, { enabled: admin });
  const setTeam = useRouteMutation(quotaRoutes.setTeam, { invalidates: [quotaRoutes.view] });
  const team = view.data?.teams.find((t) => t.id === teamId);
  if (!admin || !view.data || !team) return null;
  return (
    <QuotaPanel
      quota={team}
      cap={view.data.company.limits}
      message={QUOTA_TEXT.teamMessage}
      canEdit
      onSave={(limits) => setTeam.mutateAsync({ body: { teamId, limits } })}
      saving={setTeam.isPending}
      error={setTeam.error}
      errorPrefix="Error saving limits"
    />
  );
}
