/**
 * `operator domains ...` (issue 21) on both engines, in cli/operator.test.ts's style: the operator lists, removes,
 * reassigns and verifies resellers' custom domains; each command says what it changed, and one that changed nothing
 * exits 1. A reseller with a verified domain keeps a primary one through every command.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, distributors, resellerDomains, resellers } from '../db/schema.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { createScratchDatabase, type ScratchDatabase } from '../../test/scratch-database.ts';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import { domainToken } from '../modules/branding/domain-claims.ts';
import { runOperatorOn, type OperatorResult } from './operator.ts';

const SECRET = 'domain-commands-secret-0123456789abcdef';
let scratch: ScratchDatabase;
let database: Database;
let globexId: number;

beforeAll(async () => {
  scratch = await createScratchDatabase();
  database = await scratch.open();
  await seedReferenceData(database.db);
  await seedDemoTenant(database.db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
  const [d] = await database.db.insert(distributors).values({ name: 'Globex Distribution' }).returning();
  const [globex] = await database.db
    .insert(resellers)
    .values({ distributorId: d!.id, name: 'Globex Cloud', externalId: 'globex' })
    .returning();
  globexId = globex!.id;
});
afterAll(async () => {
  await database.close();
  await scratch.drop();
});
// One database for the file (opening PGlite costs seconds); each test starts from the same domains.
beforeEach(async () => {
  await database.db.delete(resellerDomains);
  const verifiedAt = new Date();
  await database.db.insert(resellerDomains).values([
    { host: 'www.northwind.example.test', resellerId: 1, isPrimary: true, verifiedAt },
    { host: 'old.northwind.example.test', resellerId: 1, verifiedAt },
    { host: 'claimed.example.test', resellerId: 1, lastCheckError: 'No TXT record found' },
  ]);
});

const operator = (...argv: string[]): Promise<OperatorResult> =>
  runOperatorOn(database, loadConfig({ ...scratch.env, SESSION_SECRET: SECRET }), ['domains', ...argv]);

const rows = () =>
  database.db
    .select({
      host: resellerDomains.host,
      resellerId: resellerDomains.resellerId,
      isPrimary: resellerDomains.isPrimary,
      verified: resellerDomains.verifiedAt,
      token: resellerDomains.verificationToken,
    })
    .from(resellerDomains)
    .orderBy(asc(resellerDomains.host))
    .then((list) => list.map((r) => ({ ...r, verified: r.verified !== null })));

describe('operator domains', () => {
  it('lists every domain or one reseller’s: host, reseller, state, primary, last check error', async () => {
    expect(await operator('list')).toEqual({
      exitCode: 0,
      output: [
        'www.northwind.example.test\t#1 Northwind Hosting\tverified\tprimary\t',
        'claimed.example.test\t#1 Northwind Hosting\tpending\t\tNo TXT record found',
        'old.northwind.example.test\t#1 Northwind Hosting\tverified\t\t',
      ].join('\n'),
    });
    expect(await operator('list', '--reseller', 'globex')).toEqual({
      exitCode: 0,
      output: 'No domains for Globex Cloud.',
    });
    expect(await operator('list', '--reseller', 'nobody')).toEqual({ exitCode: 1, output: 'No reseller nobody.' });
  });

  it('verifies a pending domain (the operator vouches), once', async () => {
    expect(await operator('verify', 'Claimed.Example.TEST')).toEqual({
      exitCode: 0,
      output: "Marked claimed.example.test verified for reseller #1; it serves that reseller's brand and sign-ins.",
    });
    expect((await rows()).find((r) => r.host === 'claimed.example.test')).toMatchObject({
      verified: true,
      isPrimary: false,
    });
    expect(await operator('verify', 'claimed.example.test')).toEqual({
      exitCode: 1,
      output: 'claimed.example.test is already verified; nothing changed.',
    });
    expect(await operator('verify', 'nothing.example.test')).toEqual({
      exitCode: 1,
      output: 'No domain nothing.example.test.',
    });
  });

  it('removes a domain from whoever holds it; the oldest verified one left becomes primary', async () => {
    expect(await operator('remove', 'www.northwind.example.test')).toEqual({
      exitCode: 0,
      output: 'Removed www.northwind.example.test from reseller #1.',
    });
    expect((await rows()).map((r) => [r.host, r.isPrimary])).toEqual([
      ['claimed.example.test', false], // pending: never primary
      ['old.northwind.example.test', true],
    ]);
    expect((await operator('remove', 'www.northwind.example.test')).exitCode).toBe(1);
    const [entry] = await database.db.select().from(auditLog).where(eq(auditLog.action, 'domain.remove'));
    expect(entry).toMatchObject({
      targetType: 'reseller',
      targetId: '1',
      before: { host: 'www.northwind.example.test' },
    });
  });

  it('reassigns a domain: it takes the new reseller’s record, stays verified or pending, and primaries follow', async () => {
    expect(await operator('reassign', 'www.northwind.example.test', 'globex')).toEqual({
      exitCode: 0,
      output: `Moved www.northwind.example.test from reseller #1 to Globex Cloud (#${globexId}), verified.`,
    });
    expect(await operator('reassign', 'claimed.example.test', `#${globexId}`)).toMatchObject({
      exitCode: 0,
      output: expect.stringMatching(/still pending verification\.$/),
    });
    expect(await rows()).toEqual([
      {
        host: 'claimed.example.test',
        resellerId: globexId,
        isPrimary: false,
        verified: false,
        token: domainToken(SECRET, globexId, 'claimed.example.test'),
      },
      expect.objectContaining({ host: 'old.northwind.example.test', resellerId: 1, isPrimary: true }),
      {
        host: 'www.northwind.example.test',
        resellerId: globexId,
        isPrimary: true,
        verified: true,
        token: domainToken(SECRET, globexId, 'www.northwind.example.test'),
      },
    ]);
    expect(await operator('reassign', 'claimed.example.test', 'globex')).toEqual({
      exitCode: 1,
      output: `claimed.example.test already belongs to reseller #${globexId}; nothing changed.`,
    });
    expect(await operator('reassign', 'claimed.example.test', 'nobody')).toEqual({
      exitCode: 1,
      output: 'No reseller nobody.',
    });
  });

  it('refuses bad usage with the usage line', async () => {
    await expect(operator('remove')).rejects.toThrow(/^Usage: operator domains list/);
    await expect(operator('remove', 'https://x.example/')).rejects.toThrow(/^Usage: operator domains list/);
    await expect(operator('reassign', 'claimed.example.test')).rejects.toThrow(/^Usage: operator domains list/);
    await expect(operator('frobnicate', 'claimed.example.test')).rejects.toThrow(/^Usage: operator domains list/);
  });
});
