/** The outbox: mail survives an SMTP outage and is retried; without SMTP it is kept and printed. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { mailOutbox } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createMailer } from './mailer.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ seed: false });
});
afterAll(async () => {
  await t.close();
});

describe('mail outbox', () => {
  it('keeps a message while SMTP refuses it and delivers it on a later attempt', async () => {
    t.smtp.setDown(true);
    const id = await t.portal.mailer.enqueue({
      to: 'retry@example.com',
      from: 'Portal <no-reply@example.com>',
      subject: 'Hello',
      text: 'Body',
    });
    await t.portal.mailer.flush();
    let [row] = await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    expect(row!.status).toBe('pending');
    expect(row!.attempts).toBe(1);
    expect(row!.lastError).toMatch(/451|unavailable/i);
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());

    t.smtp.setDown(false);
    // Make it due now, as the backoff would after its delay.
    await t.db
      .update(mailOutbox)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(mailOutbox.id, id));
    await t.portal.mailer.flush();
    [row] = await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    expect(row!.status).toBe('sent');
    const mail = await t.smtp.waitFor('retry@example.com');
    expect(mail.subject).toBe('Hello');
    expect(mail.text.trim()).toBe('Body');
  });

  it('without SMTP keeps the message in the outbox and prints it', async () => {
    const lines: string[] = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    const local = createMailer({ db: t.db, log });
    const id = await local.enqueue({
      to: 'local@example.com',
      from: 'p@example.com',
      subject: 'Your code',
      text: 'Your verification code is 123456',
    });
    const [row] = await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    expect(row!.status).toBe('kept');
    expect(lines.join('')).toContain('Your verification code is 123456');
    await local.stop();
  });
});
