/**
 * A reseller's accent reaches every brand colour the portal draws with (issue 25 item 8): each `brand-N` shade a
 * component uses is in index.css's theme (else Tailwind writes no rule for it and the accent never shows there) and
 * is set by accentVariables; and the shades written as text keep AA contrast whatever the accent.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AA_RATIO, DARK_BACKGROUND, accentVariables, contrastRatio } from '@portal/contract/brand-colors';

const SRC = new URL('..', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(tsx?|css)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const used = [
  ...new Set(
    sources(SRC).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bbrand-(\d{2,3})\b/g)].map((m) => m[1]!)),
  ),
].sort();
const themed = [...readFileSync(join(SRC, 'index.css'), 'utf8').matchAll(/--color-brand-(\d+):/g)].map((m) => m[1]!);

const ACCENTS = ['#0f766e', '#2563eb', '#facc15', '#ffffff', '#000000', '#dc2626', '#84cc16', '#7c3aed', '#f472b6'];

describe('the accent colours every brand shade of the portal', () => {
  it('every brand-N the components use is in the theme and set from the accent', () => {
    expect(used.length).toBeGreaterThan(3);
    for (const shade of used) {
      expect(themed, `brand-${shade} is used but not in index.css's @theme`).toContain(shade);
      expect(Object.keys(accentVariables('#0f766e'))).toContain(`--color-brand-${shade}`);
    }
  });

  it('600 is the accent itself; 700 (links, badges) reads on white and the tints; 300 reads on the dark cards', () => {
    for (const accent of ACCENTS) {
      const v = accentVariables(accent);
      expect(v['--color-brand-600']).toBe(accent);
      for (const bg of ['#ffffff', v['--color-brand-50']!, v['--color-brand-100']!]) {
        expect(contrastRatio(v['--color-brand-700']!, bg), `700 of ${accent} on ${bg}`).toBeGreaterThanOrEqual(
          AA_RATIO,
        );
        expect(contrastRatio(v['--color-brand-800']!, bg), `800 of ${accent} on ${bg}`).toBeGreaterThanOrEqual(
          AA_RATIO,
        );
      }
      expect(contrastRatio(v['--color-brand-300']!, DARK_BACKGROUND)).toBeGreaterThanOrEqual(AA_RATIO);
      expect(contrastRatio(v['--color-brand-300']!, v['--color-brand-950']!)).toBeGreaterThanOrEqual(AA_RATIO);
    }
  });
});
