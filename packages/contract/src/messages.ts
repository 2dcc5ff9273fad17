/**
 * Every user-facing text of SPEC points 2, 4, 5 and 8, typed once. The portal shows these words
 * and the server answers with them, so a test can look for the same constant on both sides.
 */

/** Validation messages (SPEC point 5). */
export const VALIDATION = {
  emailRequired: 'Email is required',
  emailFormat: 'Entered value does not match email format',
  passwordRequired: 'Password is required',
  forgotEmailRequired: 'An email address is required',
  forgotEmailFormat: 'Please enter a valid email address',
  passwordMin: 'Password must be at least 12 characters long',
  passwordMax: 'Password must not exceed 50 characters',
  /** The combined complexity message; its text is ours (SPEC leaves it open). */
  passwordComplexity:
    'Password must contain at least one number, one special character, one uppercase and one lowercase letter, and no spaces',
  passwordMismatch: "Your passwords don't match. Please try again.",
  firstNameRequired: 'First Name is Required',
  lastNameRequired: 'Last Name is Required',
  missingResetToken:
    'You seem to be missing your Reset Token in your URL. Please try to open this reset link from your email again',
  roleRequired: 'Role is required',
  firstNameEmpty: 'First name cannot be empty',
  lastNameEmpty: 'Last name cannot be empty',
  firstNameSpecial: 'First name cannot contain special characters',
  lastNameSpecial: 'Last name cannot contain special characters',
  userUpdated: 'User updated successfully',
  mfaRequired: 'MFA is required',
  fillEmptyFields: 'Please fill in empty fields',
  copiesRange: 'Number of copies must be between 1 to 10',
  selectCountry: 'Please select a country',
  selectRegion: 'Please select a region',
  selectImage: 'Please select an Image',
  selectConfiguration: 'Please select a machine configuration',
  teamNameEmpty: 'Team name cannot be empty',
  renameEmpty: 'Name cannot be empty',
  renameSame: 'New name must be different from the current name',
  invalidConsoleUrl: 'Invalid console URL',
  /** Our text: NUL and other control characters (PostgreSQL refuses NUL in text). */
  controlCharacters: 'Text must not contain control characters',
  brandUrl: 'Logo URL must be https:, http: or a data:image/… URL',
  idTooLarge: 'Id is too large',
  /** Our text: a lone UTF-16 surrogate (e.g. "\ud800") is not text; PostgreSQL's json refuses it. */
  malformedText: 'Text must be valid Unicode',
} as const;

/** Helper error prefixes (SPEC point 8); most are followed by ': {detail}'. */
export const ERRORS = {
  fetchDashboard: 'Error fetching dashboard data',
  fetchVms: 'Error fetching virtual machines',
  createVm: 'Error creating virtual machine',
  fetchVmDetails: 'Error fetching virtual machine details',
  fetchConfigurations: 'Error fetching configurations',
  fetchImages: 'Error fetching virtual machines images',
  invalidConsoleUrl: 'Invalid console URL',
  fetchConsole: 'Failed to fetch console URL',
  fetchTeam: 'Error fetching team',
  fetchTeams: 'Error fetching teams',
  addUserToTeam: 'Error adding user to team',
  removeUserFromTeam: 'Error removing user from team',
  createTeam: 'Error creating team',
  updateTeam: 'Error updating team',
  deleteTeam: 'Error deleting team',
  login: 'Error logging in.',
  authenticating: 'Error authenticating',
  checkAuth: 'Error checking auth.',
  resetPassword: 'Error resetting password',
  confirmEmail: 'Error confirming email',
  logout: 'Error logging out',
  fetchUsers: 'Error fetching users',
  createUsers: 'Error creating users',
  editUser: 'Error editing user',
  deleteUsers: 'Error deleting users',
  forgotPassword: 'Error forgot password',
  fetchUser: 'Error fetching user',
  fetchRoles: 'Error fetching user roles',
  updateRole: 'Error updating user role',
} as const;

/** Joins a helper prefix with a detail the way the portal shows it. */
export function withDetail(prefix: string, detail?: string | null): string {
  // "Error logging in." ends a sentence; before its detail the period goes ("Error logging in: Invalid email
  // or password", not "in.: Invalid", issue 25).
  return detail ? `${prefix.replace(/(?<!\.)\.$/, '')}: ${detail}` : prefix;
}

