/**
 * Company administration from the portal and the activity (audit) log (issue 13, item 6): granting and revoking
 * company administration on the Users screens, and the log of who did what, when, to which record — for company
 * administrators (their company) and reseller staff (their reseller's companies).
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idSchema, pagedSchema, route, timestampSchema } from './common.ts';
import { MAX_ROWS_PER_PAGE } from './constants.ts';
import { userDetailsSchema } from './teams.ts';
import type { OperationKind } from './vm-lifecycle.ts';

/** The texts of this area, typed once. */
export const ACTIVITY_TEXT = {
  granted: (name: string) => `${name} is now a company administrator`,
  revoked: (name: string) => `${name} is no longer a company administrator`,
  lastAdmin: 'A company must keep at least one company administrator. Make another user an administrator first.',
  adminsOnly: 'Only company administrators can do that',
  datesOrder: 'The start date must be on or before the end date',
  companyNotFound: 'Company not found',
  noActivity: 'No activity found',
  /** Who an entry without a user reads as: the operator's command line and imports, or the platform itself. */
  operator: 'Operator',
  system: 'System',
  companyAdmin: 'Company administrator',
  companyAdminInfo: 'Company administrators manage every team and user of the company and see its activity.',
  isCompanyAdmin: (name: string) => `${name} is a company administrator.`,
  isNotCompanyAdmin: (name: string) => `${name} is not a company administrator.`,
  grantButton: 'Make company administrator',
  revokeButton: 'Revoke company administration',
  grantTitle: 'Grant company administration?',
  revokeTitle: 'Revoke company administration?',
  grantBody: (name: string) =>
    `${name} will manage every team and user of the company, including other administrators.`,
  revokeBody: (name: string) => `${name} will no longer manage the company's teams and users.`,
  revokeSelfBody:
    'You will no longer be a company administrator, from now on. Another administrator can make you one again.',
  grantConfirm: 'Grant',
  revokeConfirm: 'Revoke',
  grantError: 'Error changing company administration',
  adminBadge: 'Admin',
  activityTitle: 'Activity',
  activityMessage: 'Who did what, and when',
  resellerActivityMessage: 'Who did what in your companies and your staff, and when',
  fetchActivity: 'Error fetching activity',
  allUsers: 'All users',
  allActions: 'All actions',
  allCompanies: 'All companies',
  clearFilters: 'Clear filters',
  deletedUser: 'Deleted user',
} as const;

/** Rows per page of the activity screens. */
export const ACTIVITY_PAGE_SIZE = 20;

const VM_OPERATION_LABELS: Record<OperationKind, string> = {
  create: 'VM created',
  start: 'VM started',
  stop: 'VM stopped',
  forceStop: 'VM powered off',
  reset: 'VM reset',
  resize: 'VM resized',
  delete: 'VM deleted',
  move: 'VM moved to another host',
  rebuild: 'VM rebuilt',
  snapshot: 'VM snapshot taken',
  snapshotRevert: 'VM reverted to a snapshot',
  snapshotDelete: 'VM snapshot deleted',
  backup: 'VM backup taken',
  backupRestore: 'VM restored from a backup',
};

/**
 * What each recorded action reads as on the activity screens (docs/permissions.md lists when each is recorded).
 * An action not listed (a newer module's) still shows, as its key.
 */
export const ACTIVITY_ACTIONS: Readonly<Record<string, string>> = {
  'user.signIn': 'Signed in',
  'user.password.reset': 'Password changed by reset',
  'user.password.change': 'Password changed',
  'user.sessions.revokeOthers': 'Signed out everywhere else',
  'user.confirmEmail': 'Invitation accepted',
  'user.invite': 'User invited',
  'user.invite.existingAccount': 'Invitation to an existing account',
  'user.invite.companyAdmin': 'Company administrator invited',
  'user.edit': 'User edited',
  'user.delete': 'User deleted',
  'user.companyAdmin.grant': 'Company administration granted',
  'user.companyAdmin.revoke': 'Company administration revoked',
  'user.passwordReset.link': 'Password reset link issued',
  'team.create': 'Team created',
  'team.rename': 'Team renamed',
  'team.delete': 'Team deleted',
  'team.member.add': 'Team member added',
  'team.member.remove': 'Team member removed',
  'team.member.role': 'Team role changed',
  'vm.rename': 'VM renamed',
  'vm.password.view': 'VM password viewed',
  'vm.accessKey.download': 'VM private key downloaded',
  'vm.console.open': 'VM console opened',
  'vm.console.close': 'VM console closed',
  'vm.backupDelete': 'VM backup deleted',
  'vm.backupVerify': 'VM backup verification requested',
  'vm.backupVerify.failed': 'VM backup failed its verification',
  'vm.backupScheduleSet': 'VM backup schedule set',
  'vm.backupScheduleRemove': 'VM backup schedule removed',
  'vm.backupScheduleFailed': 'VM scheduled backup failed',
  'user.sshKey.add': 'SSH key added',
  'user.sshKey.remove': 'SSH key removed',
  'user.apiToken.create': 'API token created',
  'user.apiToken.revoke': 'API token revoked',
  'user.twoFactor.enable': 'Authenticator app turned on',
  'user.twoFactor.remove': 'Authenticator app removed',
  'user.twoFactor.recoveryCodes': 'New recovery codes made',
  'user.twoFactor.recoveryCodeUsed': 'Signed in with a recovery code',
  'company.policy.update': 'Sign-in policy changed',
  'reseller.policy.update': 'Staff sign-in policy changed',
  'user.stepUp': 'Confirmed it was them (step-up)',
  'company.sso.update': 'Single sign-on changed',
  'company.sso.disable': 'Single sign-on turned off',
  'user.signIn.sso': 'Signed in with single sign-on',
  ...Object.fromEntries(Object.entries(VM_OPERATION_LABELS).map(([kind, label]) => [`vm.${kind}`, label])),
};

