/**
 * The operator command line on both engines (the file runs in api-pglite and api-postgres): each command
 * says what it changed, and one that changes nothing it was asked to exits non-zero.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mailOutbox, oneTimeTokens, users } from '../db/schema.ts';
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
  await database.db
    .insert(users)
    .values({ companyId: 1, email: 'deputy@example.com', firstName: 'Dep', lastName: 'Uty' });
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
    expect(await runOperator(['company-admin', 'grant', 'deputy@example.com'], scratch.env)).toEqual({
      exitCode: 0,
      output: expect.stringMatching(/^deputy@example.com is now an administrator of company #1/),
    });
    expect(await isCompanyAdmin('deputy@example.com')).toBe(true);
    expect(await runOperator(['company-admin', 'revoke', 'owner@example.com'], scratch.env)).toEqual({
      exitCode: 0,
      output: 'owner@example.com is no longer a company administrator.',
    });
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
  });

  it('exits non-zero when it changed nothing it was asked to', async () => {
    expect(await runOperator(['company-admin', 'grant', 'nobody@example.com'], scratch.env)).toEqual({
      exitCode: 1,
      output: 'No user nobody@example.com.',
    });
    expect(await runOperator(['company-admin', 'grant', 'owner@example.com'], scratch.env)).toEqual({
      exitCode: 1,
      output: 'owner@example.com is already an administrator of company #1; nothing changed.',
    });
    expect(await runOperator(['company-admin', 'revoke', 'deputy@example.com'], scratch.env)).toEqual({
      exitCode: 1,
      output: 'deputy@example.com is not a company administrator; nothing changed.',
    });
    expect(await runOperator(['token', 'revoke', '42'], scratch.env)).toEqual({ exitCode: 1, output: 'No token #42.' });
  });

  it('as a process: prints the change and its exit code tells', async () => {
    const env = { ...process.env, ...scratch.env };
    const ok = await run(process.execPath, ['--import', 'tsx', cli, 'company-admin', 'revoke', 'owner@example.com'], {
      env,
    });
    expect(ok.stdout).toBe('owner@example.com is no longer a company administrator.\n');
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
    const failed = await run(
      process.execPath,
      ['--import', 'tsx', cli, 'company-admin', 'revoke', 'owner@example.com'],
      { env },
    ).catch((e: { code: number; stderr: string }) => e);
    expect(failed).toMatchObject({
      code: 1,
      stderr: 'owner@example.com is not a company administrator; nothing changed.\n',
    });
  });
});

describe('operator reset-password', () => {
  it('prints a one-time reset link for the account, and exits 1 for an unknown address', async () => {
    const res = await runOperator(['reset-password', 'Owner@example.com'], {
      ...scratch.env,
      PUBLIC_URL: 'https://portal.example.com',
    });
    expect(res.exitCode).toBe(0);
    const link = new URL(res.output.split('\n')[1]!);
    expect(`${link.origin}${link.pathname}`).toBe('https://portal.example.com/resetPassword');
    expect(link.searchParams.get('token')).toMatch(/^[\w-]{20,}$/);
    const database = await scratch.open();
    try {
      const [owner] = await database.db.select().from(users).where(eq(users.email, 'owner@example.com'));
      expect(link.searchParams.get('id')).toBe(String(owner!.id));
      const tokens = await database.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, owner!.id));
      expect(tokens.filter((x) => x.purpose === 'reset_password' && !x.usedAt)).toHaveLength(1);
    } finally {
      await database.close();
    }
    expect(await runOperator(['reset-password', 'nobody@example.com'], scratch.env)).toEqual({
      exitCode: 1,
      output: 'No user nobody@example.com.',
    });
  });
});

describe('operator company-admin invite', () => {
  it("makes a company's first administrator and mails the invitation; an existing address changes nothing", async () => {
    const res = await runOperator(['company-admin', 'invite', 'demo-company', 'First.Admin@example.com'], scratch.env);
    expect(res).toEqual({
      exitCode: 0,
      output:
        'Invited first.admin@example.com as administrator of Demo Company (#1); the invitation is in the outbox (no SMTP_URL).',
    });
    const database = await scratch.open();
    try {
      const [user] = await database.db.select().from(users).where(eq(users.email, 'first.admin@example.com'));
      expect(user).toMatchObject({ companyId: 1, isCompanyAdmin: true, passwordHash: null });
      const mails = await database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.toAddress, 'first.admin@example.com'));
      expect(mails).toHaveLength(1);
      expect(mails[0]!.textBody).toMatch(/confirmNewUser\?token=/);
    } finally {
      await database.close();
    }
    expect(
      (await runOperator(['company-admin', 'invite', 'demo-company', 'first.admin@example.com'], scratch.env)).exitCode,
    ).toBe(1);
    expect(await runOperator(['company-admin', 'invite', 'no-such-company', 'x@example.com'], scratch.env)).toEqual({
      exitCode: 1,
      output: 'No company no-such-company.',
    });
  });
});

describe('operator reseller-staff', () => {
  it('adds (staff company made, invitation mailed), lists and removes a reseller staff member', async () => {
    const args = ['--reseller', 'demo-reseller', '--email', 'Helper@Northwind.example', '--role', 'support'];
    expect(await runOperator(['reseller-staff', 'add', ...args], scratch.env)).toEqual({
      exitCode: 0,
      output:
        'Invited helper@northwind.example as support staff of Northwind Hosting (#1); the invitation is in the outbox (no SMTP_URL).',
    });
    expect(await runOperator(['reseller-staff', 'list', '--reseller', '1'], scratch.env)).toEqual({
      exitCode: 0,
      output: 'helper@northwind.example\tsupport\tinvited',
    });
    const database = await scratch.open();
    try {
      const [user] = await database.db.select().from(users).where(eq(users.email, 'helper@northwind.example'));
      expect(user).toMatchObject({ staffRole: 'support', isCompanyAdmin: false, passwordHash: null });
      const mails = await database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.toAddress, 'helper@northwind.example'));
      expect(mails[0]!.textBody).toMatch(/confirmNewUser\?token=/);
    } finally {
      await database.close();
    }
    expect(await runOperator(['reseller-staff', 'remove', '--email', 'helper@northwind.example'], scratch.env)).toEqual(
      {
        exitCode: 0,
        output: 'Removed staff member helper@northwind.example.',
      },
    );
    // A customer's user is not staff: nothing removed.
    expect(
      (await runOperator(['reseller-staff', 'remove', '--email', 'owner@example.com'], scratch.env)).exitCode,
    ).toBe(1);
  });
});