/** Texts of screens, dialogs and toasts (SPEC points 2 and 4). */
export const TEXT = {
  unexpectedError: 'Unexpected Application Error!',
  invalidMfaCode: 'Invalid MFA code',
  retriesExhausted: 'Retries exhausted',
  retriesExhaustedHelp: 'Too many wrong codes. Please sign in again to get a new code.',
  consoleFailed: 'Failed to load console. Please try again.',
  consoleLoading: 'Loading console...',
  consoleUnavailable: 'Console is currently unavailable',
  noVms: 'No virtual machines found',
  noUsers: 'No users found',
  noTeams: 'No teams found',
  noTeamMembers: 'No team members found',
  companyLogoAlt: 'Company Logo',
  collapseSidebar: 'Collapse sidebar',
  expandSidebar: 'Expand sidebar',
  searchDefault: 'Search...',
  searchTeams: 'Search teams...',
  searchTeamMembers: 'Search team members...',
  teamsTableTitle: 'Teams',
  teamsTableMessage: 'Manage teams and their resource allocations',
  deleteTitle: (name: string) => `Delete ${name}?`,
  deleteBody: (item: string) => `You are going to delete the ${item} completely.`,
  cannotBeReversed: 'This action cannot be reversed.',
  pageXofY: (x: number, y: number) => `Page ${x} of ${y}`,
  mfaHeading: 'Please check your email',
  forgotSent: 'Reset request sent!',
  forgotSentBody:
    "If an account with that email exists, you'll receive a password reset link shortly. Please check your inbox and spam folder.",
  forgotContact: 'Please contact support for help.',
  passwordReset: 'Password has been reset.',
  emailConfirmed: 'Your email has been confirmed',
  loggingOut: 'Logging Out',
  logoutSuccessful: 'Logout Successful',
  messageSent: 'Message sent!',
  copied: (label: string) => `${label} copied to clipboard`,
  refreshingVm: 'Refreshing VM details',
  upgradeWait: 'This process can take up to a minute. You can close this window to continue working.',
  noProvider: 'Chosen configuration has no possible provider',
  completedCreatingUser: (email: string) => `Completed creating user: ${email}`,
  vmStarted: 'VM is being started',
  vmStopped: 'VM is being stopped',
  vmReset: 'VM is being reset',
  vmDeleted: 'VM is being deleted',
  startVmTitle: 'Start VM',
  stopVmTitle: 'Stop VM',
  resetVmTitle: 'Reset VM',
  startVmText: 'Are you sure you want to start the VM?',
  stopVmText: 'Are you sure you want to stop the VM?',
  resetVmText: 'Are you sure you want to reset the VM?',
  none: 'None',
  // ---- issue #12: only what the user may do, feedback for every destructive action, errors in the shell ----
  /** Tooltip of an action the caller's role lacks. */
  roleLacks: 'Your role does not allow this',
  /** Tooltip of a company-wide action (users) a non-administrator sees. */
  companyAdminsOnly: 'Only company administrators can do that',
  vmRenamed: (name: string) => `VM renamed to ${name}`,
  vmUpgradeAccepted: 'VM upgrade started',
  teamUpdated: 'Team updated',
  teamDeleted: (name: string) => `Team ${name} deleted`,
  userDeleted: (name: string) => `User ${name} deleted`,
  removeMembershipTitle: (team: string) => `Remove from ${team}?`,
  removeMembershipBody: (user: string, team: string) => `${user} will lose access to ${team} and its virtual machines.`,
  membershipRemoved: (user: string, team: string) => `${user} was removed from ${team}`,
  roleChanged: (team: string, role: string) => `Role in ${team} changed to ${role}`,
  pageNotFound: 'Page not found',
  pageNotFoundBody: 'There is no page at this address.',
  vmNotFound: 'This virtual machine does not exist or was deleted.',
  teamNotFound: 'This team does not exist or was deleted.',
  userNotFound: 'This user does not exist or was deleted.',
  serverUnreachable: 'The server cannot be reached. Check your connection and try again.',
  backToDashboard: 'Back to Dashboard',
  tryAgain: 'Try again',
  skipToContent: 'Skip to main content',
  openNavigation: 'Open navigation',
  closeNavigation: 'Close navigation',
  darkMode: 'Dark mode',
  lightMode: 'Light mode',
} as const;

