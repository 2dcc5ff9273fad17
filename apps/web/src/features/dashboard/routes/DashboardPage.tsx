/** Dashboard: an overview (machines by status, spend, recent activity, first-run prompt), then the spec's Teams table and the summary (VM Usage card). */
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TeamsTable } from '../../../components/TeamsTable.tsx';
import { DashboardOverview } from '../components/DashboardOverview.tsx';
import { DashboardSummary } from '../components/DashboardSummary.tsx';

export function DashboardPage() {
  return (
    <PageLayout title="Dashboard">
      <div className="space-y-6">
        <DashboardOverview />
        <div className="grid gap-6 xl:grid-cols-2">
          <TeamsTable />
          <DashboardSummary />
        </div>
      </div>
    </PageLayout>
  );
}
