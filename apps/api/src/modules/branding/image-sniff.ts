/**
 * What an uploaded brand image is, read from its bytes (issue 25 item 8): never the file name or the type the
 * browser claims. PNG, JPEG and WebP only, with their pixel size from the header. SVG is refused (docs/branding.md
 * "Why no SVG": it is a document that can carry script, and mail clients do not show it).
 */
import type { BRAND_ASSET_TYPES } from '@portal/contract/reseller-branding';

export type ImageType = (typeof BRAND_ASSET_TYPES)[number];
export type Sniffed =
  | { type: ImageType; width: number; height: number }
  | { type: 'svg' }
  | { type: null }
  /** The right signature but no readable size: a truncated or damaged file. */
  | { type: 'damaged' };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const startsWith = (b: Buffer, bytes: number[], at = 0) => bytes.every((v, i) => b[at + i] === v);
const ascii = (b: Buffer, at: number, len: number) => b.toString('latin1', at, at + len);

function png(b: Buffer): Sniffed {
  // The IHDR chunk comes first: length (4), "IHDR", width (4), height (4).
  if (b.length < 24 || ascii(b, 12, 4) !== 'IHDR') return { type: 'damaged' };
  return { type: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function jpeg(b: Buffer): Sniffed {
  // Walk the markers to the first start-of-frame (SOF0..SOF15 but DHT C4, JPG C8, DAC CC).
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return { type: 'damaged' };
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { type: 'image/jpeg', height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    if (length < 2) return { type: 'damaged' };
    at += 2 + length;
  }
  return { type: 'damaged' };
}

function webp(b: Buffer): Sniffed {
  const chunk = ascii(b, 12, 4);
  if (chunk === 'VP8 ' && b.length >= 30)
    return { type: 'image/webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L' && b.length >= 25 && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { type: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X' && b.length >= 30)
    return { type: 'image/webp', width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return { type: 'damaged' };
}

/** An SVG (or any XML/HTML document) starts, after optional BOM and blanks, with '<'. */
function looksLikeSvg(b: Buffer): boolean {
  const head = b
    .toString('utf8', 0, Math.min(b.length, 1024))
    .replace(/^\uFEFF/, '')
    .trimStart();
  return head.startsWith('<') && /<svg[\s>]/i.test(b.toString('utf8', 0, Math.min(b.length, 4096)));
}

export function sniffImage(b: Buffer): Sniffed {
  if (startsWith(b, PNG_SIGNATURE)) return png(b);
  if (startsWith(b, [0xff, 0xd8, 0xff])) return jpeg(b);
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return webp(b);
  if (looksLikeSvg(b)) return { type: 'svg' };
  return { type: null };
}
