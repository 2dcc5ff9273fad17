/** Single-use, short-lived console tokens bound to the session that asked for them. */
import { randomBytes } from 'node:crypto';

const TTL_MS = 60_000;

export function createConsoleTokens(now: () => number = Date.now) {
  const tokens = new Map<string, { vmId: number; sessionId: string; expires: number }>();
  return {
    issue(vmId: number, sessionId: string): string {
      for (const [k, v] of tokens) if (v.expires < now()) tokens.delete(k);
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { vmId, sessionId, expires: now() + TTL_MS });
      return token;
    },
    /** True once for a live token of this VM and session. */
    consume(token: string, vmId: number, sessionId: string): boolean {
      const entry = tokens.get(token);
      tokens.delete(token);
      return !!entry && entry.vmId === vmId && entry.sessionId === sessionId && entry.expires >= now();
    },
  };
}
