/** docs/configuration.md documents every variable the config schema reads, and nothing it does not. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configSchema } from './config.ts';

const doc = readFileSync(fileURLToPath(new URL('../../../docs/configuration.md', import.meta.url)), 'utf8');
const documented = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((m) => m[1]!);

describe('docs/configuration.md', () => {
  it('has one row per variable of the config schema', () => {
    expect([...documented].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });
});
