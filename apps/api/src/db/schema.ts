/**
 * The whole data model. Tenancy runs distributor → reseller → company → users/teams/VMs; every
 * tenant table carries `company_id` so each query can be scoped by it.
 */
import { sql } from 'drizzle-orm';
import { STAFF_ROLES } from '@portal/contract/permissions';
import { OPERATION_KINDS, VM_STATUSES } from '@portal/contract/vm-lifecycle';
import {
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  real,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true }).notNull().defaultNow();

/** Branding and mail fields shared by distributors and resellers. */
const brand = () => ({
  name: text('name').notNull(),
  logoUrl: text('logo_url'),
  tabLogoUrl: text('tab_logo_url'),
  /** Sender address of the portal's mail. */
  email: text('email'),
  /** Where support messages go. */
  supportEmail: text('support_email'),
});

export const distributors = pgTable('distributors', {
  id: serial('id').primaryKey(),
  externalId: text('external_id').unique(),
  ...brand(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const resellers = pgTable('resellers', {
  id: serial('id').primaryKey(),
  distributorId: integer('distributor_id')
    .notNull()
    .references(() => distributors.id),
  externalId: text('external_id').unique(),
  ...brand(),
  /** ISO 4217 code of the prices in its catalog (configuration_prices) and of its usage exports. */
  currency: text('currency').notNull().default('USD'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Host names a reseller's portal answers on (issue 13, custom domains): the login page, tab and mails carry the
 * brand of the reseller whose domain the request came to. Stored lower-case, without port; one reseller each.
 */
export const resellerDomains = pgTable(
  'reseller_domains',
  {
    host: text('host').primaryKey(),
    resellerId: integer('reseller_id')
      .notNull()
      .references(() => resellers.id, { onDelete: 'cascade' }),
    /** The domain links in this reseller's mails use (at most one per reseller). */
    isPrimary: boolean('is_primary').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    index('reseller_domains_reseller_idx').on(t.resellerId),
    uniqueIndex('reseller_domains_one_primary')
      .on(t.resellerId)
      .where(sql`is_primary`),
  ],
);

/**
 * 'customer' companies are the reseller's customers (SPEC's companies). Each reseller also has one 'staff'
 * company that holds its staff users (docs/decisions/0011): no company list, count or usage ever shows it.
 */
export const companyKindEnum = pgEnum('company_kind', ['customer', 'staff']);

export const companies = pgTable(
  'companies',
  {
    id: serial('id').primaryKey(),
    resellerId: integer('reseller_id')
      .notNull()
      .references(() => resellers.id),
    externalId: text('external_id').unique(),
    name: text('name').notNull(),
    kind: companyKindEnum('kind').notNull().default('customer'),
    /** While set, the company's users cannot sign in (sessions refused) and its VMs are stopped. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    suspendedReason: text('suspended_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('companies_reseller_idx').on(t.resellerId, t.kind, t.name),
    uniqueIndex('companies_one_staff_per_reseller')
      .on(t.resellerId)
      .where(sql`kind = 'staff'`),
  ],
);

export const staffRoleEnum = pgEnum('staff_role', STAFF_ROLES);

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    /** Stored lower-cased; unique across the platform because sign-in is by email alone. */
    email: text('email').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    /** argon2id; null until an invited user sets one. */
    passwordHash: text('password_hash'),
    /** Company administrators manage every team and user of their company. */
    isCompanyAdmin: boolean('is_company_admin').notNull().default(false),
    /** Reseller staff (issue 13; users of the reseller's 'staff' company): their role in the reseller area. */
    staffRole: staffRoleEnum('staff_role'),
    forcePasswordReset: boolean('force_password_reset').notNull().default(false),
    /** Wrong sign-in codes since the last right one, across logins (issue 9: per-account guess limit). */
    mfaFailures: integer('mfa_failures').notNull().default(0),
    /** While in the future, no code is checked for this account (the back-off after repeated wrong codes). */
    mfaBlockedUntil: timestamp('mfa_blocked_until', { withTimezone: true }),
    emailConfirmedAt: timestamp('email_confirmed_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email), index('users_company_idx').on(t.companyId, t.id)],
);

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 of the cookie's token: a leaked table does not leak live sessions. */
    id: text('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 'mfa' until the emailed code is accepted, then 'authenticated'. */
    state: text('state', { enum: ['mfa', 'authenticated'] }).notNull(),
    rememberMe: boolean('remember_me').notNull().default(false),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

export const mfaChallenges = pgTable('mfa_challenges', {
  id: serial('id').primaryKey(),
  sessionId: text('session_id')
    .notNull()
    .references(() => sessions.id, { onDelete: 'cascade' })
    .unique(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull(),
  attempts: integer('attempts').notNull().default(0),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: createdAt(),
});

/** Emailed single-use keys: password reset links and invitations. */
export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['reset_password', 'confirm_email'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('one_time_tokens_hash_key').on(t.tokenHash), index('one_time_tokens_user_idx').on(t.userId)],
);

export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: serial('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    fromAddress: text('from_address').notNull(),
    replyTo: text('reply_to'),
    subject: text('subject').notNull(),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    /** pending → sent | failed (after the last retry); 'kept' when no SMTP is configured. */
    status: text('status', { enum: ['pending', 'sent', 'failed', 'kept'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [index('mail_outbox_due_idx').on(t.status, t.nextAttemptAt)],
);

export const roles = pgTable('roles', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  info: text('info').notNull(),
});

export const teams = pgTable(
  'teams',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    name: text('name').notNull(),
    parentTeamId: integer('parent_team_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('teams_company_idx').on(t.companyId, t.id),
    // One name per company whatever the letter case: the service checks first, this holds under races.
    uniqueIndex('teams_company_name_key').on(t.companyId, sql`lower(${t.name})`),
  ],
);

export const teamMembers = pgTable(
  'team_members',
  {
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: integer('role_id')
      .notNull()
      .references(() => roles.id),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] }), index('team_members_user_idx').on(t.userId)],
);

export const auditLog = pgTable(
  'audit_log',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id'),
    actorUserId: integer('actor_user_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    requestId: text('request_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_company_idx').on(t.companyId, t.createdAt),
    // The activity screens' filters (issue 13): by acting user, by action, newest first within a company.
    index('audit_log_actor_idx').on(t.companyId, t.actorUserId, t.createdAt),
    index('audit_log_action_idx').on(t.companyId, t.action, t.createdAt),
  ],
);

// ---- VM catalog ----

export const countries = pgTable('countries', { id: serial('id').primaryKey(), name: text('name').notNull().unique() });

export const regions = pgTable('regions', {
  id: serial('id').primaryKey(),
  countryId: integer('country_id')
    .notNull()
    .references(() => countries.id),
  name: text('name').notNull(),
});

export const cities = pgTable('cities', {
  id: serial('id').primaryKey(),
  regionId: integer('region_id')
    .notNull()
    .references(() => regions.id),
  name: text('name').notNull(),
});

export const images = pgTable(
  'images',
  {
    id: serial('id').primaryKey(),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    name: text('name').notNull(),
  },
  (t) => [uniqueIndex('images_region_name_key').on(t.regionId, t.name)],
);

export const configurations = pgTable('configurations', {
  id: serial('id').primaryKey(),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
  cpu: integer('cpu').notNull(),
  ram: integer('ram').notNull(),
  disk: integer('disk').notNull(),
});

export const providers = pgTable('providers', {
  id: serial('id').primaryKey(),
  /** The reseller whose cloud this is (its staff see and edit its hosts); null: the platform's own, shared. */
  resellerId: integer('reseller_id').references(() => resellers.id),
  name: text('name').notNull(),
  /** Key in the driver registry: 'simulator', 'libvirt' */
  driver: text('driver').notNull(),
  settings: jsonb('settings')
    .notNull()
    .default(sql`'{}'::jsonb`),
  enabled: boolean('enabled').notNull().default(true),
});

/**
 * A libvirt host of a provider in a region (docs/virtual-machines.md, "Hosts and placement"): its URI, its
 * capacity (given by the operator or read from the host when registered), how far it may be overcommitted,
 * whether it takes new machines, and what the host monitor last saw.
 */
export const hosts = pgTable(
  'hosts',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull().unique(),
    uri: text('uri').notNull(),
    providerId: integer('provider_id')
      .notNull()
      .references(() => providers.id),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    cpus: integer('cpus').notNull(),
    ramGb: real('ram_gb').notNull(),
    diskGb: real('disk_gb').notNull(),
    cpuOvercommit: real('cpu_overcommit').notNull().default(4),
    ramOvercommit: real('ram_overcommit').notNull().default(1),
    diskOvercommit: real('disk_overcommit').notNull().default(1),
    /** Disabled hosts take nothing new; draining hosts take nothing new while their machines move off or end. */
    enabled: boolean('enabled').notNull().default(true),
    draining: boolean('draining').notNull().default(false),
    /** The host monitor's last successful look, and its last failure (null while the host answers). */
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: createdAt(),
  },
  (t) => [index('hosts_provider_region_idx').on(t.providerId, t.regionId)],
);

/** A region's public addresses; a VM holds at most one, and an address is never held twice (unique vm_id). */
export const publicAddresses = pgTable(
  'public_addresses',
  {
    id: serial('id').primaryKey(),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    address: text('address').notNull().unique(),
    vmId: integer('vm_id')
      .unique()
      .references(() => virtualMachines.id),
    allocatedAt: timestamp('allocated_at', { withTimezone: true }),
  },
  (t) => [
    index('public_addresses_free_idx')
      .on(t.regionId, t.id)
      .where(sql`vm_id is null`),
  ],
);

/**
 * A reseller's prices for a size (issue 13): what its customers are billed per month, or per hour for part months.
 * numeric, not float: money. Currency: resellers.currency.
 */
export const configurationPrices = pgTable(
  'configuration_prices',
  {
    resellerId: integer('reseller_id')
      .notNull()
      .references(() => resellers.id, { onDelete: 'cascade' }),
    configurationId: integer('configuration_id')
      .notNull()
      .references(() => configurations.id),
    monthlyPrice: numeric('monthly_price', { precision: 12, scale: 2 }).notNull(),
    hourlyPrice: numeric('hourly_price', { precision: 12, scale: 5 }).notNull(),
    /**
     * Whether new VMs of this size may be created (docs/decisions/0012). A withdrawn size keeps its row, so the
     * VMs already running keep being billed at its price.
     */
    offered: boolean('offered').notNull().default(true),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.configurationId] })],
);

/**
 * An image of a region's pools that a reseller does not offer its customers (decision 0014). Keyed by the image's
 * name, not its row: the host monitor deletes and re-inserts image rows as the pools change, and a withdrawal
 * outlives an image that disappears and comes back.
 */
export const imageWithdrawals = pgTable(
  'image_withdrawals',
  {
    resellerId: integer('reseller_id')
      .notNull()
      .references(() => resellers.id, { onDelete: 'cascade' }),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    image: text('image').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.resellerId, t.regionId, t.image] })],
);

/** Which provider can run which configuration of which image in which region. */
export const providerOfferings = pgTable(
  'provider_offerings',
  {
    providerId: integer('provider_id')
      .notNull()
      .references(() => providers.id),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    configurationId: integer('configuration_id')
      .notNull()
      .references(() => configurations.id),
  },
  (t) => [
    primaryKey({ columns: [t.providerId, t.regionId, t.configurationId] }),
    index('provider_offerings_region_idx').on(t.regionId, t.configurationId),
  ],
);

/** The lifecycle table's statuses and operation kinds (packages/contract/src/vm-lifecycle.ts), enforced by the database. */
export const vmStatusEnum = pgEnum('vm_status', VM_STATUSES);
export const operationKindEnum = pgEnum('operation_kind', OPERATION_KINDS);

export const virtualMachines = pgTable(
  'virtual_machines',
  {
    id: serial('id').primaryKey(),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    teamId: integer('team_id').references(() => teams.id),
    createdByUserId: integer('created_by_user_id'),
    name: text('name').notNull(),
    status: vmStatusEnum('status').notNull(),
    configurationId: integer('configuration_id')
      .notNull()
      .references(() => configurations.id),
    regionId: integer('region_id')
      .notNull()
      .references(() => regions.id),
    image: text('image').notNull(),
    providerId: integer('provider_id')
      .notNull()
      .references(() => providers.id),
    /** The driver's own id for the machine, once created. */
    providerRef: text('provider_ref'),
    /** The host the machine was placed on (libvirt providers with registered hosts); null otherwise. */
    hostId: integer('host_id').references(() => hosts.id),
    publicIp: text('public_ip'),
    privateIp: text('private_ip'),
    sshUsername: text('ssh_username').notNull().default('root'),
    sshPassword: text('ssh_password'),
    publicKey: text('public_key'),
    privateKey: text('private_key'),
    errorReason: text('error_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Set when deletion completes; usage counts still see the VM for the months it existed. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    // The VM list reads live VMs of one company: paged by name or newest first straight off these
    // partial indexes, and searched by name fragment through a trigram GIN index that also holds the
    // company (btree_gin), so a search touches only matching rows of that company.
    index('vms_live_name_idx')
      .on(t.companyId, t.name, t.id)
      .where(sql`deleted_at is null`),
    index('vms_live_created_idx')
      .on(t.companyId, t.createdAt, t.id)
      .where(sql`deleted_at is null`),
    index('vms_live_search_idx')
      .using('gin', t.companyId, sql`${t.name} gin_trgm_ops`)
      .where(sql`deleted_at is null`),
    // Usage counts include deleted VMs for the months they existed.
    index('vms_company_created_idx').on(t.companyId, t.createdAt),
    index('vms_team_idx').on(t.teamId),
    // The reconciler walks the machines a provider made, page by page in id order; never a scan of every VM.
    index('vms_provisioned_idx')
      .on(t.id)
      .where(sql`deleted_at is null and provider_ref is not null`),
  ],
);

/** Durable VM work: recorded before it runs, claimed with FOR UPDATE SKIP LOCKED, resumed after restarts. */
export const operations = pgTable(
  'operations',
  {
    id: serial('id').primaryKey(),
    vmId: integer('vm_id')
      .notNull()
      .references(() => virtualMachines.id),
    kind: operationKindEnum('kind').notNull(),
    status: text('status', { enum: ['pending', 'running', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    payload: jsonb('payload')
      .notNull()
      .default(sql`'{}'::jsonb`),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    runAfter: timestamp('run_after', { withTimezone: true }).notNull().defaultNow(),
    lockedBy: text('locked_by'),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    requestedByUserId: integer('requested_by_user_id'),
    createdAt: createdAt(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    index('operations_due_idx').on(t.status, t.runAfter),
    /** One unfinished operation per VM. */
    uniqueIndex('operations_one_active_per_vm')
      .on(t.vmId)
      .where(sql`status in ('pending', 'running')`),
  ],
);

/**
 * Single-use console links (`getConsole`): kept here rather than in one process so that the console page
 * may be served by another API instance. Only a keyed hash of the token is stored; rows are purged once expired.
 */
export const consoleTokens = pgTable(
  'console_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    vmId: integer('vm_id').notNull(),
    /** The session that asked for the link (sessions.id); only that session may open it. */
    sessionId: text('session_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index('console_tokens_expires_idx').on(t.expiresAt)],
);

/**
 * Usage for billing (issue 13): one row per stretch of time a VM existed at one size. A create opens one, a
 * resize closes it and opens the next, a delete closes the last. Hours per month are read from these.
 */
export const vmSizePeriods = pgTable(
  'vm_size_periods',
  {
    id: serial('id').primaryKey(),
    vmId: integer('vm_id')
      .notNull()
      .references(() => virtualMachines.id),
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id),
    configurationId: integer('configuration_id')
      .notNull()
      .references(() => configurations.id),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    /** Null while the VM still exists at this size. */
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [
    index('vm_size_periods_company_idx').on(t.companyId, t.startedAt),
    index('vm_size_periods_vm_idx').on(t.vmId),
    /** At most one open period per VM. */
    uniqueIndex('vm_size_periods_one_open')
      .on(t.vmId)
      .where(sql`ended_at is null`),
  ],
);

/** A reseller's billing system endpoint: usage is pushed there, signed with HMAC-SHA256 over the body. */
export const billingWebhooks = pgTable('billing_webhooks', {
  resellerId: integer('reseller_id')
    .primaryKey()
    .references(() => resellers.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  /** The signing secret; shown to staff once when set. Needed in clear to sign, so it is never logged. */
  secret: text('secret').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const webhookDeliveryStatusEnum = pgEnum('webhook_delivery_status', ['pending', 'delivered', 'failed']);

/** Every push to a billing webhook, its attempts and outcome: the delivery log staff read. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: serial('id').primaryKey(),
    resellerId: integer('reseller_id')
      .notNull()
      .references(() => resellers.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    /** The customer company and UTC month ('YYYY-MM') a usage.month delivery reports (the delivery log shows them). */
    companyId: integer('company_id').references(() => companies.id),
    month: text('month'),
    /** 'schedule' (the worker, after the month closed: at most one per company-month) or 'manual' (send now). */
    trigger: text('trigger').notNull().default('manual'),
    payload: jsonb('payload').notNull(),
    status: webhookDeliveryStatusEnum('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_reseller_idx').on(t.resellerId, t.createdAt),
    /** The month-close push happens once per company-month, however many instances run the worker. */
    uniqueIndex('webhook_deliveries_scheduled_once')
      .on(t.resellerId, t.event, t.companyId, t.month)
      .where(sql`trigger = 'schedule'`),
  ],
);

export const supportMessages = pgTable('support_messages', {
  id: serial('id').primaryKey(),
  companyId: integer('company_id')
    .notNull()
    .references(() => companies.id),
  userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
  message: text('message').notNull(),
  outboxId: integer('outbox_id'),
  createdAt: createdAt(),
});

export const clientLogs = pgTable('client_logs', {
  id: serial('id').primaryKey(),
  userId: integer('user_id'),
  level: text('level').notNull(),
  message: text('message').notNull(),
  details: jsonb('details'),
  createdAt: createdAt(),
});

/** Platform operator tokens for the operator calls (imports, debug, profiling). */
export const apiTokens = pgTable('api_tokens', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  revokedAt: timestamp('revoked_at', { withTimezone: true }),
});

/** Small key/value settings the server keeps (e.g. the generated session secret). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});
