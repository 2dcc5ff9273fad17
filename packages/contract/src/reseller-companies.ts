/**
 * The reseller area's companies (issue 13): a reseller's staff list their customer companies, create one with its
 * first administrator, suspend and resume it, and open it read-only for support. Routes, schemas and texts.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, pageQueryFields, pagedSchema, route, timestampSchema } from './common.ts';
import { LIMITS } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { staffRoleSchema } from './permissions.ts';
import { quotaSchema } from './quotas.ts';
import { firstNameSchema, lastNameSchema, loginEmailSchema, SINGLE_LINE_PATTERN } from './validation.ts';

/** The texts of the companies screens and answers, typed once. */
export const COMPANIES_TEXT = {
  title: 'Companies',
  tableMessage: "Your customers' companies, their users, VMs and this month's usage",
  searchPlaceholder: 'Search companies...',
  empty: 'No companies found',
  createButton: 'Create Company',
  createTitle: 'Create company',
  createSubmit: 'Create and invite',
  created: (email: string) => `Company created. An invitation was sent to ${email}.`,
  emailTaken: 'This email address already has an account. Use another address for the first administrator.',
  notFound: 'Company not found',
  suspend: 'Suspend',
  resume: 'Resume',
  suspendTitle: (name: string) => `Suspend ${name}?`,
  suspendBody:
    'Its users are signed out and cannot sign in, and its running virtual machines are stopped. They see: "Your company\'s account is suspended. Contact your provider."',
  resumeTitle: (name: string) => `Resume ${name}?`,
  resumeBody: 'Its users may sign in again. Its virtual machines stay stopped until they start them.',
  suspended: 'Company suspended',
  resumed: 'Company resumed',
  alreadySuspended: 'This company is already suspended',
  notSuspended: 'This company is not suspended',
  readOnlyNote: "The company's users, teams and machines are changed by the company itself, in its portal.",
  statusActive: 'Active',
  statusSuspended: 'Suspended',
} as const;

const companyNameSchema = z
  .string({ error: 'Company name is required' })
  .trim()
  .min(1, { error: 'Company name is required', abort: true })
  .max(LIMITS.name, `Company name must not exceed ${LIMITS.name} characters`)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters);

/** The Create company form and body: the company and the administrator who gets the invitation. */
export const createCompanyFormSchema = z.object({
  name: companyNameSchema,
  adminEmail: loginEmailSchema,
  adminFirstName: firstNameSchema,
  adminLastName: lastNameSchema,
});
export type CreateCompanyForm = z.infer<typeof createCompanyFormSchema>;

export const suspendCompanyBodySchema = z
  .object({
    reason: z
      .string()
      .trim()
      .max(500, 'Reason must not exceed 500 characters')
      .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
      .optional(),
  })
  .strict()
  .optional();

export const companyStatusSchema = z.enum(['active', 'suspended']);

export const companyRowSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: companyStatusSchema,
  suspendedAt: timestampSchema.nullable(),
  suspendedReason: z.string().nullable(),
  userCount: z.number().int(),
  vmCount: z.number().int(),
  /** VM-hours of the current calendar month (UTC), all sizes together, from the VMs' size periods. */
  vmHoursThisMonth: z.number(),
  createdAt: timestampSchema,
});
export type CompanyRow = z.infer<typeof companyRowSchema>;

export const companyDetailSchema = z.object({
  company: companyRowSchema,
  /** The company's limits (set by the reseller) and what its live VMs take. */
  quota: quotaSchema,
  users: z.array(
    z.object({
      id: z.number().int(),
      email: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      isCompanyAdmin: z.boolean(),
      /** False while the invitation is not accepted yet. */
      confirmed: z.boolean(),
      createdAt: timestampSchema,
    }),
  ),
  teams: z.array(
    z.object({ id: z.number().int(), name: z.string(), userCount: z.number().int(), vmCount: z.number().int() }),
  ),
  vms: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      status: z.string(),
      size: z.string(),
      region: z.string(),
      team: z.string().nullable(),
      createdAt: timestampSchema,
    }),
  ),
});
export type CompanyDetail = z.infer<typeof companyDetailSchema>;

