/**
 * Operator command line, against the same database as the server (DATABASE_URL, else PGlite in DATA_DIR):
 *   npm run operator -- token create <name>   prints a new operator API token (shown once)
 *   npm run operator -- token list            lists tokens (never their secrets)
 *   npm run operator -- token revoke <id>     revokes a token
 *   npm run operator -- company-admin grant <email>    makes a user an administrator of their company
 *   npm run operator -- company-admin revoke <email>   takes it back
 *   npm run operator -- company-admin list             lists company administrators
 *   npm run operator -- company-admin invite <company> <email>   a company's first administrator: creates
 *        the user with company administration and mails the invitation (<company>: externalId or #id)
 *   npm run operator -- reset-password <email>        prints a one-time password reset link (1 hour)
 *   npm run operator -- reseller-staff add|list|remove ...   a reseller's staff accounts (cli/staff-commands.ts)
 *   npm run operator -- domains list|remove|reassign|verify ...   resellers' custom domains (cli/domain-commands.ts)
 *   npm run operator -- providers list|show|set|unset ...   providers' settings: images map, public network, timeouts
 *        (cli/provider-commands.ts)
 *   npm run operator -- images list|withdraw|offer ...   the regions' images and what each reseller offers (cli/image-commands.ts)
 * Every command prints what it changed; one that changes nothing it was asked to exits with status 1.
 * Stop a PGlite-backed server first: the embedded database allows one process at a time, and a command refuses
 * (exit status 1, saying so) while the portal has DATA_DIR open (db/data-dir-lock.ts). On PostgreSQL it runs any time.
 */
import { asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { RESET_TOKEN_TTL_MS } from '@portal/contract/constants';
import { loadConfig, publicUrl, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { apiTokens, companies, users } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { loadOrCreateSecret } from '../lib/secret.ts';
import { systemClock } from '../lib/clock.ts';
import { cryptoRandom } from '../lib/crypto.ts';
import { createMailer } from '../mail/mailer.ts';
import { createOneTimeTokens } from '../modules/auth/one-time-tokens.ts';
import { inviteCompanyAdmin } from '../modules/operator/first-admin.ts';
import { setCompanyAdmin } from '../modules/users/company-admin.ts';
import { createOperatorTokens } from '../modules/operator/operator-tokens.ts';
import { HOST_USAGE, NothingChanged, runHostCommand } from './hosts-commands.ts';
import { STAFF_USAGE, runStaffCommand } from './staff-commands.ts';
import { DOMAIN_USAGE, runDomainCommand } from './domain-commands.ts';
import { PROVIDER_USAGE, runProviderCommand } from './provider-commands.ts';
import { IMAGE_USAGE, runImageCommand } from './image-commands.ts';

export interface OperatorResult {
  /** 0: done (or a read-only listing); 1: nothing was changed that was asked for. */
  exitCode: 0 | 1;
  output: string;
}

const done = (output: string): OperatorResult => ({ exitCode: 0, output });
const unchanged = (output: string): OperatorResult => ({ exitCode: 1, output });

export const OPERATOR_USAGE =
  'Usage: operator token create <name> | token list | token revoke <id> | company-admin grant|revoke <email> | company-admin list | company-admin invite <company externalId or #id> <email> | reset-password <email> | ' +
  HOST_USAGE +
  ' | ' +
  STAFF_USAGE +
  ' | ' +
  DOMAIN_USAGE +
  ' | ' +
  PROVIDER_USAGE +
  ' | ' +
  IMAGE_USAGE;

/** Runs one command on an open database (runOperator opens and closes it; tests run several on one). */
export async function runOperatorOn(database: Database, config: Config, argv: string[]): Promise<OperatorResult> {
  const secret = loadOrCreateSecret(config.SESSION_SECRET, config.DATA_DIR);
  const tokens = createOperatorTokens({ db: database.db, secret });
  const [area, verb, arg, extra] = argv;
  // Hosts and public address pools (cli/hosts-commands.ts): a command that changed nothing throws NothingChanged.
  try {
    const hostOutput = await runHostCommand(argv, database.db);
    if (hostOutput !== null) return done(hostOutput);
    const staffOutput = await runStaffCommand(argv, database, config, secret);
    if (staffOutput !== null) return done(staffOutput);
    const domainOutput = await runDomainCommand(argv, database, secret);
    if (domainOutput !== null) return done(domainOutput);
    const providerOutput = await runProviderCommand(argv, database.db);
    if (providerOutput !== null) return done(providerOutput);
    const imageOutput = await runImageCommand(argv, database.db);
    if (imageOutput !== null) return done(imageOutput);
  } catch (err) {
    if (err instanceof NothingChanged) return unchanged(err.message);
    throw err;
  }
  const oneTimeTokens = createOneTimeTokens({ db: database.db, secret, clock: systemClock, random: cryptoRandom });
  if (area === 'reset-password' && verb && !arg) {
    const [user] = await database.db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(eq(users.email, verb.toLowerCase()));
    if (!user) return unchanged(`No user ${verb}.`);
    const key = await oneTimeTokens.issue(user.id, 'reset_password', RESET_TOKEN_TTL_MS);
    await createAudit(database.db).record({
      companyId: null,
      actorUserId: null,
      action: 'user.passwordReset.link',
      targetType: 'user',
      targetId: user.id,
      after: { by: 'operator command' },
    });
    const link = `${publicUrl(config).replace(/\/$/, '')}/resetPassword?${new URLSearchParams({ token: key, id: String(user.id) }).toString()}`;
    return done(
      `Password reset link for ${user.email} (works once, for one hour; earlier links stop working):\n${link}`,
    );
  }
  if (area === 'company-admin' && verb === 'invite' && arg && extra) {
    const [company] = await database.db
      .select({ id: companies.id, name: companies.name })
      .from(companies)
      .where(/^#\d+$/.test(arg) ? eq(companies.id, Number(arg.slice(1))) : eq(companies.externalId, arg));
    if (!company) return unchanged(`No company ${arg}.`);
    const mailer = createMailer({
      db: database.db,
      ...(config.SMTP_URL ? { smtpUrl: config.SMTP_URL } : {}),
      log: pino({ level: config.LOG_LEVEL }),
    });
    try {
      const result = await inviteCompanyAdmin(
        database.db,
        {
          tokens: oneTimeTokens,
          mailer,
          audit: createAudit(database.db),
          portalUrl: publicUrl(config),
          defaultFrom: config.MAIL_FROM ?? 'portal@localhost',
        },
        company.id,
        extra,
      );
      if (result.outcome === 'exists')
        return unchanged(
          `${extra.toLowerCase()} already has an account (company #${result.companyId}); nothing changed. Use company-admin grant for a user of this company.`,
        );
      await result.send();
      await mailer.flush();
      return done(
        `Invited ${extra.toLowerCase()} as administrator of ${company.name} (#${company.id}); the invitation ${config.SMTP_URL ? 'was mailed' : 'is in the outbox (no SMTP_URL)'}.`,
      );
    } finally {
      await mailer.stop();
    }
  }
  if (area === 'token' && verb === 'create' && arg) {
    const { id, token } = await tokens.create(arg);
    return done(`Created operator token #${id} "${arg}". Keep it secret; it is not shown again:\n${token}`);
  }
  if (area === 'token' && verb === 'list') {
    const rows = await database.db
      .select({
        id: apiTokens.id,
        name: apiTokens.name,
        createdAt: apiTokens.createdAt,
        lastUsedAt: apiTokens.lastUsedAt,
        revokedAt: apiTokens.revokedAt,
      })
      .from(apiTokens);
    return done(
      rows
        .map(
          (r) =>
            `#${r.id}\t${r.name}\tcreated ${r.createdAt.toISOString()}\t${r.revokedAt ? 'revoked' : `last used ${r.lastUsedAt?.toISOString() ?? 'never'}`}`,
        )
        .join('\n') || 'No operator tokens.',
    );
  }
  if (area === 'token' && verb === 'revoke' && arg && /^\d+$/.test(arg)) {
    const revoked = await database.db
      .update(apiTokens)
      .set({ revokedAt: new Date() })
      .where(eq(apiTokens.id, Number(arg)))
      .returning();
    return revoked.length ? done(`Revoked token #${arg}.`) : unchanged(`No token #${arg}.`);
  }
  if (area === 'company-admin' && (verb === 'grant' || verb === 'revoke') && arg) {
    const grant = verb === 'grant';
    // The rule lives once (modules/users/company-admin.ts), shared with the portal's Users screens.
    const result = await setCompanyAdmin(database.db, createAudit(database.db), {
      target: { email: arg },
      grant,
      actor: null,
      now: new Date(),
    });
    if (result.outcome === 'notFound') return unchanged(`No user ${arg}.`);
    const { user } = result;
    if (result.outcome === 'unchanged') {
      return unchanged(
        grant
          ? `${user.email} is already an administrator of company #${user.companyId}; nothing changed.`
          : `${user.email} is not a company administrator; nothing changed.`,
      );
    }
    return done(
      grant
        ? `${user.email} is now an administrator of company #${user.companyId}.`
        : `${user.email} is no longer a company administrator.`,
    );
  }
  if (area === 'company-admin' && verb === 'list') {
    const rows = await database.db
      .select({ email: users.email, company: companies.name })
      .from(users)
      .innerJoin(companies, eq(companies.id, users.companyId))
      .where(eq(users.isCompanyAdmin, true))
      .orderBy(asc(companies.name), asc(users.email));
    return done(rows.map((r) => `${r.company}\t${r.email}`).join('\n') || 'No company administrators.');
  }
  throw new Error(OPERATOR_USAGE);
}

/** Runs one command against the configured database; throws on bad usage or a failure. */
export async function runOperator(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<OperatorResult> {
  const config = loadConfig(env);
  // On PGlite this refuses while the portal (or another command) has DATA_DIR open (db/data-dir-lock.ts).
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    role: 'operator command',
  });
  try {
    return await runOperatorOn(database, config, argv);
  } finally {
    await database.close();
  }
}

/** The command's printed answer (whether or not it changed anything). */
export async function runOperatorCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return (await runOperator(argv, env)).output;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runOperator(process.argv.slice(2))
    .then(({ exitCode, output }) => {
      (exitCode === 0 ? process.stdout : process.stderr).write(`${output}\n`);
      process.exitCode = exitCode;
    })
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
