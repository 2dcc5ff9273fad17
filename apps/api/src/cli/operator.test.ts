/**
 * The operator command line on both engines (the file runs in api-pglite and api-postgres): each command
 * says what it changed, and one that changes nothing it was asked to exits non-zero.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hosts, mailOutbox, oneTimeTokens, providers, users } from '../db/schema.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { createScratchDatabase, type ScratchDatabase } from '../../test/scratch-database.ts';
import { loadConfig } from '../config.ts';
import type { Database, Db } from '../db/client.ts';
import { runOperatorOn, type OperatorResult } from './operator.ts';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('./operator.ts', import.meta.url));

let scratch: ScratchDatabase;
/** The test's database, open while commands run in process; closed before the CLI runs as a process of its own. */
let database: Database | null = null;
const opened = async () => (database ??= await scratch.open());
async function closeDatabase() {
  await database?.close();
  database = null;
}
beforeEach(async () => {
  scratch = await createScratchDatabase();
  const { db } = await opened();
  await seedReferenceData(db);
  await seedDemoTenant(db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
  await db.insert(users).values({ companyId: 1, email: 'deputy@example.com', firstName: 'Dep', lastName: 'Uty' });
});
afterEach(async () => {
  await closeDatabase();
  await scratch.drop();
});

/**
 * Runs a command in process on the test's open database, with the CLI's exit codes (opening PGlite for each
 * command costs seconds). The CLI's own path — settings from the environment, open, run, close — runs as a
 * process in the tests that say so.
 */
async function operator(argv: string[], env: Record<string, string> = {}): Promise<OperatorResult> {
  return runOperatorOn(await opened(), loadConfig({ ...scratch.env, ...env }), argv);
}

async function isCompanyAdmin(email: string): Promise<boolean | undefined> {
  const [row] = await (
    await opened()
  ).db
    .select({ admin: users.isCompanyAdmin })
    .from(users)
    .where(eq(users.email, email));
  return row?.admin;
}

describe('operator company-admin', () => {
  it('grants and revokes, and the change is in the database', async () => {
    expect(await operator(['company-admin', 'grant', 'deputy@example.com'])).toEqual({
      exitCode: 0,
      output: expect.stringMatching(/^deputy@example.com is now an administrator of company #1/),
    });
    expect(await isCompanyAdmin('deputy@example.com')).toBe(true);
    expect(await operator(['company-admin', 'revoke', 'owner@example.com'])).toEqual({
      exitCode: 0,
      output: 'owner@example.com is no longer a company administrator.',
    });
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
  });

  it('exits non-zero when it changed nothing it was asked to', async () => {
    expect(await operator(['company-admin', 'grant', 'nobody@example.com'])).toEqual({
      exitCode: 1,
      output: 'No user nobody@example.com.',
    });
    expect(await operator(['company-admin', 'grant', 'owner@example.com'])).toEqual({
      exitCode: 1,
      output: 'owner@example.com is already an administrator of company #1; nothing changed.',
    });
    expect(await operator(['company-admin', 'revoke', 'deputy@example.com'])).toEqual({
      exitCode: 1,
      output: 'deputy@example.com is not a company administrator; nothing changed.',
    });
    expect(await operator(['token', 'revoke', '42'])).toEqual({ exitCode: 1, output: 'No token #42.' });
  });

  // Two process starts, each opening the on-disk database: 38 s under a whole run's load (ci22), past the default 30 s.
  it('as a process: prints the change and its exit code tells', { timeout: 120_000 }, async () => {
    await closeDatabase();
    const env = { ...process.env, ...scratch.env };
    const ok = await run(process.execPath, ['--import', 'tsx', cli, 'company-admin', 'revoke', 'owner@example.com'], {
      env,
    });
    expect(ok.stdout).toBe('owner@example.com is no longer a company administrator.\n');
    expect(await isCompanyAdmin('owner@example.com')).toBe(false);
    await closeDatabase();
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
    const res = await operator(['reset-password', 'Owner@example.com'], { PUBLIC_URL: 'https://portal.example.com' });
    expect(res.exitCode).toBe(0);
    const link = new URL(res.output.split('\n')[1]!);
    expect(`${link.origin}${link.pathname}`).toBe('https://portal.example.com/resetPassword');
    expect(link.searchParams.get('token')).toMatch(/^[\w-]{20,}$/);
    const database = await opened();
    const [owner] = await database.db.select().from(users).where(eq(users.email, 'owner@example.com'));
    expect(link.searchParams.get('id')).toBe(String(owner!.id));
    const tokens = await database.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, owner!.id));
    expect(tokens.filter((x) => x.purpose === 'reset_password' && !x.usedAt)).toHaveLength(1);
    expect(await operator(['reset-password', 'nobody@example.com'])).toEqual({
      exitCode: 1,
      output: 'No user nobody@example.com.',
    });
  });
});

