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

/** The block's first and last lines: README.md tells newcomers to look for `----- mail -----`. */
export const MAIL_BLOCK_START = '----- mail -----';
export const MAIL_BLOCK_END = '----- end of mail -----';

/** A sign-in code in the text ("Your verification code is 123456"), to print on a line of its own. */
function codeOf(text: string): string | undefined {
  return /\bcode is (\d{4,8})\b/.exec(text)?.[1];
}

export function formatLocalMail(mail: LocalMail): string {
  const code = codeOf(mail.text);
  return [
    '',
    '',
    MAIL_BLOCK_START,
    `  #${mail.id}, kept in the outbox (set SMTP_URL to send mail)`,
    `  To:      ${mail.to}`,
    `  From:    ${mail.from}`,
    `  Subject: ${mail.subject}`,
    ...(code ? ['', `  CODE: ${code}`] : []),
    '',
    ...mail.text
      .trimEnd()
      .split(/\r?\n/)
      .map((line) => `  ${line}`),
    MAIL_BLOCK_END,
    '',
    '',
  ].join('\n');
}

export function printLocalMail(mail: LocalMail, out: { write(text: string): unknown } = process.stderr): void {
  out.write(formatLocalMail(mail));
}
