/** /activity — the company's activity log, for company administrators (the navigation offers it to them only). */
import { ACTIVITY_PAGE_SIZE, ACTIVITY_TEXT } from '@portal/contract/activity';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { useAuth } from '../../../lib/auth-context.tsx';
import { useActivityFilters, useActivityList } from '../api/activity.ts';
import { ActivityView } from '../components/ActivityView.tsx';
import { useActivityUrl } from '../components/use-activity-url.ts';

export function ActivityPage() {
  const { user: me } = useAuth();
  const url = useActivityUrl();
  const { companyId: _ignored, ...filters } = url.filters;
  const admin = me?.isCompanyAdmin ?? false;
  const list = useActivityList(
    { ...filters, page: url.page, rowsPerPage: ACTIVITY_PAGE_SIZE },
    admin && !url.datesInvalid,
  );
  const choices = useActivityFilters();
  return (
    <PageLayout title={ACTIVITY_TEXT.activityTitle}>
      {admin ? (
        <ActivityView
          url={url}
          message={ACTIVITY_TEXT.activityMessage}
          withCompany={false}
          choices={choices.data}
          list={list}
          errorText={errorText(list.error, ACTIVITY_TEXT.fetchActivity)}
        />
      ) : (
        <p role="alert" className="text-sm text-slate-700 dark:text-slate-300">
          {ACTIVITY_TEXT.adminsOnly}
        </p>
      )}
    </PageLayout>
  );
}
