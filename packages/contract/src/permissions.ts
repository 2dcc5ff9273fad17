/**
 * The permission matrix (docs/permissions.md), shared by the server (the authority) and the portal (which
 * only offers what a role may do). A member holds one role per team; company administrators hold every
 * permission on every team of their company, plus the company-wide ones.
 */
import { z } from 'zod';
import { ADMIN_ROLE_ID } from './constants.ts';

export const PERMISSIONS = {
  'team.view': 'See the team, its members and its virtual machines',
  'team.manage': 'Rename the team, add and remove members, change their roles',
  'team.delete': 'Delete the team',
  'vm.view': "See the team's virtual machines, their status and usage",
  'vm.create': 'Create virtual machines in the team',
  'vm.operate': 'Start, stop and reset virtual machines, open the console, read the password and key',
  'vm.modify': 'Rename and upgrade virtual machines',
  'vm.delete': 'Delete virtual machines',
} as const;
export type Permission = keyof typeof PERMISSIONS;
export const permissionKeySchema = z.enum(Object.keys(PERMISSIONS) as [Permission, ...Permission[]]);
export const ALL_PERMISSIONS = permissionKeySchema.options;

/** Company-wide abilities that do not belong to a team role. */
export const COMPANY_PERMISSIONS = {
  'users.manage': 'Invite, edit and delete users of the company (company administrators)',
  'teams.create': 'Create teams (every signed-in user; the creator becomes the team Admin)',
} as const;

export const OPERATOR_ROLE_ID = 2;
export const VIEWER_ROLE_ID = 3;

/** The built-in team roles. Role 1 is Admin, as the spec requires. */
export const BUILT_IN_ROLES = [
  {
    id: ADMIN_ROLE_ID,
    name: 'Admin',
    info: 'Full control of the team: members, roles, settings and all of its virtual machines.',
  },
  {
    id: OPERATOR_ROLE_ID,
    name: 'Operator',
    info: "Creates, starts, stops, resets, resizes and deletes the team's virtual machines and opens their consoles.",
  },
  {
    id: VIEWER_ROLE_ID,
    name: 'Viewer',
    info: 'Read-only: sees the team, its members and its virtual machines, but cannot change anything.',
  },
] as const;

export const ROLE_PERMISSIONS: Record<number, readonly Permission[]> = {
  [ADMIN_ROLE_ID]: [
    'team.view',
    'team.manage',
    'team.delete',
    'vm.view',
    'vm.create',
    'vm.operate',
    'vm.modify',
    'vm.delete',
  ],
  [OPERATOR_ROLE_ID]: ['team.view', 'vm.view', 'vm.create', 'vm.operate', 'vm.modify', 'vm.delete'],
  [VIEWER_ROLE_ID]: ['team.view', 'vm.view'],
};

/** Whether a team role grants a permission; a company administrator (roleId null with isCompanyAdmin) holds all. */
export function roleGrants(roleId: number | null | undefined, permission: Permission): boolean {
  return roleId != null && (ROLE_PERMISSIONS[roleId]?.includes(permission) ?? false);
}

/**
 * The caller's effective team permissions, as read answers report them to the portal (which hides or disables
 * what is missing; the server still checks every write). Company administrators hold all of them.
 */
export function effectivePermissions(roleId: number | null | undefined, isCompanyAdmin: boolean): Permission[] {
  if (isCompanyAdmin) return [...ALL_PERMISSIONS];
  return roleId == null ? [] : [...(ROLE_PERMISSIONS[roleId] ?? [])];
}

/**
 * Reseller staff (issue 13): users of a reseller, not of a customer company. The owner runs the business
 * (companies, branding, catalog, hosts, billing); support may look at everything of its reseller and change nothing.
 */
export const STAFF_ROLES = ['owner', 'support'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
export const staffRoleSchema = z.enum(STAFF_ROLES);
export const STAFF_ROLE_NAMES: Record<StaffRole, string> = { owner: 'Owner', support: 'Support (read-only)' };

/** Whether a staff role may change things (create, suspend, edit) or only read. */
export function staffMayWrite(role: StaffRole | null | undefined): boolean {
  return role === 'owner';
}
