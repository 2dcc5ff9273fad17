/**
 * The floor: a bare Fastify JSON route in its own process. Prints `READY <port>`.
 * With BENCH_ANSWER_FILE (`{ headers, body }`), it also serves `/answer`: the same bare route answering what the
 * portal answers — that body, those headers, a fresh request id — so the cost of the answer itself (its size and
 * headers) is told apart from the cost of the portal's layers.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const app = Fastify();
app.get('/bare', async () => ({ message: 'OK', data: { hello: 'world' } }));
if (process.env.BENCH_ANSWER_FILE) {
  const answer = JSON.parse(readFileSync(process.env.BENCH_ANSWER_FILE, 'utf8')) as {
    headers: Record<string, string>;
    body: unknown;
  };
  app.get('/answer', async (_request, reply) => {
    reply.headers({ ...answer.headers, 'x-request-id': randomUUID() });
    return answer.body;
  });
}
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
