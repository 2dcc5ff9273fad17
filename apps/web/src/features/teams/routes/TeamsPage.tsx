import { useNavigate } from 'react-router';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { TeamsTable } from '../../../components/TeamsTable.tsx';

export function TeamsPage() {
  const navigate = useNavigate();
  return (
    <PageLayout title="Teams" action={{ name: 'Create Team', onClick: () => navigate('/createEditTeam') }}>
      <TeamsTable />
    </PageLayout>
  );
}