/** The SSH key store and a create's keys and user-data (issue 23 item 5): the portal and the server say the same. */
export const SSH_KEY_TEXT = {
  title: 'SSH keys',
  intro:
    'Public keys you can install on new virtual machines. Each machine keeps a copy of the keys it was created with, so removing a key here does not change machines that already have it.',
  nameLabel: 'Name',
  keyLabel: 'Public key',
  keyPlaceholder: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… you@laptop',
  keyHelp: 'Paste one line from a .pub file: Ed25519, ECDSA or RSA (2048 bits or more).',
  add: 'Add key',
  added: (name: string) => `SSH key ${name} added`,
  removed: (name: string) => `SSH key ${name} removed`,
  empty: 'No SSH keys yet',
  removeBody: (name: string) =>
    `${name} will no longer be offered for new virtual machines. Machines created with it keep it.`,
  // ---- what a key may be ----
  nameRequired: 'Key name is required',
  nameTooLong: 'Key name must not exceed 100 characters',
  keyRequired: 'Public key is required',
  notAKey: 'This is not an SSH public key.',
  privateKey: 'This is a private key. Paste the public key (the .pub file) instead.',
  rsaTooShort: 'RSA keys must be at least 2048 bits.',
  typeRefused: (type: string) => `${type} keys are not accepted. Use an Ed25519, ECDSA or RSA (2048 bits or more) key.`,
  tooLong: 'This key is too long.',
  // ---- the store's rules ----
  nameTaken: 'You already have a key with this name.',
  duplicate: (name: string) => `This key is already in your list, as ${name}.`,
  limit: (n: number) => `You can keep at most ${n} SSH keys. Remove one first.`,
  notFound: 'SSH key not found',
  // ---- a create's choice, and the VM page ----
  chooseLabel: 'SSH keys',
  chooseHelp: 'Installed for the default user, beside the key the portal makes for this machine.',
  noKeysToChoose: 'You have no SSH keys yet.',
  manageKeys: 'Manage SSH keys',
  keyNotYours: 'One of the chosen SSH keys does not exist or is not yours.',
  tooManyChosen: (n: number) => `Choose at most ${n} SSH keys.`,
  userDataLabel: 'User data (cloud-init)',
  userDataHelp: 'Optional. Runs once at first boot: #cloud-config YAML, or a script starting with #!. At most 16 KiB.',
  userDataTooLarge: (maxBytes: number) => `User data must be at most ${maxBytes / 1024} KiB.`,
  userDataFormat: 'User data must start with #cloud-config or #! (a script).',
  sshUser: 'SSH user',
  installedKeys: 'SSH keys',
  portalKey: 'Portal key (Download Private Key)',
  userDataGiven: (bytes: number, kind: 'cloud-config' | 'script') =>
    `${kind === 'cloud-config' ? '#cloud-config' : 'Script'}, ${bytes.toLocaleString('en-US')} bytes`,
  userDataShown: 'User data',
} as const;

/** The VM page's graphs (issue 25 item 4), from the engine's metrics history. */
export const GRAPH_TEXT = {
  title: 'Graphs',
  rangeLabel: 'Time range',
  ranges: { '1h': '1 hour', '24h': '24 hours', '7d': '7 days', '30d': '30 days', '90d': '90 days' },
  cpu: 'CPU',
  memory: 'Memory',
  disk: 'Disk',
  network: 'Network',
  cpuSeries: 'CPU used',
  memorySeries: 'Memory used',
  diskRead: 'Read',
  diskWrite: 'Write',
  netIn: 'In',
  netOut: 'Out',
  loading: 'Loading graphs...',
  loadFailed: 'The graphs could not be loaded.',
  timedOut: 'The server took too long to answer.',
  noData: 'No data yet: the first points appear a minute after the machine starts.',
  stepNote: (step: 'minute' | 'hour') => `One point per ${step}; gaps are times the machine was not running.`,
} as const;

