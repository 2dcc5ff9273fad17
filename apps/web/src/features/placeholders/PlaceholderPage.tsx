/** A screen whose content a later capability builds: its layout and title exist now. */
import { useNavigate } from 'react-router';
import { PageLayout } from '../../components/ui/PageLayout.tsx';

export function PlaceholderPage({ title, back }: { title: string; back?: boolean }) {
  const navigate = useNavigate();
  return (
    <PageLayout title={title} {...(back ? { onBack: () => navigate(-1) } : {})}>
      <p className="text-sm text-slate-500">This screen is coming soon.</p>
    </PageLayout>
  );
}
