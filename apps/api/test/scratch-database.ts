/**
 * A fresh database for tests that must open it the way a separate process does (the operator CLI):
 * a PGlite directory, or a new database on the throwaway PostgreSQL cluster in the `api-postgres` project.
 * `env` is what such a process would be started with. It is migrated, not seeded: a copy of the run's migrated
 * template (database-templates.ts) when the project's global setup made one.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../src/db/client.ts';
import { databaseUrl } from './database-templates.ts';
import { noteDatabase } from './database-log.ts';

export interface ScratchDatabase {
  kind: 'postgres' | 'pglite';
  env: Record<string, string>;
  open(): Promise<Database>;
  drop(): Promise<void>;
}

export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const pgUrl = inject('pgUrl');
  const templates = inject('databaseTemplates');
  if (!pgUrl) {
    const dir = mkdtempSync(join(tmpdir(), 'scratch-'));
    const from = templates?.pglite?.migratedDataDir;
    if (from) cpSync(from, dir, { recursive: true });
    return {
      kind: 'pglite',
      env: { DATA_DIR: dir, LOG_LEVEL: 'silent' },
      open: () => openDatabase({ dataDir: dir }),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `s_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  const from = templates?.postgres?.migrated;
  await admin.query(`create database ${name}${from ? ` template ${from}` : ''}`);
  await admin.end();
  noteDatabase(name);
  const url = databaseUrl(pgUrl, name);
  const dir = mkdtempSync(join(tmpdir(), 'scratch-'));
  return {
    kind: 'postgres',
    env: { DATABASE_URL: url, DATA_DIR: dir, LOG_LEVEL: 'silent' },
    open: () => openDatabase({ databaseUrl: url, poolSize: 2 }),
    drop: async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
