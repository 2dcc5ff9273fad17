/**
 * Step-up before the most destructive actions (issue 26 item 2; docs/two-factor.md "Step-up"): the session must have
 * proved a factor (its sign-in, or POST /auth/stepUp) within STEP_UP_WINDOW_MS. Read from the sessions row at the
 * moment of the action, never from the session cache: a step-up taken on another instance counts at once, and one
 * that has lapsed is never served from memory. In db/ because the VM, users and billing modules all call it.
 */
import { eq } from 'drizzle-orm';
import { STEP_UP_TEXT, STEP_UP_WINDOW_MS } from '@portal/contract/step-up';
import type { AuthContext } from '../lib/auth-context.ts';
import type { Clock } from '../lib/clock.ts';
import { ForbiddenError } from '../lib/errors.ts';
import type { Db } from './client.ts';
import { sessions } from './schema.ts';

/**
 * Refuses (403 "Confirm it is you") unless the caller's session proved a factor lately. A personal API token with
 * the `act` scope passes: automation has no one to ask, and the token was made by a signed-in user, expires, can
 * be limited to teams and addresses and revoked at once (docs/two-factor.md "Step-up": the decision). A read-only
 * token never reaches a destructive route.
 */
export async function assertSteppedUp(db: Db, clock: Clock, auth: AuthContext): Promise<void> {
  if (auth.token) return;
  const [row] = await db
    .select({ at: sessions.steppedUpAt })
    .from(sessions)
    .where(eq(sessions.id, auth.sessionId))
    .limit(1);
  if (!row?.at || clock.now().getTime() - row.at.getTime() > STEP_UP_WINDOW_MS)
    throw new ForbiddenError(STEP_UP_TEXT.required);
}

/** Records that the session proved a factor now; answers until when that covers destructive actions. */
export async function markSteppedUp(db: Db, clock: Clock, sessionId: string): Promise<Date> {
  const now = clock.now();
  await db.update(sessions).set({ steppedUpAt: now }).where(eq(sessions.id, sessionId));
  return new Date(now.getTime() + STEP_UP_WINDOW_MS);
}
