/**
 * The reseller area's layout (issue 13): the same sidebar and drawer as the customer portal, with the business's
 * sections. Only reseller staff reach it (RequireAuth sends everyone else to the dashboard).
 */
import Building2 from 'lucide-react/icons/building-2';
import Package from 'lucide-react/icons/package';
import Server from 'lucide-react/icons/server';
import { ShellLayout, type NavLink } from './Shell.tsx';

/** Each section of the reseller area adds its entry here and its route under `/reseller` in router.tsx. */
const RESELLER_LINKS: readonly NavLink[] = [
  { to: '/reseller/companies', label: 'Companies', icon: Building2, also: ['/reseller/company'] },
  { to: '/reseller/catalog', label: 'Catalog', icon: Package, also: [] },
  { to: '/reseller/hosts', label: 'Hosts', icon: Server, also: [] },
];

export function ResellerShell() {
  return <ShellLayout links={RESELLER_LINKS} />;
}
