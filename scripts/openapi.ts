/**
 * Writes docs/openapi.json from the running app's routes (which come from the contract), so the
 * generated document is committed and reviewed. `npm run openapi` regenerates; `--check` fails when
 * the committed file is stale (run by the test suite).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';

export async function generateOpenApi(): Promise<string> {
  const database = await openDatabase({ dataDir: 'memory://' });
  const portal = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), database, secret: 'openapi-generation-secret-0123456789', logger: false, webDistDir: '/nonexistent' });
  await portal.app.ready();
  const doc = portal.app.swagger();
  await portal.close();
  await database.close();
  return `${JSON.stringify(doc, null, 2)}\n`;
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
