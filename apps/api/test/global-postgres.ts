/**
 * Vitest global setup of the projects on PostgreSQL (api-postgres, libvirt-postgres): one throwaway cluster for the
 * run (or the server DATABASE_URL names), and on it the template databases every file's database is copied from
 * (database-templates.ts). The projects' setups run in the one Vitest process: the first starts the cluster and makes
 * the templates, the others share them, the last teardown drops them and stops the cluster.
 */
import type { TestProject } from 'vitest/node';
import { makePostgresTemplates } from './database-templates.ts';
import { startPostgresCluster } from './postgres-cluster.ts';

interface Made {
  url: string;
  templates: { migrated: string; seeded: string };
  stop: () => Promise<void>;
}
const shared = globalThis as typeof globalThis & { __postgresTemplates?: { made: Promise<Made>; users: number } };

async function make(): Promise<Made> {
  const external = process.env.DATABASE_URL;
  const cluster = external ? null : startPostgresCluster();
  const url = external ?? cluster!.url;
  try {
    const { templates, drop } = await makePostgresTemplates(url);
    return {
      url,
      templates,
      stop: async () => {
        try {
          await drop();
        } finally {
          cluster?.stop();
        }
      },
    };
  } catch (e) {
    cluster?.stop();
    throw e;
  }
}

export default async function setup(project: TestProject) {
  const entry = (shared.__postgresTemplates ??= { made: make(), users: 0 });
  entry.users++;
  const { url, templates, stop } = await entry.made;
  project.provide('pgUrl', url);
  project.provide('databaseTemplates', { postgres: templates });
  return async () => {
    if (--entry.users > 0) return;
    delete shared.__postgresTemplates;
    await stop();
  };
}
