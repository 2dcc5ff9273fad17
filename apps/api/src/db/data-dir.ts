/**
 * DATA_DIR holds the embedded database (its WAL carries sign-in codes and password hashes until purged)
 * and the server secret: owner-only, always. New files are made so by the process umask; an existing
 * directory (made by an older version, or copied loosely) is repaired at every start.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** Creates (or repairs) `dir` and everything under it as owner-only; returns how many modes it changed. */
export function secureDataDir(dir: string): number {
  const root = resolve(dir);
  // Anything this process creates from now on (PGlite's WAL segments, the secret) is owner-only too.
  process.umask(0o077);
  mkdirSync(root, { recursive: true, mode: DIR_MODE });
  let repaired = 0;
  const walk = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE;
    if ((st.mode & 0o777 & ~want) !== 0) {
      chmodSync(path, st.mode & 0o777 & want);
      repaired++;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return repaired;
}
