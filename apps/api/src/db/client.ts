/**
 * One database handle for both engines: real PostgreSQL through `pg` when DATABASE_URL is set,
 * else embedded PGlite in DATA_DIR. Both speak the same SQL and run the same migrations.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { secureDataDir } from './data-dir.ts';
import { lockDataDir, type DataDirRole } from './data-dir-lock.ts';
import * as schema from './schema.ts';

/** The Drizzle handle every repository takes. PGlite's has the same query surface. */
export type Db = NodePgDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The `pg` pool behind a PostgreSQL database (null for PGlite), for what needs a connection of its own. */
  pool: pg.Pool | null;
  /** Runs a raw statement; for health checks and tests. */
  ping(): Promise<void>;
  /** PGlite only: the data directory as a tarball (`loadDataDir` starts another database from it; test templates). */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface DatabaseOptions {
  databaseUrl?: string;
  /** PGlite directory; `memory://` for an in-memory database (tests). */
  dataDir?: string;
  /** An in-memory PGlite starts from this `dumpDataDir` tarball instead of an empty cluster (tests' templates). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** Told when an idle pooled connection fails (the default prints one line to stderr). */
  onIdleError?: (err: Error) => void;
  /** Who opens an on-disk PGlite: named in the refusal another process gets (data-dir-lock.ts). */
  role?: DataDirRole;
}

const defaultIdleError = (err: Error) =>
  process.stderr.write(`database: idle connection lost (${err.message}); it will be replaced\n`);

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? 10 });
    // An idle connection that the server drops (restart, failover, admin command) emits 'error' on the
    // pool; unheard, that would crash the process. The pool replaces the connection on the next query.
    pool.on('error', (err) => (opts.onIdleError ?? defaultIdleError)(err));
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return {
      db,
      kind: 'postgres',
      pool,
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    };
  }
  const dir = opts.dataDir ?? './data';
  let client: PGlite;
  let release = () => {};
  // The contrib extensions the migrations create (VM name search); real PostgreSQL ships them in contrib.
  const extensions = { pg_trgm, btree_gin };
  if (dir.startsWith('memory://')) {
    client = new PGlite({ extensions, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) });
  } else {
    secureDataDir(dir);
    // One process at a time: another one's writes would never reach this one's copy (data-dir-lock.ts).
    release = lockDataDir(dir, opts.role);
    const path = resolve(dir, 'pglite');
    client = new PGlite(path, { extensions });
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  try {
    await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
  } catch (err) {
    await client.close().catch(() => {});
    release();
    throw err;
  }
  // PGlite sets its files' modes itself (0666, whatever the umask): DATA_DIR's own 0700 is the barrier
  // that holds at all times; the files are brought back to owner-only after start-up and at close.
  const onDisk = !dir.startsWith('memory://');
  if (onDisk) secureDataDir(dir);
  return {
    db,
    kind: 'pglite',
    pool: null,
    ping: async () => {
      await client.query('select 1');
    },
    dumpDataDir: async () => {
      await client.exec('checkpoint');
      return client.dumpDataDir('none');
    },
    close: async () => {
      await client.close();
      if (onDisk) secureDataDir(dir);
      release();
    },
  };
}
