/** The reseller area's first screen: the reseller's customer companies. (Being built: issue 13.) */
import { PageLayout } from '../../../components/ui/PageLayout.tsx';

export function CompaniesPage() {
  return <PageLayout title="Companies">{null}</PageLayout>;
}