export const companyListQuerySchema = z.object(pageQueryFields);

export const resellerCompaniesRoutes = {
  list: route({
    method: 'GET',
    path: '/reseller/companies',
    summary: "The reseller's customer companies with users, live VMs and this month's VM-hours",
    tag: 'Reseller',
    access: 'staff',
    query: companyListQuerySchema,
    data: pagedSchema(companyRowSchema),
  }),
  create: route({
    method: 'POST',
    path: '/reseller/companies',
    summary: 'Create a customer company and invite its first administrator (owner staff)',
    tag: 'Reseller',
    access: 'staff',
    body: createCompanyFormSchema.strict(),
    data: z.object({ id: z.number().int(), adminUserId: z.number().int() }),
  }),
  detail: route({
    method: 'GET',
    path: '/reseller/companies/:id',
    summary: "A company's users, teams and VMs, read-only (any staff)",
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    data: companyDetailSchema,
  }),
  suspend: route({
    method: 'POST',
    path: '/reseller/companies/:id/suspend',
    summary: 'Suspend a company: its users are signed out and refused, its running VMs stopped (owner staff)',
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    body: suspendCompanyBodySchema,
    data: z.object({ stoppedVms: z.number().int() }),
  }),
  resume: route({
    method: 'POST',
    path: '/reseller/companies/:id/resume',
    summary: 'Resume a suspended company; its VMs stay stopped (owner staff)',
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    body: z.object({}).strict().optional(),
    data: z.null(),
  }),
} as const;

/** The reseller area's Staff screen: owners invite staff and change or remove them; support sees the list. */
export const STAFF_TEXT = {
  title: 'Staff',
  message: "The people who run this reseller's business in the portal",
  invite: 'Invite Staff',
  inviteTitle: 'Invite a staff member',
  inviteSubmit: 'Send Invite Email',
  invited: (email: string) => `An invitation was sent to ${email}.`,
  emailTaken: 'This email address already has an account.',
  notFound: 'Staff member not found',
  notYourself: 'You cannot change or remove your own staff account.',
  /** 409: the change would leave the reseller without an owner (e.g. two owners demoting each other at once). */
  lastOwner: 'A reseller keeps at least one owner: this staff member is the last one.',
  roleChanged: 'Staff role changed',
  removed: 'Staff member removed',
  removeTitle: (email: string) => `Remove ${email}?`,
  removeBody: 'They are signed out and can no longer sign in to the reseller area.',
} as const;

export const inviteStaffFormSchema = z.object({ email: loginEmailSchema, role: staffRoleSchema });
export type InviteStaffForm = z.infer<typeof inviteStaffFormSchema>;

export const staffMemberSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: staffRoleSchema,
  confirmed: z.boolean(),
});

export const resellerStaffRoutes = {
  list: route({
    method: 'GET',
    path: '/reseller/staff',
    summary: "The reseller's staff members (any staff)",
    tag: 'Reseller',
    access: 'staff',
    data: z.array(staffMemberSchema),
  }),
  invite: route({
    method: 'POST',
    path: '/reseller/staff',
    summary: 'Invite a staff member with a role (owner staff)',
    tag: 'Reseller',
    access: 'staff',
    body: inviteStaffFormSchema.strict(),
    data: z.object({ id: z.number().int() }),
  }),
  changeRole: route({
    method: 'POST',
    path: '/reseller/staff/:id/role',
    summary: "Change a staff member's role (owner staff; not their own)",
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    body: z.object({ role: staffRoleSchema }).strict(),
    data: z.null(),
  }),
  remove: route({
    method: 'DELETE',
    path: '/reseller/staff/:id',
    summary: 'Remove a staff member (owner staff; not themselves)',
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    data: z.null(),
  }),
} as const;
