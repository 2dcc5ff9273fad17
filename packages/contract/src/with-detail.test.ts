import { describe, expect, it } from 'vitest';
import { ERRORS, withDetail } from './messages.ts';

describe('withDetail (issue 25: "Error logging in.: Invalid email or password")', () => {
  it("drops the prefix's closing period before the detail", () => {
    expect(withDetail(ERRORS.login, 'Invalid email or password')).toBe('Error logging in: Invalid email or password');
    expect(withDetail(ERRORS.checkAuth, 'Service unavailable')).toBe('Error checking auth: Service unavailable');
  });
  it("keeps the SPEC's words as they are without a detail", () => {
    expect(withDetail(ERRORS.login)).toBe('Error logging in.');
    expect(withDetail(ERRORS.fetchUsers, 'x')).toBe('Error fetching users: x');
    // An ellipsis is not a sentence's period.
    expect(withDetail('Loading...', 'x')).toBe('Loading...: x');
  });
});
