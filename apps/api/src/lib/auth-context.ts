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
  /** The user must set a new password: until then only the calls of the reset flow answer. */
  mustResetPassword: boolean;
}

/** The scope every tenant query takes. */
export interface TenantScope {
  userId: number;
  companyId: number;
  isCompanyAdmin: boolean;
}

export function scopeOf(auth: AuthContext): TenantScope {
  return { userId: auth.userId, companyId: auth.companyId, isCompanyAdmin: auth.isCompanyAdmin };
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
    /** Set when the request carried a valid operator API token. */
    operatorTokenId: number | null;
  }
}
