/** The route table of SPEC point 2. Public screens stand alone; protected ones sit behind the auth check. */
import type { ComponentType } from 'react';
import { createBrowserRouter, Navigate } from 'react-router';
import { prefetchDashboard } from '../features/dashboard/api/dashboard-prefetch.ts';
import { prefetchVmList } from '../features/virtual-machines/api/vm-list-prefetch.ts';
import { prefetchVmPage } from '../features/virtual-machines/api/vm-page-prefetch.ts';
import { portalConfig } from '../lib/config.ts';
import { BrandedRoot } from './BrandedRoot.tsx';
import { loadChunk } from './chunk-load-error.ts';
import { ErrorPage } from './ErrorPage.tsx';
import { RequireAuth } from './RequireAuth.tsx';

/**
 * Each screen is its own chunk, loaded when first visited (React Router's `lazy`), so the sign-in page does
 * not wait for the whole portal.
 */
function page<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return async () => {
    // Reads first: React Router asks for a screen's code (and the shell's) just before it runs the screen's loader,
    // whose prefetched reads (dashboard-prefetch.ts, vm-list-prefetch.ts, vm-page-prefetch.ts) then queued behind
    // the thirty-odd chunks on the browser's six connections. A few microtasks later (the loaders run by then; not a
    // task later: under load a task waited behind the entry's long tasks), the reads are on the wire first
    // (docs/performance.md).
    for (let i = 0; i < 3; i++) await Promise.resolve();
    // A chunk gone after a deploy reloads the page once (chunk-load-error.ts; docs/failure-states.md).
    return { Component: (await loadChunk(load, navigationTarget))[name] };
  };
}

let current: ReturnType<typeof createBrowserRouter> | undefined;
/** Where the router is going (with the base path), for a reload that should land there. */
function navigationTarget(): string | undefined {
  const to = current?.state.navigation.location;
  return to && current ? current.createHref(to) : undefined;
}

