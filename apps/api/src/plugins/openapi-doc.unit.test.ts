/** The committed OpenAPI document (docs/openapi.json) is what the contract generates today. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { generateOpenApi } from '../../../../scripts/openapi.ts';

it('docs/openapi.json is up to date (regenerate with "npm run openapi")', async () => {
  const committed = readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8');
  expect(committed).toBe(await generateOpenApi());
});
