/** Serial typing leaves the page in chunks of at most 8 bytes, 12 ms apart, in order; a closed socket ends it. */
import { expect, it } from 'vitest';
import { pacedWriter, type Schedule } from './paced-writer.ts';

/** A clock the test moves by hand, and what was sent when. */
function line(open = () => true) {
  let now = 0;
  let timers: { at: number; run: () => void }[] = [];
  const schedule: Schedule = (run, ms) => {
    const timer = { at: now + ms, run };
    timers.push(timer);
    return () => {
      timers = timers.filter((t) => t !== timer);
    };
  };
  const sent: { at: number; text: string }[] = [];
  const writer = pacedWriter(
    (chunk) => {
      if (!open()) return false;
      sent.push({ at: now, text: new TextDecoder().decode(chunk) });
      return true;
    },
    { schedule },
  );
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      now = due.at;
      due.run();
    }
    now = until;
  };
  const type = (text: string) => writer.write(new TextEncoder().encode(text));
  return { writer, sent, advance, type, timers: () => timers.length };
}

it('sends a paste 8 bytes at a time, 12 ms apart, the first chunk at once', () => {
  const { writer, sent, advance, type } = line();
  type('correct-horse-battery-staple\r');
  expect(sent).toEqual([{ at: 0, text: 'correct-' }]);
  expect(writer.pending).toBe(21);
  advance(1000);
  expect(sent).toEqual([
    { at: 0, text: 'correct-' },
    { at: 12, text: 'horse-ba' },
    { at: 24, text: 'ttery-st' },
    { at: 36, text: 'aple\r' },
  ]);
  expect(writer.pending).toBe(0);
});

it('sends a key on an idle line at once, and a key typed during a paste after the paste', () => {
  const { sent, advance, type } = line();
  type('l');
  advance(100);
  type('s');
  expect(sent).toEqual([
    { at: 0, text: 'l' },
    { at: 100, text: 's' },
  ]);
  // A paste right after the key waits its turn; Ctrl-C and an arrow key typed while it goes out follow it.
  type('echo 0123456789\r');
  advance(5);
  type('\x03');
  type('\x1b[A');
  advance(1000);
  expect(sent.slice(2).map((s) => s.text)).toEqual(['echo 012', '3456789\r', '\x03\x1b[A']);
  expect(sent.slice(2).map((s) => s.at)).toEqual([112, 124, 136]);
});

it('never puts more than 8 bytes on the line within 12 ms, even for writes that each fit in a chunk', () => {
  const { sent, advance, type } = line();
  for (let i = 0; i < 10; i++) {
    type('abcdef');
    advance(3);
  }
  advance(1000);
  expect(sent.map((s) => s.text).join('')).toBe('abcdef'.repeat(10));
  for (const s of sent) {
    const window = sent.filter((o) => o.at >= s.at && o.at < s.at + 12);
    expect(window.reduce((n, o) => n + o.text.length, 0)).toBeLessThanOrEqual(8);
  }
});

it('drops the rest when the socket closes, and a cancel stops it at once', () => {
  let open = true;
  const closing = line(() => open);
  closing.type('a-long-password-to-type\r');
  closing.advance(12);
  open = false;
  closing.advance(1000);
  expect(closing.sent.map((s) => s.text)).toEqual(['a-long-p', 'assword-']);
  expect(closing.writer.pending).toBe(0);
  expect(closing.timers()).toBe(0);

  const cancelled = line();
  cancelled.type('a-long-password-to-type\r');
  cancelled.writer.cancel();
  cancelled.advance(1000);
  expect(cancelled.sent.map((s) => s.text)).toEqual(['a-long-p']);
  expect(cancelled.timers()).toBe(0);
  // The next connection's writer starts clean; this one, too, sends again at once when written to.
  cancelled.type('x');
  expect(cancelled.sent.at(-1)?.text).toBe('x');
});
