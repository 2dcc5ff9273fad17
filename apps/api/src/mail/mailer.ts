/**
 * Outgoing mail. Every message is written to the outbox table first, so nothing is lost when SMTP is
 * down; a dispatcher sends due rows (claimed with FOR UPDATE SKIP LOCKED, so several API instances
 * can share one database) and retries with backoff. Without SMTP_URL, messages are kept in the
 * outbox and printed to the log so a newcomer can read their sign-in code.
 */
import { sql } from 'drizzle-orm';
import nodemailer, { type Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import { mailOutbox } from '../db/schema.ts';
import { printLocalMail } from './local-mail-block.ts';

export interface OutgoingMail {
  to: string;
  from: string;
  replyTo?: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  /** Stores the message and starts sending it; resolves with the outbox id once it is stored. */
  enqueue(mail: OutgoingMail): Promise<number>;
  /** Sends every due message now (tests, shutdown). */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

const MAX_ATTEMPTS = 8;
const POLL_MS = 5000;

export function backoffMs(attempt: number): number {
  return Math.min(60 * 60 * 1000, 15_000 * 2 ** (attempt - 1));
}

export function createMailer(deps: { db: Db; smtpUrl?: string; log: FastifyBaseLogger }): Mailer {
  const transport: Transporter | null = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  async function sendDue(): Promise<void> {
    if (!transport) return;
    for (;;) {
      const claimed = await deps.db.execute<{
        id: number; to_address: string; from_address: string; reply_to: string | null; subject: string; text_body: string; html_body: string | null; attempts: number;
      }>(sql`
        update mail_outbox set attempts = attempts + 1, next_attempt_at = now() + interval '2 minutes'
        where id in (
          select id from mail_outbox where status = 'pending' and next_attempt_at <= now()
          order by id limit 10 for update skip locked)
        returning id, to_address, from_address, reply_to, subject, text_body, html_body, attempts`);
      const rows = claimed.rows;
      if (rows.length === 0) return;
      for (const row of rows) {
        try {
          await transport.sendMail({
            to: row.to_address,
            from: row.from_address,
            ...(row.reply_to ? { replyTo: row.reply_to } : {}),
            subject: row.subject,
            text: row.text_body,
            ...(row.html_body ? { html: row.html_body } : {}),
          });
          await deps.db.execute(sql`update mail_outbox set status = 'sent', sent_at = now(), last_error = null where id = ${row.id}`);
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          const final = row.attempts >= MAX_ATTEMPTS;
          deps.log.warn({ outboxId: row.id, attempt: row.attempts, final }, `mail delivery failed: ${reason}`);
          await deps.db.execute(sql`
            update mail_outbox set last_error = ${reason.slice(0, 500)},
              status = ${final ? 'failed' : 'pending'},
              next_attempt_at = now() + ${`${backoffMs(row.attempts)} milliseconds`}::interval
            where id = ${row.id}`);
        }
      }
    }
  }

  function kick(): Promise<void> {
    // One sender at a time per process; a kick during a run is covered by the run's loop or the next poll.
    running ??= sendDue()
      .catch((err: unknown) => deps.log.error({ err }, 'mail dispatcher failed'))
      .finally(() => {
        running = null;
      });
    return running;
  }

  return {
    async enqueue(mail) {
      const [row] = await deps.db
        .insert(mailOutbox)
        .values({
          toAddress: mail.to,
          fromAddress: mail.from,
          replyTo: mail.replyTo ?? null,
          subject: mail.subject,
          textBody: mail.text,
          htmlBody: mail.html ?? null,
          status: transport ? 'pending' : 'kept',
        })
        .returning({ id: mailOutbox.id });
      const id = row!.id;
      if (transport) {
        void kick();
      } else {
        // Local mode: the outbox is the mailbox. This prints the message, code included, on purpose.
        deps.log.info({ outboxId: id, to: mail.to, subject: mail.subject, text: mail.text }, 'mail kept in outbox (set SMTP_URL to send)');
        printLocalMail({ id, to: mail.to, from: mail.from, subject: mail.subject, text: mail.text });
      }
      return id;
    },
    async flush() {
      await running;
      await kick();
    },
    start() {
      if (!transport || timer) return;
      timer = setInterval(() => void kick(), POLL_MS);
      timer.unref();
      void kick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      transport?.close();
    },
  };
}
