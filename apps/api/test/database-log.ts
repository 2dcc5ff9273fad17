/**
 * Which test file each throwaway PostgreSQL database belongs to, for scripts/pglite-set: with TEST_DATABASE_LOG
 * set, a line `<database>\t<test file>` is appended there when a file makes its database. Off otherwise.
 */
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect } from 'vitest';

export function noteDatabase(name: string): void {
  const log = process.env.TEST_DATABASE_LOG;
  if (!log) return;
  const file = expect.getState().testPath;
  appendFileSync(log, `${name}\t${file ? relative(process.cwd(), file) : '?'}\n`);
}

/** Whether this run measures statements (scripts/pglite-set/run.sh). */
export const loggingDatabases = (): boolean => !!process.env.TEST_DATABASE_LOG;
