/**
 * Starts the portal: validated env, a writable DATA_DIR, database (PostgreSQL or embedded PGlite), HTTP
 * server, and only then the first administrator (so a start that cannot listen never makes an account
 * whose password nobody saw). Each failure says which setting is wrong.
 */
import type { Server } from 'node:net';
import { loadConfig, publicUrl } from './config.ts';
import { secureDataDir } from './db/data-dir.ts';
import { openDatabase, type Database } from './db/client.ts';
import { buildApp } from './app.ts';
import { loadOrCreateSecret } from './lib/secret.ts';
import { seedDemoStaff, seedDemoTenant, seedReferenceData } from './seed/seed.ts';
import { StartupError, checkDataDirWritable, describeDatabaseError, describeListenError } from './startup.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  checkDataDirWritable(config.DATA_DIR);
  secureDataDir(config.DATA_DIR);
  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, role: 'server' });
  } catch (err) {
    throw new StartupError(describeDatabaseError(err, config));
  }
  const secret = loadOrCreateSecret(config.SESSION_SECRET, config.DATA_DIR);
  await seedReferenceData(database.db, {
    driver: config.VM_PROVIDER,
    demo: config.SEED_DEMO,
    libvirtUri: config.LIBVIRT_DEMO_URI,
  });

  const portal = await buildApp({ config, database, secret });
  try {
    await portal.app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    await portal.close().catch(() => {});
    await database.close().catch(() => {});
    throw new StartupError(describeListenError(err, config));
  }
  // Listening: now the first administrator can be made and its password shown (demo start only).
  const admin = config.SEED_DEMO
    ? await seedDemoTenant(database.db, {
        adminEmail: config.SEED_ADMIN_EMAIL,
        adminPassword: config.SEED_ADMIN_PASSWORD,
        demoData: true,
      })
    : null;
  // The demo reseller's owner staff member, made with the demo tenant (first start only).
  const staff = admin ? await seedDemoStaff(database.db) : null;
  portal.startWorkers();
  const mail = await portal.mailer.check();

  const url = publicUrl(
    config.PUBLIC_URL ? config : { ...config, PORT: portalPort(portal.app.server.address(), config.PORT) },
  );
  const lines = [
    '',
    `  Portal:    ${url}`,
    `  API docs:  ${url.replace(/\/$/, '')}${config.BASE_PATH === '/' ? '' : ''}${config.API_BASE_PATH}/docs`.replace(
      `${config.BASE_PATH}${config.API_BASE_PATH}`,
      config.API_BASE_PATH,
    ),
    `  Database:  ${database.kind === 'pglite' ? `embedded PGlite in ${config.DATA_DIR}` : 'PostgreSQL (DATABASE_URL)'}`,
    `  Mail:      ${mail.status === 'none' ? 'local outbox: messages are printed here' : mail.status === 'ok' ? 'SMTP (SMTP_URL) answers' : `SMTP (SMTP_URL) NOT REACHABLE: ${mail.error ?? 'no answer'}. Nobody can sign in until it is (sign-in codes go by mail).`}`,
  ];
  if (!config.SMTP_URL && url.startsWith('https:')) {
    // A public deployment without SMTP would print everyone's sign-in codes into its logs.
    lines.push(
      '  WARNING:   no SMTP_URL on a public https address: sign-in codes and reset links go to this log, not to users',
    );
  }
  if (admin) {
    lines.push(
      `  Sign in:   ${admin.email}`,
      `  Password:  ${admin.generated ? admin.password : '(from SEED_ADMIN_PASSWORD)'}`,
    );
    if (staff) lines.push(`  Reseller:  ${staff.email} (reseller area, owner staff)`, `  Password:  ${staff.password}`);
  } else if (!config.SEED_DEMO) {
    lines.push(
      "  Tenants:   none seeded (SEED_DEMO=false): import them and invite each company's first administrator (docs/operations.md)",
    );
  }
  lines.push('  Lost a password? npm run operator -- reset-password EMAIL prints a one-time link.');
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

function portalPort(address: ReturnType<Server['address']>, fallback: number): number {
  return typeof address === 'object' && address ? address.port : fallback;
}

main().catch((err: unknown) => {
  const message =
    err instanceof StartupError || (err instanceof Error && err.message.startsWith('Invalid environment'))
      ? err.message
      : `Start-up failed: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
