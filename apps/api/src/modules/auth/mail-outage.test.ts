/**
 * When the SMTP server cannot be reached (issue 9 item 15): sign-in says the code could not be sent and
 * may be retried (never that it was sent), and the health check names mail as down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { API_MESSAGES } from '@portal/contract/messages';
import { ADMIN, createTestApp, type TestApp } from '../../../test/harness.ts';
import { codeFrom } from '../../../test/smtp-catcher.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('sign-in while mail is down', () => {
  it('answers 503 with a clear message and no half-signed-in session; a retry once mail is back works', async () => {
    t.smtp.setDown(true);
    const client = t.client();
    try {
      const res = await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
      expect(res.status).toBe(503);
      expect(res.message).toBe(API_MESSAGES.mfaSendFailed);
      expect(res.message).not.toBe(API_MESSAGES.mfaSent);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect((await client.call(routes.auth.check)).status).toBe(401);
    } finally {
      t.smtp.setDown(false);
    }
    const before = t.smtp.messages.length;
    const again = await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
    expect(again.status).toBe(200);
    expect(again.message).toBe(API_MESSAGES.mfaSent);
    const mail = await t.smtp.waitFor(ADMIN.email, (m) => t.smtp.messages.indexOf(m) >= before);
    expect((await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } })).status).toBe(200);
  });
});

describe('health check', () => {
  it('reports mail as ok, and as down when the SMTP server does not answer', async () => {
    const ok = await t.client().call(routes.platform.healthApi);
    expect(ok.status).toBe(200);
    expect(ok.data.checks.mail?.status).toBe('ok');
    await t.smtp.close();
    const down = await t.client().call(routes.platform.healthApi);
    expect(down.status).toBe(200);
    expect(down.data.status).toBe('degraded');
    expect(down.data.checks.mail).toMatchObject({ status: 'down', detail: 'unreachable' });
  });
});
