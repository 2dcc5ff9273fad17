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
  // Evaluated through the DevTools protocol, so the portal's CSP (no inline scripts) stays as it is; once per document
  // (axe is 0.5 MB of script to parse again on every check otherwise).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
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
    // Contrast is measured on the page at rest: a colour transition (a theme switch, a button disabled for a moment
    // while a list refreshes itself) measured half-way fails on colours no one sees for long. So each run waits for
    // transitions to end, and a run during which one started is repeated; a page that never settles reports what
    // the last run saw.
    const settled = async () => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const moving = document.getAnimations().filter((a) => a instanceof CSSTransition);
        if (moving.length === 0 || Date.now() > deadline) return;
        await Promise.race([Promise.allSettled(moving.map((a) => a.finished)), new Promise((r) => setTimeout(r, 500))]);
      }
    };
    let started = 0;
    const onStart = () => started++;
    document.addEventListener('transitionstart', onStart, true);
    try {
      for (let attempt = 1; ; attempt++) {
        await settled();
        started = 0;
        const result = await axe.run(selector ?? document, { resultTypes: ['violations'] });
        if (started === 0 || attempt === 3) {
          return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
        }
      }
    } finally {
      document.removeEventListener('transitionstart', onStart, true);
    }
  }, within);
}