/** Messages the server puts in the envelope. */
export const API_MESSAGES = {
  ok: 'OK',
  /** A user without an authenticator app whose company requires one (docs/two-factor.md "Company policy"). */
  twoFactorSetUpRequired: 'Your company requires an authenticator app: set one up to continue',
  /** The same for reseller staff whose reseller's owner requires a factor (docs/two-factor.md "Reseller staff policy"). */
  staffTwoFactorSetUpRequired:
    'Your organisation requires staff to use an authenticator app or a passkey: set one up to continue',
  /** A reseller staff session on a customer-portal call (issue 13). */
  staffUseResellerArea: 'Reseller staff use the reseller area, not the customer portal',
  /** A customer session on a reseller-area call. */
  staffOnly: 'Only reseller staff may do this',
  /** A support (read-only) staff member tried to change something. */
  staffReadOnly: 'Your staff role may only view',
  /** Sign-in (or a live session) of a user whose company the reseller suspended. */
  companySuspended: "Your company's account is suspended. Contact your provider.",
  invalidCredentials: 'Invalid email or password',
  mfaSent: 'A verification code was sent to your email',
  databaseUnavailable:
    'The service is briefly unavailable (its database cannot be reached). Please try again in a few seconds.',
  mfaSendFailed: 'We could not send your verification code just now. Please try again in a minute.',
  invalidMfaCode: 'Invalid MFA code',
  retriesExhausted: 'Retries exhausted',
  passwordTooCommon: 'This password is too common or too easy to guess. Please choose another.',
  mfaExpired: 'Your code has expired. Please sign in again.',
  notAuthenticated: 'Not authenticated',
  mfaPending: 'Verification code required',
  passwordResetRequired: 'Set a new password before you continue',
  forbidden: 'You do not have permission to do that',
  notFound: 'Not found',
  routeNotFound: 'Route not found',
  invalidRequest: 'Invalid request',
  csrf: 'Missing or invalid CSRF token',
  tooManyRequests: 'Too many requests. Please wait and try again.',
  internal: 'Something went wrong. Please try again later.',
  payloadTooLarge: 'Request body is too large',
  /** A unique constraint refused the write (e.g. two requests creating the same thing at once). */
  duplicate: 'That already exists. Please refresh and try again.',
  /** A foreign key refused the write (something it refers to was deleted, or it is still referred to). */
  referenceConflict: 'A related record was changed or is still in use. Please refresh and try again.',
  forgotPasswordAccepted: "If an account with that email exists, you'll receive a password reset link shortly.",
  invalidResetToken: 'This link is invalid or has expired. Please request a new one.',
  passwordUpdated: 'Password updated',
  currentPasswordWrong: 'Current password is incorrect',
  emailConfirmed: 'Your email has been confirmed',
  loggedOut: 'Logged out',
} as const;

/**
 * The size that was sold (issue 23 item 3): a guest gets exactly its configuration, so a host that cannot hold a
 * size refuses it at placement in these words, and the upgrade dialog warns that a running machine restarts.
 */
export const SIZE_TEXT = {
  /** A configuration as the messages name it: "Micro (2 cores, 4 GB RAM, 80 GB disk)". */
  size: (c: { name: string; cpu: number; ram: number; disk: number }) =>
    `${c.name} (${c.cpu} cores, ${c.ram} GB RAM, ${c.disk} GB disk)`,
  /** A create: no host of the region takes it now; `hosts` counts why (e.g. "2 full, 1 draining", "none registered"). */
  noRoom: (region: string, size: string, hosts: string) =>
    `No host in ${region} has room for ${size} now (hosts: ${hosts})`,
  /** A create: no host of the region could hold it even empty. */
  tooLarge: (region: string, size: string) =>
    `${size} is larger than any host in ${region} can hold. Choose a smaller configuration.`,
  /** The create form's size card (issue 25 item 3): no host of the region takes the size now (hosts not named). */
  cardNoRoom: (region: string) => `No room for this size in ${region} right now`,
  /** The create form's size card: no host of the region could hold the size even empty. */
  cardTooLarge: (region: string) => `Larger than any host in ${region} can hold`,
  /** The create form's size card: the chosen image needs a larger disk than the size has. */
  cardImageDisk: (image: string, minDiskGb: number) => `${image} needs a disk of at least ${minDiskGb} GB`,
  /** An upgrade: the VM's own host cannot take what the larger size adds, now. */
  hostNoRoom: (size: string) => `This virtual machine's host has no room for ${size} now`,
  /** An upgrade: the VM's own host could not hold the larger size even empty. */
  hostTooSmall: (size: string) => `${size} is larger than this virtual machine's host can hold`,
  /** The upgrade dialog, shown while the VM is running (beside the spec's own texts). */
  upgradeRestarts:
    'This VM is running: the upgrade restarts it to apply the new CPU and memory. Its programs stop and connections drop until it is back up.',
} as const;
