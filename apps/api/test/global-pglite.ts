/**
 * Vitest global setup of the projects on PGlite (api-pglite, libvirt, e2e): the migrated and seeded snapshots every
 * file's database starts from (database-templates.ts), made once for the run.
 */
import type { TestProject } from 'vitest/node';
import { makePgliteTemplates } from './database-templates.ts';

export default async function setup(project: TestProject) {
  const { templates, remove } = await makePgliteTemplates();
  project.provide('databaseTemplates', { pglite: templates });
  return remove;
}
