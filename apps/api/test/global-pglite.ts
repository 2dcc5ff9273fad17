/**
 * Vitest global setup of the projects on PGlite (api-pglite, libvirt, e2e): the migrated and seeded snapshots every
 * file's database starts from (database-templates.ts), made once for the run. The projects' setups run in the one
 * Vitest process: the first makes them, the others share them, the last teardown removes them.
 */
import type { TestProject } from 'vitest/node';
import { makePgliteTemplates } from './database-templates.ts';

type Made = Awaited<ReturnType<typeof makePgliteTemplates>>;
const shared = globalThis as typeof globalThis & { __pgliteTemplates?: { made: Promise<Made>; users: number } };

export default async function setup(project: TestProject) {
  const entry = (shared.__pgliteTemplates ??= { made: makePgliteTemplates(), users: 0 });
  entry.users++;
  const { templates, remove } = await entry.made;
  project.provide('databaseTemplates', { pglite: templates });
  return () => {
    if (--entry.users > 0) return;
    delete shared.__pgliteTemplates;
    remove();
  };
}
