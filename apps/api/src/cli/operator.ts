/**
 * Operator command line, against the same database as the server (DATABASE_URL, else PGlite in DATA_DIR):
 *   npm run operator -- token create <name>   prints a new operator API token (shown once)
 *   npm run operator -- token list            lists tokens (never their secrets)
 *   npm run operator -- token revoke <id>     revokes a token
 *   npm run operator -- company-admin grant <email>    makes a user an administrator of their company
 *   npm run operator -- company-admin revoke <email>   takes it back
 *   npm run operator -- company-admin list             lists company administrators
 * Stop a PGlite-backed server first: the embedded database allows one process at a time.
 */
import { asc, eq } from 'drizzle-orm';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/client.ts';
import { apiTokens, companies, users } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { loadOrCreateSecret } from '../lib/secret.ts';
import { createOperatorTokens } from '../modules/operator/operator-tokens.ts';
import { runHostCommand } from './hosts-commands.ts';

export async function runOperatorCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const config = loadConfig(env);
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const secret = loadOrCreateSecret(config.SESSION_SECRET, config.DATA_DIR);
    const tokens = createOperatorTokens({ db: database.db, secret });
    const [area, verb, arg] = argv;
    const hostOutput = await runHostCommand(argv, database.db);
    if (hostOutput !== null) return hostOutput;
    if (area === 'token' && verb === 'create' && arg) {
      const { id, token } = await tokens.create(arg);
      return `Created operator token #${id} "${arg}". Keep it secret; it is not shown again:\n${token}`;
    }
    if (area === 'token' && verb === 'list') {
      const rows = await database.db.select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt, revokedAt: apiTokens.revokedAt }).from(apiTokens);
      return rows.map((r) => `#${r.id}\t${r.name}\tcreated ${r.createdAt.toISOString()}\t${r.revokedAt ? 'revoked' : `last used ${r.lastUsedAt?.toISOString() ?? 'never'}`}`).join('\n') || 'No operator tokens.';
    }
    if (area === 'token' && verb === 'revoke' && arg && /^\d+$/.test(arg)) {
      const done = await database.db.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, Number(arg))).returning();
      return done.length ? `Revoked token #${arg}.` : `No token #${arg}.`;
    }
    if (area === 'company-admin' && (verb === 'grant' || verb === 'revoke') && arg) {
      const grant = verb === 'grant';
      const audit = createAudit(database.db);
      return database.db.transaction(async (tx) => {
        const [user] = await tx.update(users).set({ isCompanyAdmin: grant, updatedAt: new Date() }).where(eq(users.email, arg.toLowerCase())).returning();
        if (!user) return `No user ${arg}.`;
        await audit.record({ companyId: user.companyId, actorUserId: null, action: grant ? 'user.companyAdmin.grant' : 'user.companyAdmin.revoke', targetType: 'user', targetId: user.id, after: { isCompanyAdmin: grant, by: 'operator command' } }, tx);
        return grant ? `${user.email} is now an administrator of company #${user.companyId}.` : `${user.email} is no longer a company administrator.`;
      });
    }
    if (area === 'company-admin' && verb === 'list') {
      const rows = await database.db
        .select({ email: users.email, company: companies.name })
        .from(users)
        .innerJoin(companies, eq(companies.id, users.companyId))
        .where(eq(users.isCompanyAdmin, true))
        .orderBy(asc(companies.name), asc(users.email));
      return rows.map((r) => `${r.company}\t${r.email}`).join('\n') || 'No company administrators.';
    }
    throw new Error('Usage: operator token create <name> | token list | token revoke <id> | company-admin grant|revoke <email> | company-admin list');
  } finally {
    await database.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runOperatorCommand(process.argv.slice(2))
    .then((out) => process.stdout.write(`${out}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
