/**
 * `npm run operator -- domains ...` (issue 21): the operator's hand on resellers' custom domains.
 *   domains list [--reseller <id|externalId>]   host, reseller, verified or pending, primary, the last check's error
 *   domains remove <host>                        takes the domain from whoever holds it
 *   domains reassign <host> <id|externalId>      moves it to another reseller (verified or pending as it was)
 *   domains verify <host>                        marks it verified without a DNS check (the operator vouches)
 * The reseller keeps a primary domain while it has a verified one (branding.repository.ts ensurePrimary). A running
 * server shows the change within HOST_CACHE_MS (reseller-hosts.ts).
 */
import { hostSchema } from '@portal/contract/reseller-branding';
import type { Database, Tx } from '../db/client.ts';
import { resellers } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { createBrandingRepository } from '../modules/branding/branding.repository.ts';
import { domainToken } from '../modules/branding/domain-claims.ts';
import { NothingChanged } from './hosts-commands.ts';
import { resellerByRef } from './staff-commands.ts';

export const DOMAIN_USAGE =
  'domains list [--reseller <id|externalId>] | domains remove <host> | domains reassign <host> <reseller id|externalId> | domains verify <host>';

const usage = () => new Error(`Usage: operator ${DOMAIN_USAGE}`);

function hostOf(raw: string | undefined): string {
  const parsed = hostSchema.safeParse(raw ?? '');
  if (!parsed.success) throw usage();
  return parsed.data;
}

/** Runs a domains command; null when argv is not one. Throws NothingChanged when nothing was changed. */
export async function runDomainCommand(argv: string[], database: Database, secret: string): Promise<string | null> {
  const [area, verb, arg, extra] = argv;
  if (area !== 'domains') return null;
  const repo = createBrandingRepository(database.db);
  const audit = createAudit(database.db);
  const record = (action: string, resellerId: number, change: { before?: unknown; after?: unknown }, tx: Tx) =>
    audit.record(
      { companyId: null, actorUserId: null, action, targetType: 'reseller', targetId: resellerId, ...change },
      tx,
    );

  if (verb === 'list') {
    const at = argv.indexOf('--reseller');
    if (at >= 0 && !argv[at + 1]) throw usage();
    const only = at >= 0 ? await resellerByRef(database, argv[at + 1]!) : null;
    const names = new Map(
      (await database.db.select({ id: resellers.id, name: resellers.name }).from(resellers)).map((r) => [r.id, r.name]),
    );
    const rows = await repo.allDomains(only?.id);
    return (
      rows
        .map((d) =>
          [
            d.host,
            `#${d.resellerId} ${names.get(d.resellerId) ?? ''}`.trim(),
            d.verifiedAt ? 'verified' : 'pending',
            d.isPrimary ? 'primary' : '',
            d.lastCheckError ?? '',
          ].join('\t'),
        )
        .join('\n') || (only ? `No domains for ${only.name ?? `#${only.id}`}.` : 'No custom domains.')
    );
  }

  const arity = verb === 'reassign' ? extra !== undefined : extra === undefined;
  if (!(verb === 'remove' || verb === 'verify' || verb === 'reassign') || !arity || argv.length > 4) throw usage();
  const host = hostOf(arg);
  const claim = await repo.claimOf(host);
  if (!claim) throw new NothingChanged(`No domain ${host}.`);

  if (verb === 'remove') {
    await database.db.transaction(async (tx) => {
      await repo.lockReseller(tx, claim.resellerId);
      if (!(await repo.deleteDomain(tx, claim.resellerId, host))) throw new NothingChanged(`No domain ${host}.`);
      const promoted = await repo.ensurePrimary(tx, claim.resellerId);
      await record(
        'domain.remove',
        claim.resellerId,
        { before: { host }, after: { primary: promoted, by: 'operator command' } },
        tx,
      );
    });
    return `Removed ${host} from reseller #${claim.resellerId}.`;
  }

  if (verb === 'verify') {
    if (claim.verifiedAt) throw new NothingChanged(`${host} is already verified; nothing changed.`);
    await database.db.transaction(async (tx) => {
      await repo.lockReseller(tx, claim.resellerId);
      if (!(await repo.recordCheck(tx, claim.resellerId, host, new Date(), null)))
        throw new NothingChanged(`${host} is already verified; nothing changed.`);
      const primary = await repo.ensurePrimary(tx, claim.resellerId);
      await record(
        'domain.verify',
        claim.resellerId,
        { after: { host, primary: primary === host, by: 'operator command' } },
        tx,
      );
    });
    return `Marked ${host} verified for reseller #${claim.resellerId}; it serves that reseller's brand and sign-ins.`;
  }

  if (extra) {
    const to = await resellerByRef(database, extra);
    if (to.id === claim.resellerId)
      throw new NothingChanged(`${host} already belongs to reseller #${to.id}; nothing changed.`);
    await database.db.transaction(async (tx) => {
      // Both resellers, in id order, so a reassign the other way round waits rather than deadlocks.
      for (const id of [claim.resellerId, to.id].sort((a, b) => a - b)) await repo.lockReseller(tx, id);
      if (!(await repo.moveDomain(tx, host, claim.resellerId, to.id, domainToken(secret, to.id, host))))
        throw new NothingChanged(`No domain ${host}.`);
      await repo.ensurePrimary(tx, claim.resellerId);
      await repo.ensurePrimary(tx, to.id);
      await record(
        'domain.reassign',
        to.id,
        { before: { host, resellerId: claim.resellerId }, after: { host, resellerId: to.id, by: 'operator command' } },
        tx,
      );
    });
    return `Moved ${host} from reseller #${claim.resellerId} to ${to.name ?? ''} (#${to.id}), ${claim.verifiedAt ? 'verified' : 'still pending verification'}.`;
  }
  throw usage();
}
