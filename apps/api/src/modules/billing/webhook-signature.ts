/**
 * Stripe-style signature of a webhook body: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
 * Receivers recompute it over the raw body and refuse old timestamps (docs/billing-webhook.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** The receiver's check (used by the tests, and the sample in the docs): signature right and not older than `toleranceS`. */
export function verifySignature(secret: string, body: string, header: string, now: Date, toleranceS = 300): boolean {
  const parts = new Map(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(now.getTime() / 1000 - t) > toleranceS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return v1.length === expected.length && timingSafeEqual(Buffer.from(v1), Buffer.from(expected));
}
