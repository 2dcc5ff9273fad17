/**
 * The portal as it runs in production (its own process, its workers started), on the benchmark's database. Prints `READY <port>`.
 * BENCH_PORTAL_ROOT runs another checkout's API (the "before" of a before/after run).
 */
import { pathToFileURL } from 'node:url';
import type * as AppModule from '../../apps/api/src/app.ts';
import type * as ConfigModule from '../../apps/api/src/config.ts';
import type * as DbModule from '../../apps/api/src/db/client.ts';

const root = process.env.BENCH_PORTAL_ROOT
  ? pathToFileURL(`${process.env.BENCH_PORTAL_ROOT}/`).href
  : new URL('../../', import.meta.url).href;
const { buildApp } = (await import(`${root}apps/api/src/app.ts`)) as typeof AppModule;
const { loadConfig } = (await import(`${root}apps/api/src/config.ts`)) as typeof ConfigModule;
const { openDatabase } = (await import(`${root}apps/api/src/db/client.ts`)) as typeof DbModule;

const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', PORT: '0', HOST: '127.0.0.1' });
const database = await openDatabase({
  databaseUrl: config.DATABASE_URL!,
  ...(process.env.BENCH_POOL_SIZE ? { poolSize: Number(process.env.BENCH_POOL_SIZE) } : {}),
});
const portal = await buildApp({ config, database, secret: process.env.BENCH_SECRET!, webDistDir: '/nonexistent' });
// Its background workers run as in production (operation runner, reconciler, mail, webhooks): their periodic
// queries share the machine with the load, as they would.
portal.startWorkers();
await portal.app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`READY ${(portal.app.server.address() as { port: number }).port}\n`);
process.once(
  'SIGTERM',
  () =>
    void portal
      .close()
      .then(() => database.close())
      .then(() => process.exit(0)),
);
