/**
 * The operator command line on both engines (the file runs in api-pglite and api-postgres): each command
 * says what it changed, and one that changes nothing it was asked to exits non-zero.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { users } from '../db/schema.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { createScratchDatabase, type ScratchDatabase } from '../../test/scratch-database.ts';
import { runOperator } from './operator.ts';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./operator.ts', import.meta.url));

let scratch: ScratchDatabase;
beforeEach(async () => {
  scratch = await createScratchDatabase();
  const database = await scratch.open();
  await seedReferenceData(database.db);
  await seedDemoTenant(database.db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
  await database.db.insert(users).values({ companyId: 1, email: 'deputy@example.com', firstName: 'Dep', lastName: 'Uty' });
  await database.close();
});
afterEach(async () => scratch.drop());

async function isCompanyAdmin(email: string): Promise<boolean | undefined> {
  const database = await scratch.open();
  try {
    const [row] = await database.db.select({ admin: users.isCompanyAdmin }).from(users).where(eq(users.email, email));
    return row?.admin;
  } finally {
    await database.close();
  }
}

describe('operator company-admin', () => {
  it('grants and revokes, and the change is in the database', async () => {
    expect(await runOperator(['company-admin', 'grant', 'deputy@example.com'], scratch.env)).toEqual({ exitCode: 0, output: expect.stringMatching(/^deputy@example.com is now an administrator of company #1/) });
    expect(await isCompanyAdmin('deputy@example.com')).toBe(true);
    expect(await runOperator(['company-admin', 'revoke', 'owner@example.com'], scratch.env)).toEqual({ exitCode: 0, output: 'owner@example.com is no longer a company administrator.' });
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
  });

  it('exits non-zero when it changed nothing it was asked to', async () => {
    expect(await runOperator(['company-admin', 'grant', 'nobody@example.com'], scratch.env)).toEqual({ exitCode: 1, output: 'No user nobody@example.com.' });
    expect(await runOperator(['company-admin', 'grant', 'owner@example.com'], scratch.env)).toEqual({ exitCode: 1, output: 'owner@example.com is already an administrator of company #1; nothing changed.' });
    expect(await runOperator(['company-admin', 'revoke', 'deputy@example.com'], scratch.env)).toEqual({ exitCode: 1, output: 'deputy@example.com is not a company administrator; nothing changed.' });
    expect(await runOperator(['token', 'revoke', '42'], scratch.env)).toEqual({ exitCode: 1, output: 'No token #42.' });
  });

  it('as a process: prints the change and its exit code tells', async () => {
    const env = { ...process.env, ...scratch.env };
    const ok = await run(process.execPath, ['--import', 'tsx', cli, 'company-admin', 'revoke', 'owner@example.com'], { env });
    expect(ok.stdout).toBe('owner@example.com is no longer a company administrator.\n');
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
    const failed = await run(process.execPath, ['--import', 'tsx', cli, 'company-admin', 'revoke', 'owner@example.com'], { env }).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({ code: 1, stderr: 'owner@example.com is not a company administrator; nothing changed.\n' });
  });
});
