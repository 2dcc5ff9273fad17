/**
 * Vitest global setup of the projects on PGlite (api-pglite, libvirt, e2e): the migrated and seeded snapshots every
 * file's database starts from (database-templates.ts), made once for the run. The projects' setups run in the one
 * Vitest process: the first makes them, the others share them, the last teardown removes them. Under scripts/test.sh
 * (IRONTECH_TEST_TEMPLATES_DIR) the run's Vitest processes share one set, which the script removes.
 */
import type { TestProject } from 'vitest/node';
import { makePgliteTemplates, sharedPgliteTemplates } from './database-templates.ts';

type Made = Awaited<ReturnType<typeof makePgliteTemplates>>;
const shared = globalThis as typeof globalThis & { __pgliteTemplates?: { made: Promise<Made>; users: number } };

/** One run's snapshots (scripts/test.sh), kept until it ends; else this process's own, removed at its end. */
function make(): Promise<Made> {
  const runDir = process.env.IRONTECH_TEST_TEMPLATES_DIR;
  return runDir ? sharedPgliteTemplates(runDir) : makePgliteTemplates();
}

export default async function setup(project: TestProject) {
  const entry = (shared.__pgliteTemplates ??= { made: make(), users: 0 });
  entry.users++;
  const { templates, remove } = await entry.made;
  project.provide('databaseTemplates', { pglite: templates });
  return () => {
    if (--entry.users > 0) return;
    delete shared.__pgliteTemplates;
    remove();
  };
}
