/**
 * Migrated databases made once per test run, that every test file's database starts from instead of running
 * every migration again (issue 22 item 7): on PostgreSQL two template databases (`CREATE DATABASE … TEMPLATE`),
 * on PGlite two `dumpDataDir` tarballs (an in-memory PGlite starts from one with `loadDataDir`) and a migrated
 * data directory that a scratch database copies. `migrated` has the migrations only; `seeded` also has the
 * reference data and the demo tenant with ADMIN, as createTestApp seeded them in every file before.
 *
 * The global setups (global-postgres.ts, global-pglite.ts) make them and hand their names to the test files
 * through `inject('databaseTemplates')`; without them (a file run outside those projects) the harness migrates
 * from scratch as before.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Db } from '../src/db/client.ts';
import { seedDemoTenant, seedReferenceData } from '../src/seed/seed.ts';

export const ADMIN = { email: 'admin@example.com', password: 'Admin-Password-1!' } as const;

export interface DatabaseTemplates {
  /** Template database names on the run's PostgreSQL server. */
  postgres?: { migrated: string; seeded: string };
  /** Tarball paths (`dumpDataDir`, uncompressed) and a migrated PGlite DATA_DIR to copy. */
  pglite?: { migrated: string; seeded: string; migratedDataDir: string };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates | null;
  }
}

/** What createTestApp used to seed in each file: reference data and the demo tenant whose owner is ADMIN. */
export async function seedTestTenant(db: Db): Promise<void> {
  await seedReferenceData(db);
  await seedDemoTenant(db, { adminEmail: ADMIN.email, adminPassword: ADMIN.password });
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `url` ends in `/postgres` (the cluster's maintenance database); the same server's database `name`. */
export function databaseUrl(url: string, name: string): string {
  return url.replace(/\/postgres$/, `/${name}`);
}

/** Makes the two template databases on the server at `url`; returns them and a function that drops them. */
export async function makePostgresTemplates(
  url: string,
): Promise<{ templates: { migrated: string; seeded: string }; drop: () => Promise<void> }> {
  const tag = randomBytes(4).toString('hex');
  const migrated = `tpl_migrated_${tag}`;
  const seeded = `tpl_seeded_${tag}`;
  await adminQuery(url, `create database ${migrated}`);
  const m = await openDatabase({ databaseUrl: databaseUrl(url, migrated), poolSize: 1 });
  await m.close();
  // A template may have no other session connected while it is copied: each is closed before the next copy.
  await adminQuery(url, `create database ${seeded} template ${migrated}`);
  const s = await openDatabase({ databaseUrl: databaseUrl(url, seeded), poolSize: 1 });
  await seedTestTenant(s.db);
  await s.close();
  return {
    templates: { migrated, seeded },
    drop: async () => {
      for (const name of [seeded, migrated]) await adminQuery(url, `drop database if exists ${name} with (force)`);
    },
  };
}

type PgliteTemplates = NonNullable<DatabaseTemplates['pglite']>;

/**
 * Makes the PGlite snapshots in `root` (default: a new temporary directory); returns them and a function that removes
 * them.
 */
export async function makePgliteTemplates(
  root = mkdtempSync(join(tmpdir(), 'pglite-templates-')),
): Promise<{ templates: PgliteTemplates; remove: () => void }> {
  mkdirSync(root, { recursive: true });
  const migratedDataDir = join(root, 'migrated-data-dir');
  const onDisk = await openDatabase({ dataDir: migratedDataDir });
  await onDisk.close();
  const database = await openDatabase({ dataDir: 'memory://' });
  const dump = async (name: string) => {
    const file = join(root, `${name}.tar`);
    writeFileSync(file, Buffer.from(await (await database.dumpDataDir!()).arrayBuffer()));
    return file;
  };
  const migrated = await dump('migrated');
  await seedTestTenant(database.db);
  const seeded = await dump('seeded');
  await database.close();
  return {
    templates: { migrated, seeded, migratedDataDir },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * The PGlite snapshots shared by the Vitest processes of one run of scripts/test.sh, which names a directory for them
 * in IRONTECH_TEST_TEMPLATES_DIR and removes it at the end: the first process to ask makes them there (~6.5 s and ~11
 * core-s: two migrations and the seed), the others wait for them and take them. Files only read after they are
 * made. If the maker fails, the others make their own.
 */
export async function sharedPgliteTemplates(dir: string): Promise<{ templates: PgliteTemplates; remove: () => void }> {
  mkdirSync(dir, { recursive: true });
  const ready = join(dir, 'pglite-ready.json');
  const failed = join(dir, 'pglite-failed');
  const remove = () => {}; // the run's: scripts/test.sh removes the directory
  try {
    closeSync(openSync(join(dir, 'pglite.lock'), 'wx'));
  } catch {
    // Another process makes them: wait for its result.
    for (const deadline = Date.now() + 600_000; Date.now() < deadline;) {
      if (existsSync(ready)) return { templates: JSON.parse(readFileSync(ready, 'utf8')) as PgliteTemplates, remove };
      if (existsSync(failed)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return makePgliteTemplates();
  }
  try {
    const { templates } = await makePgliteTemplates(join(dir, 'pglite'));
    writeFileSync(`${ready}.tmp`, JSON.stringify(templates));
    renameSync(`${ready}.tmp`, ready);
    return { templates, remove };
  } catch (e) {
    writeFileSync(failed, String(e));
    throw e;
  }
}
