/**
 * Writes docs/openapi.json from the running app's routes (which come from the contract), so the
 * generated document is committed and reviewed. `npm run openapi` regenerates; `--check` fails when
 * the committed file is stale (run by the test suite).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';
import { allRoutes } from '../packages/contract/src/routes.ts';

export async function generateOpenApi(): Promise<string> {
  const database = await openDatabase({ dataDir: 'memory://' });
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const portal = await buildApp({
    config,
    database,
    secret: 'openapi-generation-secret-0123456789',
    logger: false,
    webDistDir: '/nonexistent',
  });
  await portal.app.ready();
  const doc = portal.app.swagger();
  await portal.close();
  await database.close();
  return `${JSON.stringify(inContractOrder(doc, config.API_BASE_PATH), null, 2)}\n`;
}

/**
 * Paths in the order the contract declares its routes (then any others as registered), so the document does
 * not reshuffle when the server's modules register in another order.
 */
function inContractOrder<D extends { paths?: Record<string, unknown> }>(doc: D, apiBasePath: string): D {
  if (!doc.paths) return doc;
  const rank = new Map(allRoutes().map((r, i) => [`${apiBasePath}${r.path.replace(/:(\w+)/g, '{$1}')}`, i]));
  const entries = Object.entries(doc.paths).map(([path, item], i) => ({
    path,
    item,
    order: rank.get(path) ?? Number.MAX_SAFE_INTEGER,
    i,
  }));
  entries.sort((x, y) => x.order - y.order || x.i - y.i);
  return { ...doc, paths: Object.fromEntries(entries.map((e) => [e.path, e.item])) };
}

const target = new URL('../docs/openapi.json', import.meta.url);

if (import.meta.url === `file://${process.argv[1]}`) {
  const doc = await generateOpenApi();
  if (process.argv.includes('--check')) {
    const committed = readFileSync(target, 'utf8');
    if (committed !== doc) {
      process.stderr.write('docs/openapi.json is stale: run "npm run openapi"\n');
      process.exit(1);
    }
  } else {
    writeFileSync(target, doc);
    process.stdout.write(`wrote ${target.pathname}\n`);
  }
}
