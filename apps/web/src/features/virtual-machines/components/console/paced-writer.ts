/**
 * What the page types on a serial console, sent in small chunks at a steady pace.
 *
 * A burst of bytes on a guest's serial line can arrive mangled: a 16550 UART holds 16 bytes, and a busy TCG guest
 * drains it late (seen: a 24-character password sent at once gave "Login incorrect"). The page does not count on
 * anything between it and the guest to slow a burst down, so at most 8 bytes go out, then 12 ms pass before the
 * next 8. 8 bytes is the receive trigger level Linux sets on a 16550A (one interrupt per chunk, the FIFO never
 * more than half full); 12 ms is longer than a guest kernel's scheduler tick (4-10 ms), so each chunk has a tick
 * to be drained. That is about 660 bytes/s, under a 9600 baud line's 960: a few lines take well under a second.
 *
 * Everything sent goes through one queue (keys typed during a paste go after it, in order); a keystroke on an
 * idle line goes out at once. Pure: the send function and the scheduler are given, so it is tested without a
 * browser. The graphical console needs none of this: QEMU queues VNC key events and delays each one itself (its
 * VNC server's `key-delay-ms`).
 */
export const CHUNK_BYTES = 8;
export const CHUNK_INTERVAL_MS = 12;

/** Runs `run` after `ms`; returns a function that cancels it. */
export type Schedule = (run: () => void, ms: number) => () => void;

export interface PacedWriter {
  /** Queues bytes behind anything not yet sent. */
  write(bytes: Uint8Array): void;
  /** Drops whatever is not sent yet (the socket closed, the console went away). */
  cancel(): void;
  /** Bytes waiting to be sent. */
  readonly pending: number;
}

const timers: Schedule = (run, ms) => {
  const t = setTimeout(run, ms);
  return () => clearTimeout(t);
};

/**
 * `send` returns false when it can no longer send (the socket is not open): the rest is then dropped, never
 * sent on a later connection.
 */
export function pacedWriter(
  send: (chunk: Uint8Array) => boolean,
  { chunkBytes = CHUNK_BYTES, intervalMs = CHUNK_INTERVAL_MS, schedule = timers } = {},
): PacedWriter {
  const queue: Uint8Array[] = [];
  let pending = 0;
  // Set while the line rests after a chunk; writes then wait for it to fire.
  let resting: (() => void) | null = null;

  const cancel = () => {
    resting?.();
    resting = null;
    queue.length = 0;
    pending = 0;
  };

  const next = () => {
    resting = null;
    if (pending === 0) return;
    const chunk = new Uint8Array(Math.min(chunkBytes, pending));
    let filled = 0;
    while (filled < chunk.length) {
      const head = queue[0]!;
      const take = Math.min(head.length, chunk.length - filled);
      chunk.set(head.subarray(0, take), filled);
      filled += take;
      if (take === head.length) queue.shift();
      else queue[0] = head.subarray(take);
    }
    pending -= chunk.length;
    if (!send(chunk)) return cancel();
    resting = schedule(next, intervalMs);
  };

  return {
    write(bytes) {
      if (bytes.length === 0) return;
      queue.push(bytes);
      pending += bytes.length;
      if (!resting) next();
    },
    cancel,
    get pending() {
      return pending;
    },
  };
}
