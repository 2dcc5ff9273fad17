/**
 * Start-up failures in words an operator can act on: which setting, what is wrong, what to do. Raw
 * errors (`Failed query: CREATE SCHEMA IF NOT EXISTS "drizzle"`, `listen EADDRINUSE`) name no cause.
 */
import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from './config.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';

export class StartupError extends Error {}

function codesOf(err: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const rec = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof rec.code === 'string') codes.push(rec.code);
    if (typeof rec.message === 'string' && rec.message) messages.push(rec.message);
    // AggregateError (a host name with several addresses): the first one says enough.
    current = rec.cause ?? (Array.isArray(rec.errors) ? rec.errors[0] : undefined);
  }
  return { codes, messages };
}

/** Where DATABASE_URL points, without its password. */
export function databaseTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
  } catch {
    return '(not a valid URL)';
  }
}

export function describeDatabaseError(err: unknown, config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR'>): string {
  const { codes, messages } = codesOf(err);
  const has = (...c: string[]) => codes.some((x) => c.includes(x));
  if (!config.DATABASE_URL) {
    if (err instanceof DataDirInUseError) return err.message;
    if (has('EACCES', 'EPERM', 'EROFS'))
      return `DATA_DIR ${resolve(config.DATA_DIR)} is not writable (${codes.join(', ')}): give this user write access or set DATA_DIR elsewhere.`;
    if (has('ENOSPC')) return `DATA_DIR ${resolve(config.DATA_DIR)}: the disk is full. Free space and start again.`;
    return `The embedded database in ${resolve(config.DATA_DIR)} could not be opened: ${messages.at(-1) ?? 'unknown error'}`;
  }
  const where = databaseTarget(config.DATABASE_URL);
  if (where === '(not a valid URL)')
    return 'DATABASE_URL is not a valid URL: expected postgres://user:password@host:5432/database';
  if (has('ECONNREFUSED'))
    return `Cannot reach PostgreSQL at ${where} (DATABASE_URL): connection refused. Is the server running and listening there?`;
  if (has('ENOTFOUND', 'EAI_AGAIN')) return `Cannot reach PostgreSQL at ${where} (DATABASE_URL): unknown host name.`;
  if (has('ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'))
    return `Cannot reach PostgreSQL at ${where} (DATABASE_URL): no answer (network or firewall).`;
  if (has('28P01', '28000')) return `PostgreSQL at ${where} refused the user name or password in DATABASE_URL.`;
  if (has('3D000'))
    return `PostgreSQL at ${where}: the database in DATABASE_URL does not exist. Create it (createdb) first.`;
  if (has('42501'))
    return `PostgreSQL at ${where}: the user in DATABASE_URL may not create the schema; grant it CREATE on the database.`;
  return `PostgreSQL at ${where} (DATABASE_URL) could not be prepared: ${messages.at(-1) ?? 'unknown error'}`;
}

export function describeListenError(err: unknown, config: Pick<Config, 'PORT' | 'HOST'>): string {
  const { codes, messages } = codesOf(err);
  if (codes.includes('EADDRINUSE'))
    return `Port ${config.PORT} on ${config.HOST} is already in use (PORT): stop the other process or set PORT to a free port.`;
  if (codes.includes('EACCES'))
    return `Port ${config.PORT} needs privileges this user lacks (PORT): use a port above 1023 or a reverse proxy.`;
  if (codes.includes('EADDRNOTAVAIL')) return `HOST ${config.HOST} is not an address of this machine (HOST).`;
  return `Could not listen on ${config.HOST}:${config.PORT}: ${messages.at(-1) ?? 'unknown error'}`;
}

/** DATA_DIR must exist and take a write before anything else (the secret and PGlite live there). */
export function checkDataDirWritable(dataDir: string): void {
  const dir = resolve(dataDir);
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    writeFileSync(probe, 'ok');
    rmSync(probe, { force: true });
  } catch (err) {
    const { codes } = codesOf(err);
    if (codes.includes('ENOSPC'))
      throw new StartupError(`DATA_DIR ${dir}: the disk is full. Free space and start again.`);
    throw new StartupError(
      `DATA_DIR ${dir} is not writable (${codes.join(', ') || 'unknown'}): a read-only file system or missing permission. Give this user write access or set DATA_DIR elsewhere.`,
    );
  }
}
