import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatLocalMail, MAIL_BLOCK_END, MAIL_BLOCK_START } from './local-mail-block.ts';
import { mfaCodeMail } from './templates.ts';

describe('formatLocalMail', () => {
  it('prints the message as plain lines, not an escaped JSON string', () => {
    const block = formatLocalMail({
      id: 7,
      to: 'a@example.com',
      from: 'p@example.com',
      subject: 'Your code',
      text: 'Hello\nYour verification code is 123456\n',
    });
    expect(block).toContain('#7');
    expect(block).toContain('  Subject: Your code');
    expect(block.split('\n')).toContain('  Your verification code is 123456');
    expect(block).not.toContain('\\n');
  });

  it('is the `----- mail -----` block the README names, with the sign-in code on a line of its own (issue 25)', () => {
    const mail = mfaCodeMail('Portal', '482913', 'http://localhost:3000');
    const lines = formatLocalMail({ id: 3, to: 'a@example.com', from: 'p@example.com', ...mail }).split('\n');
    const start = lines.indexOf(MAIL_BLOCK_START);
    const end = lines.indexOf(MAIL_BLOCK_END);
    expect([start >= 0, end > start]).toEqual([true, true]);
    // Apart from the log lines around it: a blank line before the block and after it.
    expect([lines[start - 1], lines[end + 1]]).toEqual(['', '']);
    expect(lines.slice(start, end)).toContain('  CODE: 482913');
    expect(readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8')).toContain(
      `\`${MAIL_BLOCK_START}\``,
    );
  });

  it('prints no CODE line for mail without a code (an invitation)', () => {
    const block = formatLocalMail({ id: 4, to: 'a', from: 'b', subject: 'Invite', text: 'Open https://x/#t' });
    expect(block).not.toContain('CODE:');
  });
});
