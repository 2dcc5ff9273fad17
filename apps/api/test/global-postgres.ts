/** Vitest global setup of the `api-postgres` project: one throwaway cluster for the run. */
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.ts';

export default function setup(project: TestProject) {
  const external = process.env.DATABASE_URL;
  if (external) {
    project.provide('pgUrl', external);
    return;
  }
  const cluster = startPostgresCluster();
  project.provide('pgUrl', cluster.url);
  return () => cluster.stop();
}
