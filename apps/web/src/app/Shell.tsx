/** The signed-in layout: side navigation (collapsible, persisted) beside the page. */
import {
  ChevronsLeft,
  ChevronsRight,
  HelpCircle,
  LayoutDashboard,
  LogOut,
  Server,
  Users,
  UsersRound,
} from 'lucide-react';
import { useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { SIDEBAR_STORAGE_KEY, SIDEBAR_WIDTH_COLLAPSED, SIDEBAR_WIDTH_EXPANDED } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';
import { useAuth } from '../lib/auth-context.tsx';
import { useLiveVmStatus } from '../features/virtual-machines/api/vm-events.ts';

/** Each link is also highlighted on the sub-pages of its area (`also`: each path and anything below it). */
const LINKS = [
  { to: '/', label: 'Dashboard', icon: LayoutDashboard, also: [] },
  {
    to: '/virtualMachines',
    label: 'Virtual Machines',
    icon: Server,
    also: ['/virtualMachineDetails', '/createVirtualMachine', '/virtualMachineConsole'],
  },
  { to: '/teams', label: 'Teams', icon: UsersRound, also: ['/team', '/createEditTeam'] },
  { to: '/users', label: 'Users', icon: Users, also: ['/user', '/createUser'] },
  { to: '/support', label: 'Support', icon: HelpCircle, also: [] },
] as const;

/** Route matching is case-insensitive (React Router's default), so the highlight is too. */
function isActiveLink(pathname: string, link: (typeof LINKS)[number]): boolean {
  const path = pathname.toLowerCase().replace(/\/+$/, '') || '/';
  if (link.to === '/') return path === '/';
  return [link.to, ...link.also].some((base) => {
    const b = base.toLowerCase();
    return path === b || path.startsWith(`${b}/`);
  });
}

function readCollapsed(): boolean {
  return localStorage.getItem(SIDEBAR_STORAGE_KEY) === 'true';
}

const linkClass =
  (collapsed: boolean) =>
  ({ isActive }: { isActive: boolean }) =>
    `flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors ${collapsed ? 'justify-center' : ''} ${
      isActive ? 'bg-brand-600 text-white' : 'text-slate-300 hover:bg-slate-800 hover:text-white'
    }`;

export function Shell() {
  const { user } = useAuth();
  const { pathname } = useLocation();
  const [collapsed, setCollapsed] = useState(readCollapsed);
  useLiveVmStatus();
  const toggle = () => {
    const next = !collapsed;
    localStorage.setItem(SIDEBAR_STORAGE_KEY, String(next));
    setCollapsed(next);
  };

  return (
    <div className="flex h-full">
      <nav
        aria-label="Main"
        className="flex shrink-0 flex-col bg-slate-900 text-white transition-[width] duration-200"
        style={{ width: collapsed ? SIDEBAR_WIDTH_COLLAPSED : SIDEBAR_WIDTH_EXPANDED }}
      >
        <div
          className={`flex items-center gap-2 border-b border-slate-800 px-3 py-4 ${collapsed ? 'flex-col' : 'justify-between'}`}
        >
          {user?.logoUrl ? (
            <img
              src={user.logoUrl}
              alt={TEXT.companyLogoAlt}
              className={`rounded bg-white object-contain p-1 ${collapsed ? 'h-8 w-8 object-left' : 'h-10 max-w-[10rem]'}`}
            />
          ) : (
            <span />
          )}
          <button
            type="button"
            onClick={toggle}
            aria-label={collapsed ? TEXT.expandSidebar : TEXT.collapseSidebar}
            className="rounded-md p-1.5 text-slate-400 hover:bg-slate-800 hover:text-white"
          >
            {collapsed ? <ChevronsRight className="h-4 w-4" /> : <ChevronsLeft className="h-4 w-4" />}
          </button>
        </div>
        <ul className="flex-1 space-y-1 px-2 py-3">
          {LINKS.map((link) => {
            const { to, label, icon: Icon } = link;
            const active = isActiveLink(pathname, link);
            return (
              <li key={to}>
                <Link
                  to={to}
                  className={linkClass(collapsed)({ isActive: active })}
                  aria-current={active ? 'page' : undefined}
                  aria-label={collapsed ? label : undefined}
                  title={collapsed ? label : undefined}
                >
                  <Icon className="h-5 w-5 shrink-0" aria-hidden />
                  {!collapsed && <span>{label}</span>}
                </Link>
              </li>
            );
          })}
        </ul>
        <div className="space-y-2 border-t border-slate-800 px-2 py-3">
          <NavLink
            to="/logout"
            className={linkClass(collapsed)}
            aria-label={collapsed ? 'Logout' : undefined}
            title={collapsed ? 'Logout' : undefined}
          >
            <LogOut className="h-5 w-5 shrink-0" aria-hidden />
            {!collapsed && <span>Logout</span>}
          </NavLink>
          {!collapsed && user && (
            <p className="truncate px-3 text-sm text-slate-400" data-testid="nav-user-name">
              {`${user.firstName} ${user.lastName}`.trim() || user.email}
            </p>
          )}
        </div>
      </nav>
      <div className="min-w-0 flex-1 overflow-hidden">
        <Outlet />
      </div>
    </div>
  );
}
