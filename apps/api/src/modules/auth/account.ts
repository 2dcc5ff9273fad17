/**
 * The account page's own routes (issue 25 item 7; docs/account.md): the caller's sessions and "Sign out
 * everywhere else", and their preferences (theme, date format). The name and the password keep the spec's
 * routes (`/users/edit`, `/users/updatePassword`, in users/ and auth.routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { and, desc, eq, gt } from 'drizzle-orm';
import { ACCOUNT_TEXT, accountRoutes as r, type AccountSession, type Preferences } from '@portal/contract/account';
import type { Db } from '../../db/client.ts';
import { sessions, users } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { iso, registerRoute } from '../../lib/http.ts';
import type { SessionStore } from './session-store.ts';

/** A session's handle in the list: enough to tell rows apart, never the key itself. */
const HANDLE_LENGTH = 12;

export function createAccount(deps: { db: Db; clock: Clock; sessions: SessionStore; audit?: Audit | undefined }) {
  const { db } = deps;
  return {
    async sessions(auth: AuthContext): Promise<AccountSession[]> {
      const rows = await db
        .select({
          id: sessions.id,
          createdAt: sessions.createdAt,
          lastSeenAt: sessions.lastSeenAt,
          expiresAt: sessions.expiresAt,
          ip: sessions.ip,
          userAgent: sessions.userAgent,
        })
        .from(sessions)
        .where(
          and(
            eq(sessions.userId, auth.userId),
            eq(sessions.state, 'authenticated'),
            gt(sessions.expiresAt, deps.clock.now()),
          ),
        )
        .orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt));
      const list = rows.map((s) => ({
        id: s.id.slice(0, HANDLE_LENGTH),
        current: s.id === auth.sessionId,
        createdAt: iso(s.createdAt),
        lastSeenAt: iso(s.lastSeenAt),
        expiresAt: iso(s.expiresAt),
        ip: s.ip,
        userAgent: s.userAgent,
      }));
      // The current one first, then by last use.
      return [...list.filter((s) => s.current), ...list.filter((s) => !s.current)];
    },

    async revokeOthers(auth: AuthContext, requestId?: string): Promise<number> {
      // destroyAllFor forgets the user's cached sessions here; the sessions trigger tells other instances.
      const ended = await deps.sessions.destroyAllFor(auth.userId, auth.sessionId);
      await deps.audit?.record({
        companyId: auth.companyId,
        actorUserId: auth.userId,
        action: 'user.sessions.revokeOthers',
        targetType: 'user',
        targetId: auth.userId,
        after: { ended },
        ...(requestId ? { requestId } : {}),
      });
      return ended;
    },

    async preferences(auth: AuthContext): Promise<Preferences> {
      const [row] = await db
        .select({ theme: users.theme, dateFormat: users.dateFormat })
        .from(users)
        .where(eq(users.id, auth.userId))
        .limit(1);
      if (!row) throw new NotFoundError();
      return row;
    },

    async setPreferences(auth: AuthContext, patch: Partial<Preferences>): Promise<Preferences> {
      const set = {
        ...(patch.theme ? { theme: patch.theme } : {}),
        ...(patch.dateFormat ? { dateFormat: patch.dateFormat } : {}),
      };
      if (Object.keys(set).length === 0) return this.preferences(auth);
      const [row] = await db
        .update(users)
        .set({ ...set, updatedAt: deps.clock.now() })
        .where(eq(users.id, auth.userId))
        .returning({ theme: users.theme, dateFormat: users.dateFormat });
      if (!row) throw new NotFoundError();
      return row;
    },
  };
}
export type Account = ReturnType<typeof createAccount>;

export function registerAccountRoutes(app: FastifyInstance, account: Account): void {
  registerRoute(app, r.sessions, async ({ auth }) => ({ data: await account.sessions(auth) }));
  registerRoute(app, r.revokeOtherSessions, async ({ auth, request }) => {
    const ended = await account.revokeOthers(auth, request.id);
    return { message: ACCOUNT_TEXT.signedOutOthers(ended), data: { ended } };
  });
  registerRoute(app, r.preferences, async ({ auth }) => ({ data: await account.preferences(auth) }));
  registerRoute(app, r.updatePreferences, async ({ auth, body }) => ({
    message: ACCOUNT_TEXT.preferencesSaved,
    data: await account.setPreferences(auth, body),
  }));
}
