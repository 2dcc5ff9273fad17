/**
 * The contract's zod-free modules stay zod-free: the portal's sign-in page and VM pages import them so that their
 * chunks load no zod (~25 KB gzip; bench/web-load). Follows each module's runtime imports (`import type` and
 * `export type` are erased from the bundle) through the contract and fails if any reaches zod.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const ZOD_FREE = [
  'vm-actions.ts',
  'single-sign-on-text.ts',
  'step-up-text.ts',
  'messages.ts',
  'constants.ts',
  'backup-screens-text.ts',
  'backup-consistency.ts',
];

/** Specifiers of the module's imports and re-exports that remain at runtime. */
function runtimeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?([^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
    if (m[2]) continue; // import type / export type
    if (m[1] === 'export' && !m[3]) continue;
    out.push(m[4]!);
  }
  return out;
}

/** The chain from `file` to zod through runtime imports, or null. */
function pathToZod(file: string, seen = new Set<string>()): string[] | null {
  if (seen.has(file)) return null;
  seen.add(file);
  for (const spec of runtimeImports(readFileSync(resolve(SRC, file), 'utf8'))) {
    if (spec === 'zod' || spec.startsWith('zod/')) return [file, spec];
    if (!spec.startsWith('./')) continue;
    const next = pathToZod(spec.slice(2), seen);
    if (next) return [file, ...next];
  }
  return null;
}

describe('zod-free contract modules', () => {
  it.each(ZOD_FREE)('%s reaches no zod at runtime', (file) => {
    expect(pathToZod(file)).toBeNull();
  });
  it('sees through to zod when a module does import it (the check itself works)', () => {
    expect(pathToZod('vm-lifecycle.ts')).toEqual(['vm-lifecycle.ts', 'zod-setup.ts', 'zod']);
  });
});
