/**
 * A company's sign-in policy (issue 26 item 2; docs/two-factor.md "Company policy"): read by any user of the
 * company, changed by its administrators only, audited. The caller's own company, always: another company's
 * policy cannot be named.
 */
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import {
  COMPANY_POLICY_TEXT,
  companyPolicyRoutes as r,
  RESELLER_POLICY_TEXT,
  resellerPolicyRoutes,
  type CompanyPolicy,
  type ResellerPolicy,
} from '@portal/contract/company-policy';
import { staffMayWrite } from '@portal/contract/permissions';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import type { Db } from '../../db/client.ts';
import { companies, resellers } from '../../db/schema.ts';
import { hasStrongFactor } from '../../db/strong-factor.ts';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { registerRoute, type StaffAuthContext } from '../../lib/http.ts';

export function createCompanyPolicy(deps: { db: Db; audit?: Audit | undefined }) {
  const { db } = deps;
  async function get(companyId: number): Promise<CompanyPolicy> {
    const [row] = await db
      .select({ requireAuthenticator: companies.requireAuthenticator })
      .from(companies)
      .where(eq(companies.id, companyId))
      .limit(1);
    if (!row) throw new NotFoundError();
    return row;
  }
  return {
    get,
    async set(auth: AuthContext, next: CompanyPolicy, requestId?: string): Promise<CompanyPolicy> {
      // A team-limited API token does not carry its user's company administration (scopeOf).
      if (!auth.isCompanyAdmin || auth.token?.teamIds) throw new ForbiddenError(ACTIVITY_TEXT.adminsOnly);
      const before = await get(auth.companyId);
      if (before.requireAuthenticator === next.requireAuthenticator) return before;
      if (next.requireAuthenticator && !(await hasStrongFactor(db, auth.userId)))
        throw new ConflictError(COMPANY_POLICY_TEXT.ownAppFirst);
      await db.transaction(async (tx) => {
        await tx
          .update(companies)
          .set({ requireAuthenticator: next.requireAuthenticator })
          .where(eq(companies.id, auth.companyId));
        await deps.audit?.record(
          {
            companyId: auth.companyId,
            actorUserId: auth.userId,
            action: 'company.policy.update',
            targetType: 'company',
            targetId: auth.companyId,
            before,
            after: next,
            ...(requestId ? { requestId } : {}),
          },
          tx,
        );
      });
      return next;
    },
  };
}
export type CompanyPolicyService = ReturnType<typeof createCompanyPolicy>;

export function registerCompanyPolicyRoutes(app: FastifyInstance, policy: CompanyPolicyService): void {
  registerRoute(app, r.get, async ({ auth }) => ({ data: await policy.get(auth.companyId) }));
  registerRoute(app, r.set, async ({ auth, body, request }) => {
    const data = await policy.set(auth, body, request.id);
    return {
      message: data.requireAuthenticator ? COMPANY_POLICY_TEXT.onMessage : COMPANY_POLICY_TEXT.offMessage,
      data,
    };
  });
}

/**
 * A reseller's sign-in policy for its staff (docs/two-factor.md "Reseller staff policy"): read by any staff member,
 * changed by the reseller's owner only, who must have a strong factor first; audited in the staff company's log.
 * The caller's own reseller, always.
 */
export function createResellerPolicy(deps: { db: Db; audit?: Audit | undefined }) {
  const { db } = deps;
  async function get(resellerId: number): Promise<ResellerPolicy> {
    const [row] = await db
      .select({ requireStaffAuthenticator: resellers.requireStaffAuthenticator })
      .from(resellers)
      .where(eq(resellers.id, resellerId))
      .limit(1);
    if (!row) throw new NotFoundError();
    return row;
  }
  return {
    get,
    async set(auth: StaffAuthContext, next: ResellerPolicy, requestId?: string): Promise<ResellerPolicy> {
      if (!staffMayWrite(auth.staffRole)) throw new ForbiddenError(RESELLER_POLICY_TEXT.ownerOnly);
      const before = await get(auth.resellerId);
      if (before.requireStaffAuthenticator === next.requireStaffAuthenticator) return before;
      if (next.requireStaffAuthenticator && !(await hasStrongFactor(db, auth.userId)))
        throw new ConflictError(RESELLER_POLICY_TEXT.ownFactorFirst);
      await db.transaction(async (tx) => {
        await tx
          .update(resellers)
          .set({ requireStaffAuthenticator: next.requireStaffAuthenticator })
          .where(eq(resellers.id, auth.resellerId));
        await deps.audit?.record(
          {
            companyId: auth.companyId,
            actorUserId: auth.userId,
            action: 'reseller.policy.update',
            targetType: 'reseller',
            targetId: auth.resellerId,
            before,
            after: next,
            ...(requestId ? { requestId } : {}),
          },
          tx,
        );
      });
      return next;
    },
  };
}
export type ResellerPolicyService = ReturnType<typeof createResellerPolicy>;

export function registerResellerPolicyRoutes(app: FastifyInstance, policy: ResellerPolicyService): void {
  registerRoute(app, resellerPolicyRoutes.get, async ({ auth }) => ({ data: await policy.get(auth.resellerId) }));
  registerRoute(app, resellerPolicyRoutes.set, async ({ auth, body, request }) => {
    const data = await policy.set(auth, body, request.id);
    return {
      message: data.requireStaffAuthenticator ? RESELLER_POLICY_TEXT.onMessage : RESELLER_POLICY_TEXT.offMessage,
      data,
    };
  });
}
