/**
 * axe-core's violations on a page as it is now (any impact), as "rule: target" lines for a readable failure:
 * ux.e2e.ts's screen matrix and the feature suites' own dialogs use it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * `within` narrows the check to one element (e.g. 'main' or '[role="dialog"]'): toasts fading in and out beside it
 * are the shared toast's business, and axe's contrast check on an element mid-animation is a matter of timing.
 */
export async function axeViolations(page: Page, within?: string): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the portal's CSP (no inline scripts) stays as it is.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (selector) => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document | string,
            opts: object,
          ) => Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(selector ?? document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }, within);
}