describe('operator company-admin invite', () => {
  it("makes a company's first administrator and mails the invitation; an existing address changes nothing", async () => {
    const res = await operator(['company-admin', 'invite', 'demo-company', 'First.Admin@example.com']);
    expect(res).toEqual({
      exitCode: 0,
      output:
        'Invited first.admin@example.com as administrator of Demo Company (#1); the invitation is in the outbox (no SMTP_URL).',
    });
    const database = await opened();
    const [user] = await database.db.select().from(users).where(eq(users.email, 'first.admin@example.com'));
    expect(user).toMatchObject({ companyId: 1, isCompanyAdmin: true, passwordHash: null });
    const mails = await database.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, 'first.admin@example.com'));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.textBody).toMatch(/confirmNewUser\?token=/);
    expect((await operator(['company-admin', 'invite', 'demo-company', 'first.admin@example.com'])).exitCode).toBe(1);
    expect(await operator(['company-admin', 'invite', 'no-such-company', 'x@example.com'])).toEqual({
      exitCode: 1,
      output: 'No company no-such-company.',
    });
  });
});

describe('operator reseller-staff', () => {
  it('adds (staff company made, invitation mailed), lists and removes a reseller staff member', async () => {
    const args = ['--reseller', 'demo-reseller', '--email', 'Helper@Northwind.example', '--role', 'support'];
    expect(await operator(['reseller-staff', 'add', ...args])).toEqual({
      exitCode: 0,
      output:
        'Invited helper@northwind.example as support staff of Northwind Hosting (#1); the invitation is in the outbox (no SMTP_URL).',
    });
    expect(await operator(['reseller-staff', 'list', '--reseller', '1'])).toEqual({
      exitCode: 0,
      output: 'helper@northwind.example\tsupport\tinvited',
    });
    const database = await opened();
    const [user] = await database.db.select().from(users).where(eq(users.email, 'helper@northwind.example'));
    expect(user).toMatchObject({ staffRole: 'support', isCompanyAdmin: false, passwordHash: null });
    const mails = await database.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, 'helper@northwind.example'));
    expect(mails[0]!.textBody).toMatch(/confirmNewUser\?token=/);
    expect(await operator(['reseller-staff', 'remove', '--email', 'helper@northwind.example'])).toEqual({
      exitCode: 0,
      output: 'Removed staff member helper@northwind.example.',
    });
    // A customer's user is not staff: nothing removed.
    expect((await operator(['reseller-staff', 'remove', '--email', 'owner@example.com'])).exitCode).toBe(1);
  });
});

