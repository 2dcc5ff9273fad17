/** The route table of SPEC point 2. Public screens stand alone; protected ones sit behind the auth check. */
import { createBrowserRouter, Outlet } from 'react-router';
import { portalConfig } from '../lib/config.ts';
import { ConfirmEmailPage } from '../features/auth/routes/ConfirmEmailPage.tsx';
import { ForgotPasswordPage } from '../features/auth/routes/ForgotPasswordPage.tsx';
import { LoginPage } from '../features/auth/routes/LoginPage.tsx';
import { LogoutPage } from '../features/auth/routes/LogoutPage.tsx';
import { MfaPage } from '../features/auth/routes/MfaPage.tsx';
import { ResetPasswordPage } from '../features/auth/routes/ResetPasswordPage.tsx';
import { DashboardPage } from '../features/dashboard/routes/DashboardPage.tsx';
import { CreateEditTeamPage } from '../features/teams/routes/CreateEditTeamPage.tsx';
import { TeamPage } from '../features/teams/routes/TeamPage.tsx';
import { TeamsPage } from '../features/teams/routes/TeamsPage.tsx';
import { CreateUserPage } from '../features/users/routes/CreateUserPage.tsx';
import { UserPage } from '../features/users/routes/UserPage.tsx';
import { UsersPage } from '../features/users/routes/UsersPage.tsx';
import { CreateVirtualMachinePage } from '../features/virtual-machines/routes/CreateVirtualMachinePage.tsx';
import { VirtualMachinesPage } from '../features/virtual-machines/routes/VirtualMachinesPage.tsx';
import { VmConsolePage } from '../features/virtual-machines/routes/VmConsolePage.tsx';
import { VmDetailsPage } from '../features/virtual-machines/routes/VmDetailsPage.tsx';
import { SupportPage } from '../features/support/routes/SupportPage.tsx';
import { BrandedRoot } from './BrandedRoot.tsx';
import { ErrorPage } from './ErrorPage.tsx';
import { RequireAuth } from './RequireAuth.tsx';
import { Shell } from './Shell.tsx';

export function createRouter() {
  return createBrowserRouter(
    [
      {
        element: <BrandedRoot />,
        errorElement: <ErrorPage />,
        children: [
          { path: '/login', element: <LoginPage /> },
          { path: '/mfa', element: <MfaPage /> },
          { path: '/logout', element: <LogoutPage /> },
          { path: '/resetPassword', element: <ResetPasswordPage /> },
          { path: '/confirmNewUser', element: <ConfirmEmailPage /> },
          { path: '/forgotPassword', element: <ForgotPasswordPage /> },
          {
            element: <RequireAuth />,
            children: [
              { path: '/virtualMachineConsole/:virtualMachineId', element: <VmConsolePage /> },
              {
                element: <Shell />,
                errorElement: <ErrorPage />,
                children: [
                  { path: '/', element: <DashboardPage /> },
                  { path: '/createVirtualMachine', element: <CreateVirtualMachinePage /> },
                  { path: '/createUser', element: <CreateUserPage /> },
                  { path: '/support', element: <SupportPage /> },
                  { path: '/virtualMachines', element: <VirtualMachinesPage /> },
                  { path: '/virtualMachineDetails/:virtualMachineId', element: <VmDetailsPage /> },
                  { path: '/teams', element: <TeamsPage /> },
                  { path: '/team', element: <TeamPage /> },
                  { path: '/createEditTeam', element: <CreateEditTeamPage /> },
                  { path: '/users', element: <UsersPage /> },
                  { path: '/user', element: <UserPage /> },
                ],
              },
            ],
          },
          { path: '*', element: <Outlet />, loader: () => { throw new Response('Not Found', { status: 404, statusText: 'Not Found' }); } },
        ],
      },
    ],
    { basename: portalConfig.basePath === '/' ? undefined : portalConfig.basePath },
  );
}
