/** Double-submit CSRF token: the readable `csrf_token` cookie echoed in `x-csrf-token`. */
const COOKIE = 'csrf_token';

export function csrfToken(): string {
  const existing = document.cookie
    .split('; ')
    .find((c) => c.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
  if (existing) return existing;
  // No cookie yet (first call): make one; the server accepts any matching pair.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const value = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  document.cookie = `${COOKIE}=${value}; path=/; SameSite=Strict`;
  return value;
}
