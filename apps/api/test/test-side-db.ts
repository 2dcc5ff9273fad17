/**
 * `t.db` while the PGlite set is measured (TEST_DATABASE_LOG; scripts/pglite-set): each use of it goes to one of two
 * Drizzle instances on pools of their own, chosen by who uses it. The test's own statements (its fixtures and checks:
 * the first caller outside node_modules is a test file or a helper in apps/api/test/) go out under the
 * `application_name` TEST_SIDE_APPLICATION, which scripts/pglite-set/shapes.ts leaves out; the portal's code that a
 * test calls with `t.db` (a repository, a service it builds) goes out under the default name, like the app's own, and
 * counts. Limit: the portal's code run inside a transaction the test opened (`t.db.transaction(tx => f(tx))`) counts
 * as the test's.
 */
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Db } from '../src/db/client.ts';
import * as schema from '../src/db/schema.ts';
import { TEST_SIDE_APPLICATION } from './test-side-application.ts';

const HERE = fileURLToPath(import.meta.url);

/** Whether the code that touched the database handle is a test's (the first frame outside this file and packages). */
function usedByTest(): boolean {
  for (const line of (new Error().stack ?? '').split('\n').slice(1)) {
    const m = /((?:file:\/\/)?\/[^():\s]+):\d+:\d+\)?$/.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.replace(/^file:\/\//, '');
    if (file === HERE || file.includes('/node_modules/')) continue;
    return /\.test\.ts$|\/apps\/api\/test\//.test(file);
  }
  return false;
}

export function testSideDb(url: string): { db: Db; end: () => Promise<void> } {
  const testPool = new pg.Pool({ connectionString: url, max: 5, application_name: TEST_SIDE_APPLICATION });
  const portalPool = new pg.Pool({ connectionString: url, max: 5 });
  // A test that ends connections (an outage, a forced drop) ends these pools' idle ones too: not an error here.
  for (const pool of [testPool, portalPool]) pool.on('error', () => {});
  const forTest = drizzle(testPool, { schema });
  const forPortal = drizzle(portalPool, { schema });
  const db = new Proxy(forPortal, {
    get(_target, prop) {
      const chosen = usedByTest() ? forTest : forPortal;
      const value: unknown = Reflect.get(chosen, prop, chosen);
      return typeof value === 'function' ? value.bind(chosen) : value;
    },
  });
  return { db, end: async () => void (await Promise.all([testPool.end(), portalPool.end()])) };
}
