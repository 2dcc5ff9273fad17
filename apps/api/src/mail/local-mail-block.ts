/**
 * Without SMTP the outbox is the mailbox: the message (a sign-in code, an invitation link) is printed as a
 * plain, framed block on stderr, so a newcomer finds it at a glance instead of inside an escaped JSON log line,
 * and blank lines around it keep it apart from the request logs that follow.
 */
export interface LocalMail {
  id: number;
  to: string;
  from: string;
  subject: string;
  text: string;
}

const RULE = '='.repeat(72);

export function formatLocalMail(mail: LocalMail): string {
  return [
    '',
    RULE,
    `  MAIL #${mail.id}  (kept in the outbox: set SMTP_URL to send mail)`,
    RULE,
    `  To:      ${mail.to}`,
    `  From:    ${mail.from}`,
    `  Subject: ${mail.subject}`,
    '',
    ...mail.text
      .trimEnd()
      .split(/\r?\n/)
      .map((line) => `  ${line}`),
    RULE,
    '',
    '',
  ].join('\n');
}

export function printLocalMail(mail: LocalMail, out: { write(text: string): unknown } = process.stderr): void {
  out.write(formatLocalMail(mail));
}
