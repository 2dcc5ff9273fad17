/**
 * The signed-in layout: skip link, side navigation beside the page. From the `md` breakpoint up the navigation
 * is a sidebar that collapses to icons (persisted under `sidebar-collapsed`); below it, a menu button opens it
 * as a drawer (a Radix dialog: focus moves in, is trapped, returns to the button; Escape and the overlay close
 * it; following a link closes it).
 */
import * as Dialog from '@radix-ui/react-dialog';
import Archive from 'lucide-react/icons/archive';
import Braces from 'lucide-react/icons/braces';
import ChevronsLeft from 'lucide-react/icons/chevrons-left';
import ChevronsRight from 'lucide-react/icons/chevrons-right';
import CircleUser from 'lucide-react/icons/circle-user';
import HelpCircle from 'lucide-react/icons/help-circle';
import History from 'lucide-react/icons/history';
import KeyRound from 'lucide-react/icons/key-round';
import LayoutDashboard from 'lucide-react/icons/layout-dashboard';
import LogIn from 'lucide-react/icons/log-in';
import LogOut from 'lucide-react/icons/log-out';
import Menu from 'lucide-react/icons/menu';
import Moon from 'lucide-react/icons/moon';
import Server from 'lucide-react/icons/server';
import ShieldCheck from 'lucide-react/icons/shield-check';
import Sun from 'lucide-react/icons/sun';
import Users from 'lucide-react/icons/users';
import UsersRound from 'lucide-react/icons/users-round';
import X from 'lucide-react/icons/x';
import { useState, type ComponentType, type ReactNode } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import {
  MODAL_Z_INDEX,
  SIDEBAR_STORAGE_KEY,
  SIDEBAR_WIDTH_COLLAPSED,
  SIDEBAR_WIDTH_EXPANDED,
} from '@portal/contract/constants';
import { SSH_KEY_TEXT, TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { useAuth } from '../lib/auth-context.tsx';
import { useBrand } from '../lib/public-brand.ts';
import { useTheme, type ThemePreference } from '../lib/theme.ts';
import { callApi } from '../lib/api.ts';
import { useLiveVmStatus } from '../features/virtual-machines/api/vm-events.ts';
import { BrandLogo } from '../components/BrandLogo.tsx';
import { brandTitle } from './branding.ts';

/** A navigation entry; it is also highlighted on the sub-pages of its area (`also`: each path and anything below it). */
export interface NavLink {
  to: string;
  label: string;
  icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean }>;
  also: readonly string[];
  /** Shown to company administrators only (the screen's calls are theirs only too). */
  adminOnly?: boolean;
}

/** The customer portal's navigation (SPEC point 2). The reseller area has its own (ResellerShell.tsx). */
const LINKS: readonly NavLink[] = [
  { to: '/', label: 'Dashboard', icon: LayoutDashboard, also: [] },
  {
    to: '/virtualMachines',
    label: 'Virtual Machines',
    icon: Server,
    also: ['/virtualMachineDetails', '/createVirtualMachine', '/virtualMachineConsole'],
  },
  // Issue 24: the company's backups (also those kept after their VM was deleted), beside the machines.
  { to: '/backups', label: 'Backups', icon: Archive, also: [] },
  { to: '/teams', label: 'Teams', icon: UsersRound, also: ['/team', '/createEditTeam'] },
  { to: '/users', label: 'Users', icon: Users, also: ['/user', '/createUser'] },
  { to: '/support', label: 'Support', icon: HelpCircle, also: [] },
  // Issue 13: the company's activity log.
  { to: '/activity', label: 'Activity', icon: History, also: [], adminOnly: true },
  // Issue 26 item 3: the company's single sign-on (docs/single-sign-on.md).
  { to: '/singleSignOn', label: 'Single sign-on', icon: LogIn, also: [], adminOnly: true },
];

