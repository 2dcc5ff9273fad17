/** Branding URLs take only https: (http: for development) and data:image/* (issue 9 item 17). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteData } from '@portal/contract/common';
import { routes } from '@portal/contract/routes';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { createOperatorTokens } from '../../../test/module-parts.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  token = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('branding')
  ).token;
});
afterAll(async () => t.close());

const importResellers = (rows: Record<string, unknown>[]) =>
  t
    .client()
    .raw<RouteData<typeof routes.platform.importResellers>>(
      'POST',
      `${t.config.API_BASE_PATH}${routes.platform.importResellers.path}`,
      { rows },
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    );

describe('branding URLs', () => {
  it('refuses script, HTML and file URLs for logoUrl and tabLogoUrl', async () => {
    const bad = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'ftp://example.com/logo.png',
      'vbscript:msgbox(1)',
    ];
    const rows = bad.flatMap((url, i) => [
      { externalId: `bad-logo-${i}`, distributorExternalId: 'demo-distributor', name: 'Bad', logoUrl: url },
      { externalId: `bad-tab-${i}`, distributorExternalId: 'demo-distributor', name: 'Bad', tabLogoUrl: url },
    ]);
    const res = await importResellers(rows);
    expect(res.status).toBe(200);
    expect(res.data.rejected).toBe(rows.length);
    for (const row of res.data.rows) expect(row.reason).toMatch(/Logo URL must be https:, http: or a data:image/);
  });

  it('accepts https:, http: and data:image/* URLs', async () => {
    const good = [
      'https://cdn.example.com/logo.svg',
      'http://localhost:5173/logo.png',
      'data:image/png;base64,iVBORw0KGgo=',
      'data:image/svg+xml;base64,PHN2Zy8+',
    ];
    const res = await importResellers(
      good.map((url, i) => ({
        externalId: `good-${i}`,
        distributorExternalId: 'demo-distributor',
        name: 'Good',
        logoUrl: url,
        tabLogoUrl: url,
      })),
    );
    expect(res.data).toMatchObject({ created: good.length, rejected: 0 });
  });
});