export const activityActionLabel = (action: string): string => ACTIVITY_ACTIONS[action] ?? action;

/** A calendar day, `YYYY-MM-DD`, read as a UTC day (the `to` day is included). */
const daySchema = z.iso.date({ error: 'Use a date in the form YYYY-MM-DD' });

const activityQueryFields = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  rowsPerPage: z.coerce.number().int().min(1).max(MAX_ROWS_PER_PAGE).default(20),
  /** The acting user. */
  userId: idSchema.optional(),
  action: z
    .string()
    .trim()
    .max(64)
    .regex(/^[a-zA-Z][\w.]*$/, 'Unknown action')
    .optional(),
  from: daySchema.optional(),
  to: daySchema.optional(),
};

function datesInOrder(q: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx) {
  if (q.from && q.to && q.from > q.to)
    ctx.addIssue({ code: 'custom', path: ['to'], message: ACTIVITY_TEXT.datesOrder });
}

export const activityQuerySchema = z.object(activityQueryFields).superRefine(datesInOrder);
export type ActivityQuery = z.infer<typeof activityQuerySchema>;
export const resellerActivityQuerySchema = z
  .object({ ...activityQueryFields, companyId: idSchema.optional() })
  .superRefine(datesInOrder);
export type ResellerActivityQuery = z.infer<typeof resellerActivityQuerySchema>;

const personSchema = z.object({ id: z.number().int(), name: z.string(), email: z.string() });
const companyRefSchema = z.object({ id: z.number().int(), name: z.string() });

export const activityEntrySchema = z.object({
  id: z.number().int(),
  createdAt: timestampSchema,
  /** The acting user; null for the operator's command line and imports ('operator') or the platform ('system'). */
  actor: personSchema.nullable(),
  actorKind: z.enum(['user', 'operator', 'system']),
  /** The personal API token the actor used (docs/api-tokens.md); null for a session or no user. */
  token: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  /** The target's current name, or the one recorded with the entry (a deleted team, user or VM). */
  targetName: z.string().nullable(),
  company: companyRefSchema.nullable(),
});
export type ActivityEntry = z.infer<typeof activityEntrySchema>;

/** What the filters offer: the actions and actors found in the caller's scope (and, for staff, the companies). */
export const activityFiltersSchema = z.object({
  actions: z.array(z.string()),
  users: z.array(personSchema),
  companies: z.array(companyRefSchema),
});
export type ActivityFilters = z.infer<typeof activityFiltersSchema>;

export const companyAdminRoutes = {
  set: route({
    method: 'PUT',
    path: '/users/companyAdmin/:id',
    summary:
      "Grant or revoke company administration (company administrators; a company keeps at least one). Same rule as the operator's company-admin command.",
    tag: 'Users',
    access: 'user',
    params: z.object({ id: idSchema }),
    body: z.object({ isCompanyAdmin: z.boolean() }).strict(),
    data: userDetailsSchema,
  }),
} as const;

export const activityRoutes = {
  list: route({
    method: 'GET',
    path: '/activity/list',
    summary: "The activity log of the caller's company, newest first (company administrators)",
    tag: 'Activity',
    access: 'user',
    query: activityQuerySchema,
    data: pagedSchema(activityEntrySchema),
  }),
  filters: route({
    method: 'GET',
    path: '/activity/filters',
    summary: "The actions and acting users found in the caller's company's activity log (company administrators)",
    tag: 'Activity',
    access: 'user',
    data: activityFiltersSchema,
  }),
  resellerList: route({
    method: 'GET',
    path: '/reseller/activity/list',
    summary: "The activity log of the reseller's companies and its staff, newest first",
    tag: 'Reseller',
    access: 'staff',
    query: resellerActivityQuerySchema,
    data: pagedSchema(activityEntrySchema),
  }),
  resellerFilters: route({
    method: 'GET',
    path: '/reseller/activity/filters',
    summary: "The companies, actions and acting users found in the reseller's activity log",
    tag: 'Reseller',
    access: 'staff',
    data: activityFiltersSchema,
  }),
} as const;
