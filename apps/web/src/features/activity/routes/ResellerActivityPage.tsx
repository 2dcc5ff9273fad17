/** /reseller/activity — the activity of the reseller's companies and its staff, with a company filter. */
import { ACTIVITY_PAGE_SIZE, ACTIVITY_TEXT } from '@portal/contract/activity';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { useResellerActivityFilters, useResellerActivityList } from '../api/activity.ts';
import { ActivityView } from '../components/ActivityView.tsx';
import { useActivityUrl } from '../components/use-activity-url.ts';

export function ResellerActivityPage() {
  const url = useActivityUrl();
  const list = useResellerActivityList(
    { ...url.filters, page: url.page, rowsPerPage: ACTIVITY_PAGE_SIZE },
    !url.datesInvalid,
  );
  const choices = useResellerActivityFilters();
  return (
    <PageLayout title={ACTIVITY_TEXT.activityTitle}>
      <ActivityView
        url={url}
        message={ACTIVITY_TEXT.resellerActivityMessage}
        withCompany
        choices={choices.data}
        list={list}
        errorText={errorText(list.error, ACTIVITY_TEXT.fetchActivity)}
      />
    </PageLayout>
  );
}
