/** A real SMTP peer (smtp-server) that keeps what it receives, parsed by mailparser. */
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMail {
  to: string[];
  from: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string | null;
}

export interface SmtpCatcher {
  url: string;
  port: number;
  messages: CaughtMail[];
  /** Waits for a message to `to` matching `predicate` (default: any), up to `timeoutMs`. */
  waitFor(to: string, predicate?: (m: CaughtMail) => boolean, timeoutMs?: number): Promise<CaughtMail>;
  /** Makes the peer refuse messages while `down` is true (to test retries). */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

export async function startSmtpCatcher(): Promise<SmtpCatcher> {
  const messages: CaughtMail[] = [];
  let down = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      if (down) {
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          const addr = (a: typeof parsed.to): string[] =>
            (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => (v.address ?? '').toLowerCase()));
          messages.push({
            to: addr(parsed.to),
            from: parsed.from?.text ?? '',
            replyTo: parsed.replyTo?.text ?? null,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : null,
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages,
    async waitFor(to, predicate = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const wanted = to.toLowerCase();
      for (;;) {
        const found = [...messages].reverse().find((m) => m.to.includes(wanted) && predicate(m));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms (got ${messages.length})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    setDown(value) {
      down = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function codeFrom(mail: CaughtMail): string {
  const match = /verification code is (\d{6})/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no code in mail: ${mail.text}`);
  return match[1];
}

export function linkFrom(mail: CaughtMail): URL {
  const match = /(https?:\/\/\S+)/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no link in mail: ${mail.text}`);
  return new URL(match[1]);
}