describe('operator host and public-ip', () => {
  const LAB = 'qemu+tcp://127.0.0.1:1/system'; // nothing listens there: registered with its given capacity
  /** Runs commands in process on one open database (opening PGlite per command is slow); exit codes as the CLI's. */
  async function session<T>(fn: (op: (...argv: string[]) => Promise<OperatorResult>, db: Db) => Promise<T>) {
    const { db } = await opened();
    await db.insert(providers).values({ name: 'Lab libvirt', driver: 'libvirt', settings: {} });
    return fn((...argv) => operator(argv), db);
  }

  // Many commands on one database, and (below) a process start: generous on a loaded 2-core machine.
  it(
    'registers, lists, drains, enables and removes a host, and fills and lists a public address pool',
    { timeout: 120_000 },
    async () => {
      await session(async (op, db) => {
        const add = ['host', 'add', 'lab-1', LAB, '--provider', 'Lab libvirt', '--region', 'US East'];
        const capacity = ['--cpus', '8', '--ram-gb', '32', '--disk-gb', '400', '--cpu-overcommit', '2'];
        const added = await op(...add, ...capacity);
        expect(added.exitCode).toBe(0);
        expect(added.output).toMatch(
          /^Added host lab-1 \(qemu\+tcp:\/\/127\.0\.0\.1:1\/system\) in US East for Lab libvirt: 8 CPUs, 32 GB RAM, 400 GB disk; not reachable now: [\s\S]+\.$/,
        );
        const [row] = await db.select().from(hosts).where(eq(hosts.name, 'lab-1'));
        expect(row).toMatchObject({ cpus: 8, ramGb: 32, diskGb: 400, cpuOvercommit: 2, draining: false });
        expect(await op(...add, ...capacity)).toEqual({
          exitCode: 1,
          output: 'Host lab-1 is already registered as given.',
        });

        const listed = await op('host', 'list');
        expect(listed.exitCode).toBe(0);
        expect(listed.output.split('\t').slice(0, 6)).toEqual([
          'lab-1',
          LAB,
          'US East',
          'Lab libvirt',
          '8 CPU ×2, 32 GB ×1, 400 GB ×1',
          '0 VM(s)',
        ]);
        expect(listed.output).toMatch(/\tunreachable \([\s\S]+\)\tlast seen never$/);

        expect(await op('host', 'drain', 'lab-1')).toEqual({
          exitCode: 0,
          output: 'Host lab-1 is drained: it takes no new VMs and holds none.',
        });
        // Draining with no VM left to move: drained.
        expect((await op('host', 'list')).output).toContain('\tdrained\t');
        expect(await op('host', 'drain', 'lab-1')).toEqual({ exitCode: 1, output: 'Host lab-1 is already draining.' });
        expect(await op('host', 'enable', 'lab-1')).toEqual({ exitCode: 0, output: 'Host lab-1 takes new VMs again.' });
        expect(await op('host', 'drain', 'lab-9')).toEqual({ exitCode: 1, output: 'No host lab-9.' });
        expect(await op('host', 'remove', 'lab-1')).toEqual({ exitCode: 0, output: 'Removed host lab-1.' });
        expect(await op('host', 'list')).toEqual({ exitCode: 0, output: 'No hosts.' });

        expect(await op('public-ip', 'list')).toEqual({ exitCode: 0, output: 'No public addresses.' });
        expect(await op('public-ip', 'add', 'US East', '203.0.113.8/30', '203.0.113.20-21', '198.51.100.7')).toEqual({
          exitCode: 0,
          output: 'Added 5 public address(es) to US East.',
        });
        expect(await op('public-ip', 'add', 'US East', '203.0.113.9')).toEqual({
          exitCode: 1,
          output: 'Added 0 public address(es) to US East (1 already in a pool).',
        });
        expect(await op('public-ip', 'list')).toEqual({
          exitCode: 0,
          output: ['203.0.113.9', '203.0.113.10', '203.0.113.20', '203.0.113.21', '198.51.100.7']
            .map((a) => `US East\t${a}\tfree`)
            .join('\n'),
        });
      });
    },
  );

  it(
    'refuses bad input with a message naming what is wrong (as a process: on stderr, exit status 1)',
    { timeout: 120_000 },
    async () => {
      await session(async (op, db) => {
        const add = (...args: string[]) => op('host', 'add', ...args);
        const lab = ['--provider', 'Lab libvirt', '--region', 'US East'];
        await expect(add('bad name!', LAB, ...lab)).rejects.toThrow(
          'Invalid host: name: letters, digits, dot, dash, underscore',
        );
        await expect(add('lab-2', LAB, ...lab, '--cpus', 'many')).rejects.toThrow('--cpus needs a number, not "many"');
        await expect(add('lab-2', LAB, ...lab, '--cpu', '4')).rejects.toThrow('Unknown option --cpu');
        await expect(add('lab-2', LAB, '--provider', 'Northwind Cloud', '--region', 'US East')).rejects.toThrow(
          'Provider "Northwind Cloud" uses the simulator driver; hosts belong to libvirt providers',
        );
        await expect(add('lab-2', LAB, '--provider', 'Lab libvirt', '--region', 'Atlantis')).rejects.toThrow(
          'No region "Atlantis"',
        );
        await expect(add('lab-2', LAB, ...lab)).rejects.toThrow(
          /^Could not read the capacity of qemu\+tcp:\/\/127\.0\.0\.1:1\/system \([\s\S]+\); give --cpus, --ram-gb and --disk-gb$/,
        );
        await expect(op('public-ip', 'add', 'Atlantis', '203.0.113.1')).rejects.toThrow('No region "Atlantis"');
        await expect(op('host', 'frobnicate')).rejects.toThrow(/^Usage: operator host add <name>/);
        expect(await db.select().from(hosts)).toEqual([]);
      });
      await closeDatabase();
      const bad = await run(process.execPath, ['--import', 'tsx', cli, 'public-ip', 'add', 'US West', '192.0.2.300'], {
        env: { ...process.env, ...scratch.env },
      }).catch((e: { code: number; stderr: string }) => e);
      expect(bad).toMatchObject({ code: 1, stderr: 'Not IPv4 addresses: 192.0.2.300\n' });
    },
  );
});
