import type { StaffRole } from '@portal/contract/permissions';

/** Who is calling, as established by the session cookie (plugins/session.ts). */
export interface AuthContext {
  /** Keyed hash of the cookie token; the primary key of the sessions row. */
  sessionId: string;
  state: 'mfa' | 'authenticated';
  rememberMe: boolean;
  userId: number;
  companyId: number;
  email: string;
  isCompanyAdmin: boolean;
  /** The reseller the user's company belongs to (for staff: the reseller they work for). */
  resellerId: number;
  /** Set for reseller staff (issue 13); null for customer users. */
  staffRole: StaffRole | null;
  /** The user must set a new password: until then only the calls of the reset flow answer. */
  mustResetPassword: boolean;
  /**
   * The company requires an authenticator app and the user has none: until one is set up only the set-up's calls
   * answer (docs/two-factor.md "Company policy"). Absent for API tokens' callers resolved before the policy.
   */
  mustSetUpTwoFactor?: boolean;
  /** Set when the caller is a personal API token (docs/api-tokens.md): what it may do is the user's, narrowed. */
  token?: TokenCaller | null;
}

/** A personal API token acting for its user. */
export interface TokenCaller {
  id: number;
  name: string;
  scope: 'read' | 'act';
  /** Teams an 'act' token is limited to; null = all the user's teams. */
  teamIds: number[] | null;
}

/** The scope every tenant query takes. */
export interface TenantScope {
  userId: number;
  companyId: number;
  isCompanyAdmin: boolean;
  /** A team-limited API token: only these teams (their VMs, their team routes); null/absent = no limit. */
  teamIds?: readonly number[] | null;
}

/**
 * The caller's tenant scope. A token limited to teams acts as a member of those teams only: its user's company
 * administration does not come with it (docs/api-tokens.md).
 */
export function scopeOf(auth: AuthContext): TenantScope {
  const teamIds = auth.token?.teamIds ?? null;
  if (teamIds) return { userId: auth.userId, companyId: auth.companyId, isCompanyAdmin: false, teamIds };
  return { userId: auth.userId, companyId: auth.companyId, isCompanyAdmin: auth.isCompanyAdmin };
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
    /** Set when the request carried a valid operator API token. */
    operatorTokenId: number | null;
  }
}

/** The scope of every reseller-area query: the reseller the staff member works for. */
export interface StaffScope {
  userId: number;
  resellerId: number;
  role: StaffRole;
  /** The reseller's staff company: the audit log's company for what staff do to the reseller itself. */
  staffCompanyId: number;
}
