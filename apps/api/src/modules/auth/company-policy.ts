/**
 * A company's sign-in policy (issue 26 item 2; docs/two-factor.md "Company policy"): read by any user of the
 * company, changed by its administrators only, audited. The caller's own company, always: another company's
 * policy cannot be named.
 */
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { COMPANY_POLICY_TEXT, companyPolicyRoutes as r, type CompanyPolicy } from '@portal/contract/company-policy';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import type { Db } from '../../db/client.ts';
import { companies } from '../../db/schema.ts';
import { hasStrongFactor } from '../../db/strong-factor.ts';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';

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
