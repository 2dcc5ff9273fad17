/**
 * Outgoing mail. Every message is written to the outbox table first, so nothing is lost when SMTP is
 * down; a dispatcher sends due rows (claimed with FOR UPDATE SKIP LOCKED, so several API instances
 * can share one database) and retries with backoff. Without SMTP_URL, messages are kept in the
 * outbox and printed to the log so a newcomer can read their sign-in code.
 *
 * Bodies carry secrets (codes, reset and invitation links), so a row keeps them only while it may still
 * be sent: delivered or failed for good, its subject and bodies are emptied; a kept (no SMTP) row's are
 * emptied after KEPT_BODY_TTL_MS, leaving the printed copy the only one.
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
  /**
   * Stores the message and tries to send it right now, for mail that is useless late (sign-in codes):
   * 'sent', 'kept' (no SMTP: printed), or 'failed' (not retried; its body is emptied at once).
   */
  deliverNow(mail: OutgoingMail): Promise<'sent' | 'kept' | 'failed'>;
  /** Sends every due message now (tests, shutdown). */
  flush(): Promise<void>;
  /** Empties the bodies of kept (no SMTP) messages older than KEPT_BODY_TTL_MS. */
  purgeStale(): Promise<void>;
  /** Whether the SMTP server answers; 'none' without SMTP_URL. */
  check(): Promise<{ status: 'ok' | 'down' | 'none'; error?: string }>;
  start(): void;
  stop(): Promise<void>;
}

export const MAX_ATTEMPTS = 8;
const POLL_MS = 5000;
/** How long a kept (no SMTP) message's body stays in the table: long enough to read a sign-in code. */
export const KEPT_BODY_TTL_MS = 15 * 60_000;
const PURGE_EVERY_MS = 60_000;
/** Fail fast when the SMTP server does not answer: a sign-in waits on the code's delivery. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** What a delivered or abandoned row keeps: who, when, how it went; never the content. */
const EMPTIED = sql`subject = '', text_body = '', html_body = null`;

export function backoffMs(attempt: number): number {
  return Math.min(60 * 60 * 1000, 15_000 * 2 ** (attempt - 1));
}

