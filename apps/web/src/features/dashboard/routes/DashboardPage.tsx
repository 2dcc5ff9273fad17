/** Dashboard: the Teams table and the summary (VM Usage card). */
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TeamsTable } from '../../../components/TeamsTable.tsx';
import { DashboardSummary } from '../components/DashboardSummary.tsx';

export function DashboardPage() {
  return (
    <PageLayout title="Dashboard">
      <div className="grid gap-6 xl:grid-cols-2">
        <TeamsTable />
        <DashboardSummary />
      </div>
    </PageLayout>
  );
}
