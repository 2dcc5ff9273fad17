/**
 * A TCP relay between the app and PostgreSQL that a test can break the two ways networks fail: `cut()` drops
 * every connection and refuses new ones (the server went away: peers see the close at once); `freeze()` keeps
 * the connections open but forwards nothing (a silent partition: nobody sees a close, only silence).
 */
import { createServer, Socket, type Server } from 'node:net';

export interface Relay {
  port: number;
  /** While true, new connections are refused. */
  down: boolean;
  cut(): void;
  freeze(): void;
  /** Forward again (after `freeze`) and accept new connections (after `cut`). */
  restore(): void;
  close(): Promise<void>;
}

export function startRelay(target: URL): Promise<Relay> {
  const sockets = new Set<Socket>();
  let frozen = false;
  const relay: Relay = {
    port: 0,
    down: false,
    cut() {
      relay.down = true;
      for (const s of sockets) s.destroy();
    },
    freeze() {
      frozen = true;
      relay.down = true;
    },
    restore() {
      frozen = false;
      relay.down = false;
      for (const s of sockets) s.resume();
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer((client) => {
    if (relay.down) return void client.destroy();
    const upstream = new Socket();
    upstream.connect(Number(target.port), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('close', () => sockets.delete(from));
      from.on('error', () => {});
      // Frozen: what arrives is held back (the socket is paused), as a partitioned network would.
      from.on('data', (chunk) => {
        if (frozen) {
          from.pause();
          from.unshift(chunk);
          return;
        }
        to.write(chunk);
      });
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      relay.port = (server.address() as { port: number }).port;
      resolve(relay);
    }),
  );
}