export function createMailer(deps: { db: Db; smtpUrl?: string; log: FastifyBaseLogger }): Mailer {
  const transport: Transporter | null = deps.smtpUrl
    ? nodemailer.createTransport({ url: deps.smtpUrl, ...SMTP_TIMEOUTS })
    : null;
  let timer: NodeJS.Timeout | null = null;
  let purger: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let checking: Promise<{ status: 'ok' | 'down'; error?: string }> | null = null;

  type Row = {
    id: number;
    to_address: string;
    from_address: string;
    reply_to: string | null;
    subject: string;
    text_body: string;
    html_body: string | null;
    attempts: number;
  };

  async function send(row: Row): Promise<void> {
    await transport!.sendMail({
      to: row.to_address,
      from: row.from_address,
      ...(row.reply_to ? { replyTo: row.reply_to } : {}),
      subject: row.subject,
      text: row.text_body,
      ...(row.html_body ? { html: row.html_body } : {}),
    });
    await deps.db.execute(
      sql`update mail_outbox set status = 'sent', sent_at = now(), last_error = null, ${EMPTIED} where id = ${row.id}`,
    );
  }

  async function insert(mail: OutgoingMail, status: 'pending' | 'kept'): Promise<number> {
    const [row] = await deps.db
      .insert(mailOutbox)
      .values({
        toAddress: mail.to,
        fromAddress: mail.from,
        replyTo: mail.replyTo ?? null,
        subject: mail.subject,
        textBody: mail.text,
        htmlBody: mail.html ?? null,
        status,
      })
      .returning({ id: mailOutbox.id });
    return row!.id;
  }

  function printKept(id: number, mail: OutgoingMail): void {
    // Local mode: the outbox is the mailbox. This prints the message, code included, on purpose.
    deps.log.info(
      { outboxId: id, to: mail.to, subject: mail.subject, text: mail.text },
      'mail kept in outbox (set SMTP_URL to send)',
    );
    printLocalMail({ id, to: mail.to, from: mail.from, subject: mail.subject, text: mail.text });
  }

  async function purgeStale(): Promise<void> {
    await deps.db.execute(
      sql`update mail_outbox set ${EMPTIED} where status = 'kept' and text_body <> '' and created_at < now() - ${`${KEPT_BODY_TTL_MS} milliseconds`}::interval`,
    );
  }

  async function sendDue(): Promise<void> {
    if (!transport) return;
    for (;;) {
      const claimed = await deps.db.execute<Row>(sql`
        update mail_outbox set attempts = attempts + 1, next_attempt_at = now() + interval '2 minutes'
        where id in (
          select id from mail_outbox where status = 'pending' and next_attempt_at <= now()
          order by id limit 10 for update skip locked)
        returning id, to_address, from_address, reply_to, subject, text_body, html_body, attempts`);
      const rows = claimed.rows;
      if (rows.length === 0) return;
      for (const row of rows) {
        try {
          await send(row);
        } catch (err) {
          const reason = err instanceof Error ? err.message : String(err);
          const final = row.attempts >= MAX_ATTEMPTS;
          deps.log.warn({ outboxId: row.id, attempt: row.attempts, final }, `mail delivery failed: ${reason}`);
          await deps.db.execute(sql`
            update mail_outbox set last_error = ${reason.slice(0, 500)},
              status = ${final ? 'failed' : 'pending'},
              next_attempt_at = now() + ${`${backoffMs(row.attempts)} milliseconds`}::interval
              ${final ? sql`, ${EMPTIED}` : sql``}
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
      const id = await insert(mail, transport ? 'pending' : 'kept');
      if (transport) void kick();
      else printKept(id, mail);
      return id;
    },
    async deliverNow(mail) {
      if (!transport) {
        printKept(await insert(mail, 'kept'), mail);
        return 'kept';
      }
      const id = await insert(mail, 'pending');
      // Claimed at once (attempts 1), so the dispatcher leaves it alone while this try runs.
      const claimed = await deps.db.execute<Row>(sql`
        update mail_outbox set attempts = attempts + 1, next_attempt_at = now() + interval '2 minutes'
        where id = ${id} and status = 'pending'
        returning id, to_address, from_address, reply_to, subject, text_body, html_body, attempts`);
      const row = claimed.rows[0];
      if (!row) return 'failed';
      try {
        await send(row);
        return 'sent';
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        deps.log.warn({ outboxId: id }, `mail delivery failed (not retried: the sender is told): ${reason}`);
        await deps.db.execute(
          sql`update mail_outbox set status = 'failed', last_error = ${reason.slice(0, 500)}, ${EMPTIED} where id = ${id}`,
        );
        return 'failed';
      }
    },
    purgeStale,
    check() {
      if (!transport) return Promise.resolve({ status: 'none' as const });
      // Callers at the same moment share one probe (a load balancer and a monitor polling together).
      checking ??= transport
        .verify()
        .then(() => ({ status: 'ok' as const }))
        .catch((err: unknown) => ({ status: 'down' as const, error: err instanceof Error ? err.message : String(err) }))
        .finally(() => {
          checking = null;
        });
      return checking;
    },
    async flush() {
      await running;
      await kick();
    },
    start() {
      if (!purger) {
        purger = setInterval(
          () => void purgeStale().catch((err: unknown) => deps.log.error({ err }, 'outbox purge failed')),
          PURGE_EVERY_MS,
        );
        purger.unref();
      }
      if (!transport || timer) return;
      timer = setInterval(() => void kick(), POLL_MS);
      timer.unref();
      void kick();
    },
    async stop() {
      if (timer) clearInterval(timer);
      if (purger) clearInterval(purger);
      timer = null;
      purger = null;
      await running;
      transport?.close();
    },
  };
}
