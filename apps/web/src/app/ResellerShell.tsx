/**
 * The reseller area's layout (issue 13): the same sidebar and drawer as the customer portal, with the business's
 * sections. Only reseller staff reach it (RequireAuth sends everyone else to the dashboard).
 */
import Building2 from 'lucide-react/icons/building-2';
import Palette from 'lucide-react/icons/palette';
import ChartColumn from 'lucide-react/icons/chart-column';
import Receipt from 'lucide-react/icons/receipt';
import History from 'lucide-react/icons/history';
import UserCog from 'lucide-react/icons/user-cog';
import Package from 'lucide-react/icons/package';
import Server from 'lucide-react/icons/server';
import { ShellLayout, type NavLink } from './Shell.tsx';

/** Each section of the reseller area adds its entry here and its route under `/reseller` in router.tsx. */
const RESELLER_LINKS: readonly NavLink[] = [
  // Customers first, then what they buy (catalog, hosts), what it earns (usage, billing), and the house (brand, staff, log).
  { to: '/reseller/companies', label: 'Companies', icon: Building2, also: ['/reseller/company'] },
  { to: '/reseller/catalog', label: 'Catalog', icon: Package, also: [] },
  { to: '/reseller/hosts', label: 'Hosts', icon: Server, also: [] },
  { to: '/reseller/usage', label: 'Usage', icon: ChartColumn, also: [] },
  { to: '/reseller/billing', label: 'Billing', icon: Receipt, also: [] },
  { to: '/reseller/branding', label: 'Branding', icon: Palette, also: [] },
  { to: '/reseller/staff', label: 'Staff', icon: UserCog, also: [] },
  { to: '/reseller/activity', label: 'Activity', icon: History, also: [] },
];

export function ResellerShell() {
  return <ShellLayout links={RESELLER_LINKS} />;
}
