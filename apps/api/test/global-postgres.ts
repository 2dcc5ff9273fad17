/**
 * Vitest global setup of the projects on PostgreSQL: one throwaway cluster for the run (or the server DATABASE_URL
 * names), and on it the template databases every file's database is copied from (database-templates.ts).
 */
import type { TestProject } from 'vitest/node';
import { makePostgresTemplates } from './database-templates.ts';
import { startPostgresCluster } from './postgres-cluster.ts';

export default async function setup(project: TestProject) {
  const external = process.env.DATABASE_URL;
  const cluster = external ? null : startPostgresCluster();
  const url = external ?? cluster!.url;
  project.provide('pgUrl', url);
  try {
    const { templates, drop } = await makePostgresTemplates(url);
    project.provide('databaseTemplates', { postgres: templates });
    return async () => {
      try {
        await drop();
      } finally {
        cluster?.stop();
      }
    };
  } catch (e) {
    cluster?.stop();
    throw e;
  }
}
