/** Business constants of SPEC point 9, typed once for server and portal. */

export const DEFAULT_API_BASE_PATH = '/irontech/api/v1';

export const PAGE_SIZE = {
  dashboardTeams: 10,
  teams: 10,
  users: 10,
  virtualMachines: 10,
  userMemberships: 6,
  teamMembers: 5,
  addUserTeams: 10,
} as const;

/** Largest page a client may ask for; keeps list queries bounded. */
export const MAX_ROWS_PER_PAGE = 100;

export const SEARCH_DEBOUNCE_MS = 200;
export const TEAMS_FETCH_DELAY_MS = 200;
export const REFRESH_SPINNER_MIN_MS = 300;

export const INSTANCE_COUNT_MIN = 1;
export const INSTANCE_COUNT_MAX = 10;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 50;

export const TOAST_AUTO_CLOSE_MS = 5000;
export const TOAST_WIDTH_PX = 320;
export const COPY_FEEDBACK_MS = 1000;

export const SIDEBAR_STORAGE_KEY = 'sidebar-collapsed';
export const SIDEBAR_WIDTH_EXPANDED = '16rem';
export const SIDEBAR_WIDTH_COLLAPSED = '4rem';
export const MODAL_Z_INDEX = 9999;
export const DROPDOWN_MAX_HEIGHT_PX = 200;

/** The one-time sign-in code. */
export const MFA_CODE_LENGTH = 6;
export const MFA_CODE_TTL_MS = 10 * 60 * 1000;
export const MFA_MAX_ATTEMPTS = 5;

/** Lifetimes of emailed links. */
export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
export const INVITE_TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Session lifetimes: a browser session without remember-me, 30 days with it. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const REMEMBER_ME_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session waiting for its emailed code lives as long as the code. */
export const MFA_PENDING_TTL_MS = MFA_CODE_TTL_MS;

export const ADMIN_ROLE_ID = 1;

export const VM_SIZES = [
  { key: 'micro', name: 'Micro', cpu: 2, ram: 4, disk: 80 },
  { key: 'extraSmall', name: 'Extra Small', cpu: 4, ram: 8, disk: 120 },
  { key: 'small', name: 'Small', cpu: 6, ram: 10, disk: 180 },
  { key: 'medium', name: 'Medium', cpu: 8, ram: 12, disk: 240 },
  { key: 'large', name: 'Large', cpu: 12, ram: 48, disk: 300 },
  { key: 'extraLarge', name: 'Extra Large', cpu: 16, ram: 64, disk: 400 },
] as const;

export type VmSizeKey = (typeof VM_SIZES)[number]['key'];
export const VM_SIZE_KEYS = VM_SIZES.map((s) => s.key) as [VmSizeKey, ...VmSizeKey[]];

export const VM_STATUSES = [
  'Running',
  'Stopped',
  'Shutoff',
  'Error',
  'Provisioning',
  'Starting',
  'Stopping',
  'Resizing',
  // Snapshots (issue 24 item 1): one being taken or deleted, the disk going back to one.
  'Snapshotting',
  'Reverting',
  // Backups (issue 24 item 2): the disk going back to a backup (a take keeps the VM's status).
  'Restoring',
] as const;
export type VmStatus = (typeof VM_STATUSES)[number];

/** The default brand when neither reseller nor distributor sets one (SPEC point 1). */
export const DEFAULT_BRAND = {
  resellerName: null,
  /** Tab title when there is no reseller name: a short acronym. */
  acronymTitle: 'VMP',
} as const;

/** Largest PostgreSQL `integer`: every id the API accepts is 1..PG_INT_MAX, so an overflow is bad input, not a 500. */
export const PG_INT_MAX = 2_147_483_647;

/** A user's SSH key store (issue 23 item 5): keys per user, the longest public key line accepted, RSA's floor. */
/**
 * Snapshots (issue 24 item 1): how many a VM may hold when its reseller's catalog row for the size sets no other
 * limit (configuration_prices.snapshot_limit), the largest limit a reseller may set (0: none allowed), and the
 * longest name.
 */
export const SNAPSHOTS = { defaultPerVm: 3, nameMax: 64, limitMax: 50 } as const;
/**
 * Backups (issue 24 item 2): how many a VM may keep when its reseller's catalog row for the size sets no other limit
 * (configuration_prices.backup_limit), the largest limit a reseller may set (0: none allowed), the longest name.
 */
export const BACKUPS = { defaultPerVm: 7, nameMax: 64, limitMax: 50 } as const;
export const SSH_KEYS = { perUser: 50, maxLineLength: 16 * 1024, minRsaBits: 2048 } as const;
/** The largest cloud-init user-data a create takes, in bytes of UTF-8 (issue 23 item 5). */
export const USER_DATA_MAX_BYTES = 16 * 1024;

/** Limits on free text coming from outside. */
export const LIMITS = {
  bodyBytes: 64 * 1024,
  name: 100,
  email: 254,
  supportMessage: 5000,
  search: 100,
  logMessage: 4000,
} as const;
