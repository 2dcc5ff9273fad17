/** The route table: every call of SPEC point 7, declared once. */
import { accountRoutes } from './account.ts';
import { activityRoutes, companyAdminRoutes } from './activity.ts';
import { apiTokenRoutes } from './api-tokens.ts';
import { authRoutes, passwordRoutes } from './auth.ts';
import { companyPolicyRoutes, resellerPolicyRoutes } from './company-policy.ts';
import type { RouteDef } from './common.ts';
import { billingRoutes } from './billing.ts';
import { platformRoutes } from './platform.ts';
import { quotaRoutes, resellerQuotaRoutes } from './quotas.ts';
import { resellerBrandingRoutes } from './reseller-branding.ts';
import { resellerCompaniesRoutes, resellerStaffRoutes } from './reseller-companies.ts';
import { resellerCatalogRoutes } from './reseller-catalog.ts';
import { snapshotRoutes } from './snapshots.ts';
import { backupRoutes } from './backups.ts';
import { backupScheduleRoutes } from './backup-schedules.ts';
import { ssoRoutes } from './single-sign-on.ts';
import { sshKeyRoutes } from './ssh-keys.ts';
import { twoFactorRoutes } from './two-factor.ts';
import { stepUpRoutes } from './step-up.ts';
import { passkeyRoutes } from './passkeys.ts';
import { permissionsRoutes, rolesRoutes, teamsRoutes, usersRoutes } from './teams.ts';
import { vmRoutes } from './virtual-machines.ts';

export const routes = {
  auth: authRoutes,
  password: passwordRoutes,
  users: usersRoutes,
  roles: rolesRoutes,
  teams: teamsRoutes,
  permissions: permissionsRoutes,
  vms: vmRoutes,
  snapshots: snapshotRoutes,
  backups: backupRoutes,
  backupSchedules: backupScheduleRoutes,
  platform: platformRoutes,
  resellerBranding: resellerBrandingRoutes,
  billing: billingRoutes,
  companyAdmin: companyAdminRoutes,
  activity: activityRoutes,
  resellerCompanies: resellerCompaniesRoutes,
  resellerStaff: resellerStaffRoutes,
  resellerCatalog: resellerCatalogRoutes,
  quotas: quotaRoutes,
  resellerQuotas: resellerQuotaRoutes,
  sshKeys: sshKeyRoutes,
  twoFactor: twoFactorRoutes,
  passkeys: passkeyRoutes,
  apiTokens: apiTokenRoutes,
  companyPolicy: companyPolicyRoutes,
  resellerPolicy: resellerPolicyRoutes,
  stepUp: stepUpRoutes,
  account: accountRoutes,
  singleSignOn: ssoRoutes,
} as const;

export function allRoutes(): RouteDef[] {
  return Object.values(routes).flatMap((group) => Object.values(group) as RouteDef[]);
}

export { buildPath } from './paths.ts';
