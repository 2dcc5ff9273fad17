/**
 * A reseller's accent colour (issue 25 item 8): the colour of the portal's buttons, links and highlights for that
 * brand, and the contrast it has in light and dark (WCAG 2.x relative luminance, AA = 4.5:1 for normal text).
 * Shared by the branding screen (the ratios it shows and warns about) and the portal (the CSS variables it sets).
 */

/** `#rrggbb`, lower-case once saved. */
export const ACCENT_PATTERN = /^#[0-9a-fA-F]{6}$/;
/** WCAG AA for normal text. */
export const AA_RATIO = 4.5;
/** WCAG 2.1 AA for what is not text (1.4.11): icons, focus rings, a control's edge. */
export const NON_TEXT_RATIO = 3;
/** The backgrounds the accent meets: the light page (slate-50) and the dark cards (slate-900), the harder of each. */
export const LIGHT_BACKGROUND = '#f8fafc';
export const DARK_BACKGROUND = '#0f172a';
const WHITE = '#ffffff';
const BLACK = '#000000';
/** The portal's near-black (slate-900, its text colour): the dark choice for text on the accent. */
export const NEAR_BLACK = '#0f172a';

type Rgb = [number, number, number];

function rgbOf(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hexOf([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance(hex: string): number {
  const [r, g, b] = rgbOf(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of two colours, 1..21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `hex` mixed with `toward` by `amount` (0: itself, 1: `toward`). */
export function mix(hex: string, toward: string, amount: number): string {
  const a = rgbOf(hex);
  const b = rgbOf(toward);
  return hexOf(a.map((c, i) => c + (b[i]! - c) * amount) as Rgb);
}

/** The lightest step toward white at which the accent reads as text on the dark background (dark mode's links). */
export function darkModeText(accent: string): string {
  for (let step = 0; step <= 20; step++) {
    const candidate = mix(accent, WHITE, step / 20);
    if (contrastRatio(candidate, DARK_BACKGROUND) >= AA_RATIO) return candidate;
  }
  return WHITE;
}

/**
 * The colour of text drawn on a background (a primary button's label on the accent, the active item's): white or
 * the portal's near-black, whichever contrasts more; when neither reaches AA (a mid tone), white or pure black,
 * one of which always does (at least 4.58:1). So a pale accent (#f5d90a, #a3e635) gets dark text, a deep one white.
 */
export function textOn(background: string): string {
  const best = contrastRatio(WHITE, background) >= contrastRatio(NEAR_BLACK, background) ? WHITE : NEAR_BLACK;
  if (contrastRatio(best, background) >= AA_RATIO) return best;
  return contrastRatio(WHITE, background) >= contrastRatio(BLACK, background) ? WHITE : BLACK;
}

export interface ContrastCheck {
  /** What meets what, as the branding screen says it. */
  label: string;
  /** Rounded down to two decimals, so 4.499 never shows as passing. */
  ratio: number;
  /** What it must reach: 4.5:1 for text, 3:1 for icons and focus rings. */
  needed: number;
  passes: boolean;
}

const floor2 = (n: number) => Math.floor(n * 100) / 100;

/**
 * The checks the branding screen shows for an accent: the text on it (buttons, the active item; both modes; white
 * or near-black by textOn, so it always reads), the accent itself on the light background (where it is not text:
 * icons, focus rings, checkboxes; 3:1), and dark mode's text tint on the dark background. Links and badges use the
 * computed 700/300 shades, which read whatever the accent (accentVariables).
 */
export function accentChecks(accent: string): ContrastCheck[] {
  const check = (label: string, a: string, b: string, needed = AA_RATIO): ContrastCheck => {
    const ratio = floor2(contrastRatio(a, b));
    return { label, ratio, needed, passes: ratio >= needed };
  };
  const onAccent = textOn(accent);
  return [
    check(
      `${onAccent === WHITE ? 'White' : onAccent === BLACK ? 'Black' : 'Near-black'} text on the accent (buttons, the active item; light and dark)`,
      onAccent,
      accent,
    ),
    check(
      'The accent on the light background (icons, focus rings, checkboxes)',
      accent,
      LIGHT_BACKGROUND,
      NON_TEXT_RATIO,
    ),
    check('Its dark-mode tint as text on the dark background', darkModeText(accent), DARK_BACKGROUND),
  ];
}

/**
 * The portal's `--color-brand-*` variables for an accent (index.css names them): 600 is the accent (buttons,
 * the active item, icons, focus rings), 700 its hover and the links' and badges' text (AA on white and the tints),
 * 800 that text's hover, 500 rings and borders, 300 dark mode's text, 50/100 light tints, 950 a dark tint; and
 * `--color-on-brand-600`/`-700`, the text drawn on 600 and on 700 (white or near-black, textOn).
 */
export function accentVariables(accent: string): Record<string, string> {
  const tint100 = mix(accent, WHITE, 0.84);
  const shade700 = lightLinkText(accent, tint100);
  return {
    '--color-brand-50': mix(accent, WHITE, 0.92),
    '--color-brand-100': tint100,
    '--color-brand-300': darkModeText(accent),
    '--color-brand-500': mix(accent, WHITE, 0.15),
    '--color-brand-600': accent,
    '--color-brand-700': shade700,
    '--color-brand-800': mix(shade700, BLACK, 0.2),
    '--color-brand-950': darkTint(accent),
    '--color-on-brand-600': textOn(accent),
    '--color-on-brand-700': textOn(shade700),
  };
}

/**
 * 700: the accent 18% darker (the buttons' hover), or darker still until it reads as text (AA) on the lightest
 * backgrounds it meets: white, and the 50/100 tints of the badges it writes on. So the portal's links and badges
 * (text-brand-700) read whatever the accent; the accent itself (600) stays the owner's colour, with the screen's
 * warning when it does not read.
 */
export function lightLinkText(accent: string, tint: string = mix(accent, WHITE, 0.84)): string {
  for (let step = 18; step <= 100; step += 2) {
    const candidate = mix(accent, BLACK, step / 100);
    if (contrastRatio(candidate, tint) >= AA_RATIO && contrastRatio(candidate, WHITE) >= AA_RATIO) return candidate;
  }
  return BLACK;
}

/** 950: the accent 70% darker, or darker still until dark mode's text tint (300) reads on it (its badges). */
export function darkTint(accent: string): string {
  const text = darkModeText(accent);
  for (let step = 70; step <= 100; step += 2) {
    const candidate = mix(accent, BLACK, step / 100);
    if (contrastRatio(text, candidate) >= AA_RATIO) return candidate;
  }
  return BLACK;
}
