import './zod-setup.ts';
import { z } from 'zod';
import { idSchema, listQuerySchema, pageQueryFields, pagedSchema, route, timestampSchema } from './common.ts';
import { LIMITS } from './constants.ts';
import { permissionKeySchema } from './permissions.ts';
import {
  addUserFormSchema,
  firstNameSchema,
  lastNameSchema,
  newPasswordSchema,
  loginEmailSchema,
  teamNameSchema,
} from './validation.ts';

export const roleSchema = z.object({ id: z.number().int(), name: z.string(), info: z.string() });
export type Role = z.infer<typeof roleSchema>;

export const teamSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  userCount: z.number().int(),
  vmCount: z.number().int(),
  parentTeamId: z.number().int().nullable(),
  createdAt: timestampSchema,
  /** The caller's effective permissions in this team (the portal offers only these; the server still checks). */
  permissions: z.array(permissionKeySchema),
});
export type Team = z.infer<typeof teamSchema>;

export const teamMemberSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  roleId: z.number().int(),
});
export type TeamMember = z.infer<typeof teamMemberSchema>;

export const userListItemSchema = z.object({
  id: z.number().int(),
  firstName: z.string(),
  lastName: z.string(),
  name: z.string(),
  email: z.string(),
  isCompanyAdmin: z.boolean(),
  /** False until the invitation was accepted. */
  confirmed: z.boolean(),
  createdAt: timestampSchema,
});
export type UserListItem = z.infer<typeof userListItemSchema>;

export const userDetailsSchema = userListItemSchema;

export const membershipSchema = z.object({ id: z.number().int(), name: z.string(), roleId: z.number().int() });
export type Membership = z.infer<typeof membershipSchema>;

export const permissionSchema = z.object({ key: z.string(), description: z.string() });

const teamIdBody = z.object({ teamId: idSchema });

export const rolesRoutes = {
  userRoles: route({
    method: 'GET',
    path: '/roles/userRoles',
    summary: 'The roles a team member can hold, with what each may do',
    tag: 'Roles',
    access: 'user',
    data: z.array(roleSchema),
  }),
  updateUserRoleForTeam: route({
    method: 'POST',
    path: '/roles/updateUserRoleForTeam',
    summary: "Change a member's role in a team",
    tag: 'Roles',
    access: 'user',
    body: z.object({ teamId: idSchema, userId: idSchema, roleId: idSchema }).strict(),
    data: z.null(),
  }),
} as const;

export const usersRoutes = {
  register: route({
    method: 'POST',
    path: '/users/register',
    summary:
      'Self-registration. Portal accounts are created by invitation, so this answers 403 unless an operator enabled it.',
    tag: 'Users',
    access: 'public',
    body: z
      .object({
        email: loginEmailSchema,
        password: newPasswordSchema,
        firstName: firstNameSchema,
        lastName: lastNameSchema,
      })
      .strict(),
    data: z.null(),
  }),
  create: route({
    method: 'POST',
    path: '/users/create',
    summary: "Invite a user into the caller's company, add them to teams with a role and mail the link",
    tag: 'Users',
    access: 'user',
    body: addUserFormSchema.strict(),
    data: z.object({ id: z.number().int(), email: z.string() }),
  }),
  edit: route({
    method: 'POST',
    path: '/users/edit',
    summary: "Change a user's first and last name",
    tag: 'Users',
    access: 'user',
    body: z.object({ id: idSchema, firstName: firstNameSchema, lastName: lastNameSchema }).strict(),
    data: userDetailsSchema,
  }),
  list: route({
    method: 'GET',
    path: '/users/list',
    summary: "Users of the caller's company",
    tag: 'Users',
    access: 'user',
    query: listQuerySchema,
    data: pagedSchema(userListItemSchema),
  }),
  details: route({
    method: 'GET',
    path: '/users/details/:id',
    summary: 'One user',
    tag: 'Users',
    access: 'user',
    params: z.object({ id: idSchema }),
    data: userDetailsSchema,
  }),
  teams: route({
    method: 'GET',
    path: '/users/teams/:userId',
    summary: "A user's team memberships",
    tag: 'Users',
    access: 'user',
    params: z.object({ userId: idSchema }),
    query: z.object(pageQueryFields),
    data: pagedSchema(membershipSchema),
  }),
  delete: route({
    method: 'DELETE',
    path: '/users/delete/:id',
    summary: 'Delete a user (never yourself)',
    tag: 'Users',
    access: 'user',
    params: z.object({ id: idSchema }),
    data: z.null(),
  }),
} as const;

