/** Emailed secrets do not stay in the outbox (issue 9 item 5): bodies go once delivered, failed or stale. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { mailOutbox } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createMailer, KEPT_BODY_TTL_MS, MAX_ATTEMPTS } from './mailer.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ seed: false });
});
afterAll(async () => t.close());

const rowOf = async (id: number) => (await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id)))[0]!;
const secretMail = {
  to: 'keep@example.com',
  from: 'p@example.com',
  subject: 'Your code: 654321',
  text: 'Your verification code is 654321',
  html: '<b>654321</b>',
};

describe('outbox retention', () => {
  it('empties a message once it is delivered', async () => {
    const id = await t.portal.mailer.enqueue(secretMail);
    await t.portal.mailer.flush();
    await t.smtp.waitFor('keep@example.com');
    const row = await rowOf(id);
    expect(row.status).toBe('sent');
    expect(JSON.stringify(row)).not.toContain('654321');
    expect(row.toAddress).toBe('keep@example.com');
  });

  it('empties a message that failed for good', async () => {
    t.smtp.setDown(true);
    try {
      const id = await t.portal.mailer.enqueue(secretMail);
      // Its earlier tries are spent (the first one ran on enqueue); the next is the last.
      await t.portal.mailer.flush();
      await t.db
        .update(mailOutbox)
        .set({ attempts: MAX_ATTEMPTS - 1, nextAttemptAt: new Date(Date.now() - 1000) })
        .where(eq(mailOutbox.id, id));
      await t.portal.mailer.flush();
      const row = await rowOf(id);
      expect(row.status).toBe('failed');
      expect(JSON.stringify(row)).not.toContain('654321');
    } finally {
      t.smtp.setDown(false);
    }
  });

  it('without SMTP keeps a printed message only for a short while', async () => {
    const local = createMailer({ db: t.db, log: pino({ level: 'silent' }) });
    const old = await local.enqueue(secretMail);
    const fresh = await local.enqueue(secretMail);
    await t.db
      .update(mailOutbox)
      .set({ createdAt: new Date(Date.now() - KEPT_BODY_TTL_MS - 1000) })
      .where(eq(mailOutbox.id, old));
    await local.purgeStale();
    expect(JSON.stringify(await rowOf(old))).not.toContain('654321');
    expect((await rowOf(fresh)).textBody).toContain('654321');
    expect(KEPT_BODY_TTL_MS).toBeLessThanOrEqual(15 * 60_000);
    await local.stop();
  });
});