/** Route matching is case-insensitive (React Router's default), so the highlight is too. */
function isActiveLink(pathname: string, link: { to: string; also: readonly string[] }): boolean {
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

const linkClass = (collapsed: boolean, active: boolean) =>
  `flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white ${
    collapsed ? 'justify-center' : ''
  } ${active ? 'bg-brand-600 text-on-brand-600' : 'text-slate-300 hover:bg-slate-800 hover:text-white'}`;

const iconButton =
  'rounded-md p-1.5 text-slate-300 hover:bg-slate-800 hover:text-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white';

/**
 * The toggle's choice is the user's preference (docs/account.md): kept on the server, so it survives signing out.
 * Saved one after another, so quick toggles land in the order they were made (the last one wins).
 */
let themeSaves: Promise<unknown> = Promise.resolve();
function saveTheme(theme: ThemePreference): void {
  themeSaves = themeSaves
    .then(() => callApi(routes.account.updatePreferences, { body: { theme } }))
    .catch(() => undefined);
}

function ThemeToggle({ collapsed }: { collapsed: boolean }) {
  const { theme, toggle } = useTheme();
  const dark = theme === 'dark';
  const Icon = dark ? Sun : Moon;
  return (
    <button
      type="button"
      onClick={() => saveTheme(toggle())}
      // A toggle: the name stays "Dark mode", aria-pressed says whether it is on.
      aria-pressed={dark}
      aria-label={collapsed ? TEXT.darkMode : undefined}
      title={collapsed ? TEXT.darkMode : undefined}
      className={`${linkClass(collapsed, false)} w-full`}
    >
      <Icon className="h-5 w-5 shrink-0" aria-hidden />
      {!collapsed && <span>{TEXT.darkMode}</span>}
    </button>
  );
}

/** Logo, links, logout, theme and the user's name; the same in the sidebar and the drawer. */
function NavContent({
  links,
  collapsed,
  header,
  onNavigate,
}: {
  links: readonly NavLink[];
  collapsed: boolean;
  header: ReactNode;
  onNavigate?: () => void;
}) {
  const { user } = useAuth();
  const { pathname } = useLocation();
  const securityPath = user?.staffRole ? '/reseller/security' : '/security';
  return (
    <>
      <div
        className={`flex items-center gap-2 border-b border-slate-800 px-3 py-4 ${collapsed ? 'flex-col' : 'justify-between'}`}
      >
        {user?.logoUrl ? (
          <BrandLogo
            src={user.logoUrl}
            name={brandTitle(user)}
            // Collapsed, a wide logo squeezed into the icon column's box was a speck (issue 25 defect 9): it is
            // cropped to its left square (where a mark sits), filling the box instead.
            className={`rounded bg-white p-1 ${collapsed ? 'h-10 w-10 object-cover object-left' : 'h-10 max-w-[10rem] object-contain'}`}
            fallbackClassName={`text-sm text-white ${collapsed ? 'sr-only' : 'max-w-[10rem]'}`}
          />
        ) : (
          <span />
        )}
        {header}
      </div>
      <ul className="flex-1 space-y-1 overflow-y-auto px-2 py-3">
        {links.map((link) => {
          const { to, label, icon: Icon } = link;
          const active = isActiveLink(pathname, link);
          return (
            <li key={to}>
              <Link
                to={to}
                onClick={onNavigate}
                className={linkClass(collapsed, active)}
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
        <ThemeToggle collapsed={collapsed} />
        {/* The user's own things (issue 23 item 5: their SSH keys) sit with the user, not with the company's areas;
            reseller staff have no customer keys. */}
        {!user?.staffRole && (
          <Link
            to="/sshKeys"
            onClick={onNavigate}
            className={linkClass(collapsed, isActiveLink(pathname, { to: '/sshKeys', also: [] }))}
            aria-current={isActiveLink(pathname, { to: '/sshKeys', also: [] }) ? 'page' : undefined}
            aria-label={collapsed ? SSH_KEY_TEXT.title : undefined}
            title={collapsed ? SSH_KEY_TEXT.title : undefined}
          >
            <KeyRound className="h-5 w-5 shrink-0" aria-hidden />
            {!collapsed && <span>{SSH_KEY_TEXT.title}</span>}
          </Link>
        )}
        {/* Personal API tokens (issue 26 item 4; docs/api-tokens.md): the user's own, like their keys. */}
        {!user?.staffRole && (
          <Link
            to="/apiTokens"
            onClick={onNavigate}
            className={linkClass(collapsed, isActiveLink(pathname, { to: '/apiTokens', also: [] }))}
            aria-current={isActiveLink(pathname, { to: '/apiTokens', also: [] }) ? 'page' : undefined}
            aria-label={collapsed ? 'API tokens' : undefined}
            title={collapsed ? 'API tokens' : undefined}
          >
            <Braces className="h-5 w-5 shrink-0" aria-hidden />
            {!collapsed && <span>API tokens</span>}
          </Link>
        )}
        {/* The user's own account (issue 25 item 7; docs/account.md): name, password, sessions, preferences. The
            page lives in the customer portal; reseller staff are kept to the reseller area. */}
        {!user?.staffRole && (
          <Link
            to="/account"
            onClick={onNavigate}
            className={linkClass(collapsed, isActiveLink(pathname, { to: '/account', also: [] }))}
            aria-current={isActiveLink(pathname, { to: '/account', also: [] }) ? 'page' : undefined}
            aria-label={collapsed ? 'Account' : undefined}
            title={collapsed ? 'Account' : undefined}
          >
            <CircleUser className="h-5 w-5 shrink-0" aria-hidden />
            {!collapsed && <span>Account</span>}
          </Link>
        )}
        {/* Two-factor authentication (issue 26 item 1): the user's own sign-in (docs/two-factor.md); reseller staff
            have theirs in the reseller area, with the owner's staff policy. */}
        <Link
          to={securityPath}
          onClick={onNavigate}
          className={linkClass(collapsed, isActiveLink(pathname, { to: securityPath, also: [] }))}
          aria-current={isActiveLink(pathname, { to: securityPath, also: [] }) ? 'page' : undefined}
          aria-label={collapsed ? 'Security' : undefined}
          title={collapsed ? 'Security' : undefined}
        >
          <ShieldCheck className="h-5 w-5 shrink-0" aria-hidden />
          {!collapsed && <span>Security</span>}
        </Link>
        <Link
          to="/logout"
          onClick={onNavigate}
          className={linkClass(collapsed, isActiveLink(pathname, { to: '/logout', also: [] }))}
          aria-label={collapsed ? 'Logout' : undefined}
          title={collapsed ? 'Logout' : undefined}
        >
          <LogOut className="h-5 w-5 shrink-0" aria-hidden />
          {!collapsed && <span>Logout</span>}
        </Link>
        {!collapsed && user && (
          <p className="truncate px-3 text-sm text-slate-300" data-testid="nav-user-name">
            {`${user.firstName} ${user.lastName}`.trim() || user.email}
          </p>
        )}
      </div>
    </>
  );
}

/** Below `md`: a top bar with the menu button; the navigation opens as a drawer over the page. */
function MobileNav({ links }: { links: readonly NavLink[] }) {
  const [open, setOpen] = useState(false);
  // From the brand itself, not document.title: on a deep-linked load this bar renders before the root's effect
  // sets the tab title, and it would keep index.html's "VMP" (issue 25, defect 2). null: not known yet.
  const brand = useBrand();
  const title = brand === null ? document.title : brandTitle(brand);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <nav aria-label="Menu" className="flex items-center gap-2 bg-slate-900 px-3 py-2 text-white md:hidden">
        <Dialog.Trigger className={iconButton} aria-label={TEXT.openNavigation}>
          <Menu className="h-5 w-5" aria-hidden />
        </Dialog.Trigger>
        <span className="truncate text-sm font-semibold" data-testid="top-bar-brand">
          {title}
        </span>
      </nav>
      <Dialog.Portal>
        <Dialog.Overlay
          className="fixed inset-0 bg-slate-950/60 md:hidden"
          style={{ zIndex: MODAL_Z_INDEX }}
          data-testid="drawer-overlay"
        />
        <Dialog.Content
          className="fixed inset-y-0 left-0 flex w-64 max-w-[85vw] flex-col bg-slate-900 text-white shadow-xl md:hidden"
          style={{ zIndex: MODAL_Z_INDEX }}
          aria-describedby={undefined}
        >
          <Dialog.Title className="sr-only">Navigation</Dialog.Title>
          <nav aria-label="Main" className="flex min-h-0 flex-1 flex-col">
            <NavContent
              links={links}
              collapsed={false}
              // Following a link closes the drawer.
              onNavigate={() => setOpen(false)}
              header={
                <Dialog.Close className={iconButton} aria-label={TEXT.closeNavigation}>
                  <X className="h-5 w-5" aria-hidden />
                </Dialog.Close>
              }
            />
          </nav>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** The customer portal's layout, with the live VM status stream every screen's lists follow. */
export function Shell({ children }: { children?: ReactNode }) {
  useLiveVmStatus();
  const { user } = useAuth();
  const links = user?.isCompanyAdmin ? LINKS : LINKS.filter((l) => !l.adminOnly);
  return <ShellLayout links={links}>{children}</ShellLayout>;
}

/** Skip link, sidebar (or drawer) with the given links, and the page. */
export function ShellLayout({ links, children }: { links: readonly NavLink[]; children?: ReactNode }) {
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const toggle = () => {
    const next = !collapsed;
    localStorage.setItem(SIDEBAR_STORAGE_KEY, String(next));
    setCollapsed(next);
  };

  return (
    <div className="flex h-full flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only rounded-md bg-white px-4 py-2 text-sm font-medium text-brand-700 focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:outline-2 focus:outline-brand-600"
      >
        {TEXT.skipToContent}
      </a>
      <MobileNav links={links} />
      <nav
        aria-label="Main"
        className="hidden shrink-0 flex-col bg-slate-900 text-white motion-safe:transition-[width] motion-safe:duration-200 md:flex"
        style={{ width: collapsed ? SIDEBAR_WIDTH_COLLAPSED : SIDEBAR_WIDTH_EXPANDED }}
      >
        <NavContent
          links={links}
          collapsed={collapsed}
          header={
            <button
              type="button"
              onClick={toggle}
              aria-label={collapsed ? TEXT.expandSidebar : TEXT.collapseSidebar}
              className={iconButton}
            >
              {collapsed ? <ChevronsRight className="h-4 w-4" /> : <ChevronsLeft className="h-4 w-4" />}
            </button>
          }
        />
      </nav>
      <div className="min-h-0 min-w-0 flex-1 overflow-hidden">{children ?? <Outlet />}</div>
    </div>
  );
}