export function createRouter() {
  return (current = createBrowserRouter(
    [
      {
        element: <BrandedRoot />,
        errorElement: <ErrorPage />,
        // While the first screen's chunk loads (a few kB after the shell): a blank page, not a warning.
        hydrateFallbackElement: <div aria-busy="true" />,
        children: [
          { path: '/login', lazy: page(() => import('../features/auth/routes/LoginPage.tsx'), 'LoginPage') },
          { path: '/mfa', lazy: page(() => import('../features/auth/routes/MfaPage.tsx'), 'MfaPage') },
          { path: '/logout', lazy: page(() => import('../features/auth/routes/LogoutPage.tsx'), 'LogoutPage') },
          {
            path: '/resetPassword',
            lazy: page(() => import('../features/auth/routes/ResetPasswordPage.tsx'), 'ResetPasswordPage'),
          },
          {
            path: '/confirmNewUser',
            lazy: page(() => import('../features/auth/routes/ConfirmEmailPage.tsx'), 'ConfirmEmailPage'),
          },
          {
            path: '/forgotPassword',
            lazy: page(() => import('../features/auth/routes/ForgotPasswordPage.tsx'), 'ForgotPasswordPage'),
          },
          {
            // Issue 26 item 3: where the company's identity provider sends the browser back (docs/single-sign-on.md).
            path: '/auth/oidc/callback',
            lazy: page(() => import('../features/auth/routes/SsoCallbackPage.tsx'), 'SsoCallbackPage'),
          },
          {
            element: <RequireAuth />,
            children: [
              {
                path: '/virtualMachineConsole/:virtualMachineId',
                lazy: page(() => import('../features/virtual-machines/routes/VmConsolePage.tsx'), 'VmConsolePage'),
              },
              {
                // The reseller area (issue 13): staff only; its own navigation.
                path: '/reseller',
                lazy: page(() => import('./ResellerShell.tsx'), 'ResellerShell'),
                errorElement: <ErrorPage />,
                children: [
                  {
                    errorElement: <ErrorPage />,
                    children: [
                      { index: true, element: <Navigate to="/reseller/companies" replace /> },
                      {
                        path: 'companies',
                        lazy: page(
                          () => import('../features/reseller-companies/routes/CompaniesPage.tsx'),
                          'CompaniesPage',
                        ),
                      },
                      {
                        path: 'branding',
                        lazy: page(
                          () => import('../features/reseller-branding/routes/BrandingPage.tsx'),
                          'BrandingPage',
                        ),
                      },
                      {
                        path: 'usage',
                        lazy: page(() => import('../features/billing/routes/UsagePage.tsx'), 'UsagePage'),
                      },
                      {
                        path: 'billing',
                        lazy: page(() => import('../features/billing/routes/BillingPage.tsx'), 'BillingPage'),
                      },
                      {
                        path: 'activity',
                        lazy: page(
                          () => import('../features/activity/routes/ResellerActivityPage.tsx'),
                          'ResellerActivityPage',
                        ),
                      },
                      {
                        path: 'company',
                        lazy: page(
                          () => import('../features/reseller-companies/routes/CompanyPage.tsx'),
                          'CompanyPage',
                        ),
                      },
                      {
                        path: 'staff',
                        lazy: page(() => import('../features/reseller-companies/routes/StaffPage.tsx'), 'StaffPage'),
                      },
                      {
                        // Staff set up their own authenticator app or passkey here (docs/two-factor.md).
                        path: 'security',
                        lazy: page(() => import('../features/security/routes/SecurityPage.tsx'), 'SecurityPage'),
                      },
                      {
                        path: 'catalog',
                        lazy: page(() => import('../features/reseller-catalog/routes/CatalogPage.tsx'), 'CatalogPage'),
                      },
                      {
                        path: 'hosts',
                        lazy: page(() => import('../features/reseller-catalog/routes/HostsPage.tsx'), 'HostsPage'),
                      },
                    ],
                  },
                ],
              },
              {
                // The shell (navigation, drawer, dialogs) loads with the first protected screen, not with /login.
                lazy: page(() => import('./Shell.tsx'), 'Shell'),
                errorElement: <ErrorPage />,
                // A pathless layer so a screen's failure shows inside the shell, with the navigation still there.
                children: [
                  {
                    errorElement: <ErrorPage />,
                    children: [
                      {
                        path: '/',
                        // The session check and the dashboard's reads start beside its code (dashboard-prefetch.ts);
                        // not again when only the address's query changes (the Teams table's page or search).
                        loader: ({ request }) => prefetchDashboard(new URL(request.url)),
                        shouldRevalidate: () => false,
                        lazy: page(() => import('../features/dashboard/routes/DashboardPage.tsx'), 'DashboardPage'),
                      },
                      {
                        path: '/createVirtualMachine',
                        lazy: page(
                          () => import('../features/virtual-machines/routes/CreateVirtualMachinePage.tsx'),
                          'CreateVirtualMachinePage',
                        ),
                      },
                      {
                        path: '/createUser',
                        lazy: page(() => import('../features/users/routes/CreateUserPage.tsx'), 'CreateUserPage'),
                      },
                      {
                        path: '/support',
                        lazy: page(() => import('../features/support/routes/SupportPage.tsx'), 'SupportPage'),
                      },
                      {
                        path: '/virtualMachines',
                        // The session check, the page of VMs the address asks for and the filters' choices start
                        // beside the list's code (vm-list-prefetch.ts); later changes of page, sort or filter are
                        // the list's own reads.
                        loader: ({ request }) => prefetchVmList(new URL(request.url)),
                        shouldRevalidate: () => false,
                        lazy: page(
                          () => import('../features/virtual-machines/routes/VirtualMachinesPage.tsx'),
                          'VirtualMachinesPage',
                        ),
                      },
                      {
                        path: '/virtualMachineDetails/:virtualMachineId',
                        // Runs beside the page's code (a loader with `lazy`): the session check, the VM's first
                        // reads and the graphs' code start now, not once the page has run (vm-page-prefetch.ts).
                        loader: ({ params }) => prefetchVmPage(Number(params.virtualMachineId)),
                        shouldRevalidate: ({ currentParams, nextParams }) =>
                          currentParams.virtualMachineId !== nextParams.virtualMachineId,
                        lazy: page(
                          () => import('../features/virtual-machines/routes/VmDetailsPage.tsx'),
                          'VmDetailsPage',
                        ),
                      },
                      {
                        // Issue 24: the company's backups, with those kept after their VM was deleted.
                        path: '/backups',
                        lazy: page(() => import('../features/virtual-machines/routes/BackupsPage.tsx'), 'BackupsPage'),
                      },
                      {
                        path: '/teams',
                        lazy: page(() => import('../features/teams/routes/TeamsPage.tsx'), 'TeamsPage'),
                      },
                      { path: '/team', lazy: page(() => import('../features/teams/routes/TeamPage.tsx'), 'TeamPage') },
                      {
                        path: '/createEditTeam',
                        lazy: page(
                          () => import('../features/teams/routes/CreateEditTeamPage.tsx'),
                          'CreateEditTeamPage',
                        ),
                      },
                      {
                        path: '/users',
                        lazy: page(() => import('../features/users/routes/UsersPage.tsx'), 'UsersPage'),
                      },
                      { path: '/user', lazy: page(() => import('../features/users/routes/UserPage.tsx'), 'UserPage') },
                      {
                        path: '/activity',
                        lazy: page(() => import('../features/activity/routes/ActivityPage.tsx'), 'ActivityPage'),
                      },
                      {
                        path: '/sshKeys',
                        lazy: page(() => import('../features/ssh-keys/routes/SshKeysPage.tsx'), 'SshKeysPage'),
                      },
                      {
                        path: '/apiTokens',
                        lazy: page(() => import('../features/api-tokens/routes/ApiTokensPage.tsx'), 'ApiTokensPage'),
                      },
                      {
                        path: '/security',
                        lazy: page(() => import('../features/security/routes/SecurityPage.tsx'), 'SecurityPage'),
                      },
                      {
                        path: '/account',
                        lazy: page(() => import('../features/account/routes/AccountPage.tsx'), 'AccountPage'),
                      },
                      {
                        path: '/singleSignOn',
                        lazy: page(
                          () => import('../features/single-sign-on/routes/SingleSignOnPage.tsx'),
                          'SingleSignOnPage',
                        ),
                      },
                    ],
                  },
                ],
              },
            ],
          },
          { path: '*', lazy: page(() => import('./NotFoundPage.tsx'), 'NotFoundPage') },
        ],
      },
    ],
    { basename: portalConfig.basePath === '/' ? undefined : portalConfig.basePath },
  ));
}
