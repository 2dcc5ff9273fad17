/**
 * Writes apps/api/test/file-durations.json (the order files run in: apps/api/test/longest-first-sequencer.ts) from a
 * whole `npm test` run's notes in test-results/file-durations (apps/api/test/file-durations-reporter.ts). Run it
 * after a whole run on a quiet machine when files were added or changed much; a file it has no figure for runs
 * first until then.
 *
 * Usage: node --import tsx scripts/file-durations/merge.ts [notes directory]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DURATIONS_FILE } from '../../apps/api/test/longest-first-sequencer.ts';

const dir = process.argv[2] ?? 'test-results/file-durations';
const seconds: Record<string, number> = {};
for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')))
  Object.assign(seconds, JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, number>);
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(
  DURATIONS_FILE,
  JSON.stringify(
    {
      note: 'Seconds per project:file in a whole npm test run (scripts/file-durations/merge.ts); the order files run in.',
      seconds: sorted,
    },
    null,
    2,
  ) + '\n',
);
console.log(`${Object.keys(sorted).length} files → ${DURATIONS_FILE.pathname}`);
