/**
 * `npm run operator -- reseller-staff ...` (issue 13): a reseller's staff accounts.
 *   reseller-staff add --reseller <id or externalId> --email <e> --role owner|support
 *        creates the reseller's staff company if missing and mails the invitation (/confirmNewUser)
 *   reseller-staff list --reseller <id or externalId>
 *   reseller-staff remove --email <e>
 */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { STAFF_ROLES, type StaffRole } from '@portal/contract/permissions';
import { publicUrl, type Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import { resellers } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { systemClock } from '../lib/clock.ts';
import { cryptoRandom } from '../lib/crypto.ts';
import { createMailer } from '../mail/mailer.ts';
import { createOneTimeTokens } from '../modules/auth/one-time-tokens.ts';
import { inviteStaffMember, listStaff, removeStaff } from '../modules/reseller-companies/staff.ts';
import { NothingChanged } from './hosts-commands.ts';

export const STAFF_USAGE =
  'reseller-staff add --reseller <id|externalId> --email <e> --role owner|support | reseller-staff list --reseller <id|externalId> | reseller-staff remove --email <e>';

function flag(argv: string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
}

async function resellerOf(database: Database, ref: string | undefined) {
  if (!ref) throw new Error(`Usage: operator ${STAFF_USAGE}`);
  return resellerByRef(database, ref);
}

/** A reseller by `<id>`, `#<id>` or its external id, as the operator commands name one; NothingChanged if none. */
export async function resellerByRef(database: Database, ref: string) {
  const [row] = await database.db
    .select({ id: resellers.id, name: resellers.name })
    .from(resellers)
    .where(/^#?\d+$/.test(ref) ? eq(resellers.id, Number(ref.replace('#', ''))) : eq(resellers.externalId, ref));
  if (!row) throw new NothingChanged(`No reseller ${ref}.`);
  return row;
}

/** Runs a reseller-staff command; null when argv is not one. Throws NothingChanged when nothing was changed. */
export async function runStaffCommand(
  argv: string[],
  database: Database,
  config: Config,
  secret: string,
): Promise<string | null> {
  const [area, verb] = argv;
  if (area !== 'reseller-staff') return null;
  if (verb === 'list') {
    const reseller = await resellerOf(database, flag(argv, 'reseller'));
    const rows = await listStaff(database.db, reseller.id);
    return (
      rows.map((r) => `${r.email}\t${r.role}\t${r.confirmedAt ? 'active' : 'invited'}`).join('\n') ||
      `No staff for ${reseller.name}.`
    );
  }
  if (verb === 'remove') {
    const email = flag(argv, 'email');
    if (!email) throw new Error(`Usage: operator ${STAFF_USAGE}`);
    const removed = await removeStaff(database.db, email);
    if (!removed) throw new NothingChanged(`${email.toLowerCase()} is not a reseller staff member; nothing changed.`);
    await createAudit(database.db).record({
      companyId: null,
      actorUserId: null,
      action: 'staff.remove',
      targetType: 'user',
      targetId: removed.id,
      after: { email: email.toLowerCase(), resellerId: removed.resellerId, by: 'operator command' },
    });
    return `Removed staff member ${email.toLowerCase()}.`;
  }
  if (verb === 'add') {
    const email = flag(argv, 'email');
    const role = flag(argv, 'role');
    if (!email || !role || !(STAFF_ROLES as readonly string[]).includes(role))
      throw new Error(`Usage: operator ${STAFF_USAGE}`);
    const reseller = await resellerOf(database, flag(argv, 'reseller'));
    const mailer = createMailer({
      db: database.db,
      ...(config.SMTP_URL ? { smtpUrl: config.SMTP_URL } : {}),
      log: pino({ level: config.LOG_LEVEL }),
    });
    try {
      const result = await database.db.transaction((tx) =>
        inviteStaffMember(
          tx,
          {
            tokens: createOneTimeTokens({ db: database.db, secret, clock: systemClock, random: cryptoRandom }),
            mailer,
            audit: createAudit(database.db),
            portalUrl: publicUrl(config),
            defaultFrom: config.MAIL_FROM ?? 'portal@localhost',
          },
          { resellerId: reseller.id, email, role: role as StaffRole },
        ),
      );
      if (result.outcome === 'exists')
        throw new NothingChanged(`${email.toLowerCase()} already has an account; nothing changed.`);
      if (result.outcome === 'noReseller') throw new NothingChanged(`No reseller ${reseller.id}.`);
      await result.send();
      await mailer.flush();
      return `Invited ${email.toLowerCase()} as ${role} staff of ${reseller.name} (#${reseller.id}); the invitation ${config.SMTP_URL ? 'was mailed' : 'is in the outbox (no SMTP_URL)'}.`;
    } finally {
      await mailer.stop();
    }
  }
  throw new Error(`Usage: operator ${STAFF_USAGE}`);
}
