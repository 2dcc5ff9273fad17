/**
 * For the billing tests: a webhook receiver on loopback that keeps every body it is sent and answers 200, and the
 * exact decimal the usage SQL computes (integers only, as its numeric type).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HookReceiver {
  /** `http://127.0.0.1:<port><path>`. */
  url: string;
  /** The bodies received, in order. */
  received: string[];
  close(): Promise<void>;
}

export async function startHookReceiver(path: string): Promise<HookReceiver> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** n / d rounded half up to `places` decimals, as a decimal string. */
export function decimal(n: bigint, d: bigint, places: number): string {
  const scaled = (n * 10n ** BigInt(places) * 2n + d) / (2n * d);
  const s = scaled.toString().padStart(places + 1, '0');
  return places === 0 ? s : `${s.slice(0, -places)}.${s.slice(-places)}`;
}
