import { describe, expect, it } from 'vitest';
import { formatLocalMail } from './local-mail-block.ts';

describe('formatLocalMail', () => {
  it('prints the message as plain lines, not an escaped JSON string', () => {
    const block = formatLocalMail({
      id: 7,
      to: 'a@example.com',
      from: 'p@example.com',
      subject: 'Your code',
      text: 'Hello\nYour verification code is 123456\n',
    });
    expect(block).toContain('MAIL #7');
    expect(block).toContain('  Subject: Your code');
    expect(block.split('\n')).toContain('  Your verification code is 123456');
    expect(block).not.toContain('\\n');
  });
});
