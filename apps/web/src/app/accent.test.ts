/**
 * A reseller's accent reaches every brand colour the portal draws with (issue 25 item 8): each `brand-N` shade a
 * component uses is in index.css's theme (else Tailwind writes no rule for it and the accent never shows there) and
 * is set by accentVariables; and the shades written as text keep AA contrast whatever the accent.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AA_RATIO,
  DARK_BACKGROUND,
  NEAR_BLACK,
  NON_TEXT_RATIO,
  accentChecks,
  accentVariables,
  contrastRatio,
  textOn,
} from '@portal/contract/brand-colors';

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

describe('the text drawn on the accent (primary buttons, the active item)', () => {
  const PALE = ['#f5d90a', '#a3e635', '#facc15', '#ffffff', '#84cc16', '#f472b6'];
  const DEEP = ['#2563eb', '#0f766e', '#000000', '#dc2626', '#7c3aed'];

  it('is near-black on a pale accent and white on a deep one, whichever contrasts more', () => {
    for (const accent of PALE) expect(textOn(accent), accent).toBe(NEAR_BLACK);
    for (const accent of DEEP) expect(textOn(accent), accent).toBe('#ffffff');
    for (const accent of [...PALE, ...DEEP]) {
      const other = textOn(accent) === NEAR_BLACK ? '#ffffff' : NEAR_BLACK;
      expect(contrastRatio(textOn(accent), accent)).toBeGreaterThanOrEqual(contrastRatio(other, accent));
    }
  });

  it('reads at AA on the accent and on its hover shade for every accent, mid tones included', () => {
    const mids = ['#777777', '#808080', '#7a7a7a', '#e0245e', '#3b82f6', '#10b981', '#f97316'];
    for (const accent of [...PALE, ...DEEP, ...mids, ...ACCENTS]) {
      const v = accentVariables(accent);
      expect(v['--color-on-brand-600']).toBe(textOn(accent));
      expect(contrastRatio(v['--color-on-brand-600']!, accent), `text on ${accent}`).toBeGreaterThanOrEqual(AA_RATIO);
      expect(
        contrastRatio(v['--color-on-brand-700']!, v['--color-brand-700']!),
        `text on the hover shade of ${accent}`,
      ).toBeGreaterThanOrEqual(AA_RATIO);
    }
    // Every 24-bit grey: the worst case of white against black is 4.58:1, so one of them always reaches AA.
    for (let g = 0; g < 256; g++) {
      const grey = `#${g.toString(16).padStart(2, '0').repeat(3)}`;
      expect(contrastRatio(textOn(grey), grey), grey).toBeGreaterThanOrEqual(AA_RATIO);
    }
  });

  it('is themed in index.css (white on the default blue) and used where text sits on the accent', () => {
    const css = readFileSync(join(SRC, 'index.css'), 'utf8');
    expect(css).toMatch(/--color-on-brand-600: #ffffff;/);
    expect(css).toMatch(/--color-on-brand-700: #ffffff;/);
    // No white text left on a brand-600 background: the text colour comes from the accent.
    for (const file of sources(SRC)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        // One class string holding both (a hover:text-white of another string on the line is not text on the accent).
        if (/['"`][^'"`]*\bbg-brand-600\b[^'"`]*(?<![\w:-])text-white\b/.test(line))
          expect.fail(`${file}: ${line.trim()}`);
      }
    }
  });

  it('leaves the branding screen a warning only about what remains: the accent itself as an icon or focus ring', () => {
    const [onAccent, onLight, darkText] = accentChecks('#f5d90a');
    expect(onAccent).toMatchObject({ passes: true, needed: AA_RATIO });
    expect(onAccent!.label).toMatch(/^Near-black text on the accent/);
    expect(onLight).toMatchObject({ passes: false, needed: NON_TEXT_RATIO, ratio: 1.35 });
    expect(darkText!.passes).toBe(true);
    expect(accentChecks('#0f766e').every((c) => c.passes)).toBe(true);
    expect(accentChecks('#0f766e')[0]!.label).toMatch(/^White text on the accent/);
  });
});
