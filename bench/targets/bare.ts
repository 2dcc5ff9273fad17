/** The floor: a bare Fastify JSON route in its own process. Prints `READY <port>`. */
import Fastify from 'fastify';

const app = Fastify();
app.get('/bare', async () => ({ message: 'OK', data: { hello: 'world' } }));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`READY ${(app.server.address() as { port: number }).port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
