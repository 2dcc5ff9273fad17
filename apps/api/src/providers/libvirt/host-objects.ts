/**
 * Creating a host's pool and network once, whatever runs at the same time (issue 23 item 7). Two drivers on one
 * libvirt (the demo's two hosts share `qemu:///system`) both saw no pool and both defined it: the second define
 * failed with "pool 'irontech' already exists" and the host was reported unreachable on the first start. Setups
 * of one URI run one after another inside this process, and an "already exists" from a define that another
 * process (or another portal) made meanwhile is success: the object is there, which is what was asked.
 */
/** A queue per key: each call runs after every earlier call of the same key in this process has ended (however). */
export function keyedQueue(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (key, fn) => {
    const prev = tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return next;
  };
}

/** Runs `fn` after every earlier setup of the same `uri` in this process has ended (however it ended). */
export const serializePerUri = keyedQueue();

/** libvirt's answer to defining a pool, network or volume whose name is taken ("operation failed: pool 'x' already exists with uuid ..."). */
export const ALREADY_EXISTS = /already exists|exists already/i;

/** Runs a define; an object of that name defined meanwhile by someone else counts as done. */
export async function defineIdempotent(define: () => Promise<unknown>): Promise<void> {
  try {
    await define();
  } catch (e) {
    if (!(e instanceof Error && ALREADY_EXISTS.test(e.message))) throw e;
  }
}
