/** Starts the portal: validated env, database (PostgreSQL or embedded PGlite), seed, HTTP server. */
import { loadConfig, publicUrl } from './config.ts';
import { openDatabase } from './db/client.ts';
import { buildApp } from './app.ts';
import { loadOrCreateSecret } from './lib/secret.ts';
import { seedDemoTenant, seedReferenceData } from './seed/seed.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  const secret = loadOrCreateSecret(config.SESSION_SECRET, config.DATA_DIR);
  await seedReferenceData(database.db, { driver: config.VM_PROVIDER });
  // A first start gets the demo tenant with demo teams and colleagues to look around with.
  const admin = await seedDemoTenant(database.db, { adminEmail: config.SEED_ADMIN_EMAIL, adminPassword: config.SEED_ADMIN_PASSWORD, demoData: true });

  const portal = await buildApp({ config, database, secret });
  await portal.app.listen({ port: config.PORT, host: config.HOST });
  portal.startWorkers();

  const url = publicUrl(config.PUBLIC_URL ? config : { ...config, PORT: portalPort(portal.app.server.address(), config.PORT) });
  const lines = [
    '',
    `  Portal:    ${url}`,
    `  API docs:  ${url.replace(/\/$/, '')}${config.BASE_PATH === '/' ? '' : ''}${config.API_BASE_PATH}/docs`.replace(`${config.BASE_PATH}${config.API_BASE_PATH}`, config.API_BASE_PATH),
    `  Database:  ${database.kind === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  Mail:      ${config.SMTP_URL ? 'SMTP (SMTP_URL)' : 'local outbox: messages are printed here'}`,
  ];
  if (!config.SMTP_URL && url.startsWith('https:')) {
    // A public deployment without SMTP would print everyone's sign-in codes into its logs.
    lines.push('  WARNING:   no SMTP_URL on a public https address: sign-in codes and reset links go to this log, not to users');
  }
  if (admin) {
    lines.push(`  Sign in:   ${admin.email}`, `  Password:  ${admin.generated ? admin.password : '(from SEED_ADMIN_PASSWORD)'}`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  const shutdown = async (signal: string) => {
    portal.app.log.info(`${signal}: shutting down`);
    await portal.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

function portalPort(address: ReturnType<import('node:net').Server['address']>, fallback: number): number {
  return typeof address === 'object' && address ? address.port : fallback;
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
