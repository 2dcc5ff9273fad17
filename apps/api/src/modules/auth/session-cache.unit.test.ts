/**
 * The session cache steps aside while the pool cannot reach PostgreSQL (issue 22 item 9): nothing is served
 * or stored until the database answers again, and a read begun before the outage is not stored after it.
 */
import { describe, expect, it } from 'vitest';
import type { AuthContext } from '../../lib/auth-context.ts';
import { systemClock } from '../../lib/clock.ts';
import { createSessionCache } from './session-cache.ts';

const auth: AuthContext = {
  sessionId: 's1',
  state: 'authenticated',
  rememberMe: false,
  userId: 7,
  companyId: 3,
  email: 'a@example.com',
  isCompanyAdmin: false,
  resellerId: 1,
  staffRole: null,
  mustResetPassword: false,
};
const later = () => Date.now() + 60_000;

describe('session cache and the database', () => {
  it('serves nothing while the database is unreachable, and starts empty when it answers again', () => {
    const cache = createSessionCache({ clock: systemClock, enabled: true });
    cache.setSession('s1', auth, later(), cache.generation());
    expect(cache.session('s1')).toEqual(auth);

    cache.databaseDown();
    expect(cache.databaseReachable).toBe(false);
    expect(cache.session('s1')).toBeUndefined();
    cache.setSession('s1', auth, later(), cache.generation());
    expect(cache.session('s1')).toBeUndefined();

    cache.databaseUp();
    expect(cache.databaseReachable).toBe(true);
    expect(cache.session('s1')).toBeUndefined(); // emptied, not held back
    cache.setSession('s1', auth, later(), cache.generation());
    expect(cache.session('s1')).toEqual(auth);
  });

  it('does not store a read that began before an outage', () => {
    const cache = createSessionCache({ clock: systemClock, enabled: true });
    const readAt = cache.generation();
    cache.databaseDown();
    cache.databaseUp();
    cache.setSession('s1', auth, later(), readAt);
    expect(cache.session('s1')).toBeUndefined();
  });
});