export const teamsRoutes = {
  list: route({
    method: 'GET',
    path: '/teams/list',
    summary: "Teams of the caller's company with member and VM counts",
    tag: 'Teams',
    access: 'user',
    query: listQuerySchema,
    data: pagedSchema(teamSchema),
  }),
  details: route({
    method: 'GET',
    path: '/teams/:id',
    summary: 'A team with a page of its members',
    tag: 'Teams',
    access: 'user',
    params: z.object({ id: idSchema }),
    query: z.object(pageQueryFields),
    data: z.object({
      teamName: z.string(),
      members: z.array(teamMemberSchema),
      totalPages: z.number().int(),
      /** The caller's role in this team, or null when they reach it as a company administrator. */
      myRoleId: z.number().int().nullable(),
      /** The caller's effective permissions in this team. */
      permissions: z.array(permissionKeySchema),
    }),
  }),
  create: route({
    method: 'POST',
    path: '/teams/create',
    summary: 'Create a team; the creator becomes its Admin',
    tag: 'Teams',
    access: 'user',
    body: z.object({ name: teamNameSchema, parentTeamId: idSchema.nullable().optional() }).strict(),
    data: z.object({ teamId: z.number().int() }),
  }),
  update: route({
    method: 'POST',
    path: '/teams/update',
    summary: 'Rename a team',
    tag: 'Teams',
    access: 'user',
    body: z.object({ teamId: idSchema, name: teamNameSchema }).strict(),
    data: z.null(),
  }),
  addUser: route({
    method: 'POST',
    path: '/teams/addUser',
    summary: 'Add a user of the same company to a team with a role',
    tag: 'Teams',
    access: 'user',
    body: z.object({ teamId: idSchema, userId: idSchema, roleId: idSchema }).strict(),
    data: z.null(),
  }),
  removeUser: route({
    method: 'DELETE',
    path: '/teams/removeUser',
    summary: 'Remove a user from a team',
    tag: 'Teams',
    access: 'user',
    body: z.object({ userId: idSchema, teamId: idSchema }).strict(),
    data: z.null(),
  }),
  delete: route({
    method: 'DELETE',
    path: '/teams/delete',
    summary: 'Delete a team',
    tag: 'Teams',
    access: 'user',
    body: teamIdBody.strict(),
    data: z.null(),
  }),
} as const;

export const permissionsRoutes = {
  list: route({
    method: 'GET',
    path: '/permissions/list/:id',
    summary: "A team's members with their roles, and the permissions each role grants (the set-permissions screen)",
    tag: 'Permissions',
    access: 'user',
    params: z.object({ id: idSchema }),
    data: z.object({
      teamId: z.number().int(),
      members: z.array(teamMemberSchema),
      roles: z.array(roleSchema.extend({ permissions: z.array(z.string()) })),
      permissions: z.array(permissionSchema),
    }),
  }),
  assign: route({
    method: 'POST',
    path: '/permissions/assign',
    summary: "Set several members' roles in one team at once",
    tag: 'Permissions',
    access: 'user',
    body: z
      .object({
        teamId: idSchema,
        assignments: z
          .array(z.object({ userId: idSchema, roleId: idSchema }).strict())
          .min(1)
          .max(LIMITS.name),
      })
      .strict(),
    data: z.null(),
  }),
} as const;
