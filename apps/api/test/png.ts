/** Real, decodable PNG files of one colour, made here so tests need no binary fixtures (issue 25 item 8). */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A width x height PNG filled with `rgb` (#rrggbb). `noise` fills it with random bytes instead (a big file). */
export function pngOf(width: number, height: number, rgb = '#1d4ed8', noise = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const n = Number.parseInt(rgb.slice(1), 16);
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([(n >> 16) & 255, (n >> 8) & 255, n & 255], 1 + x * 3);
  const rows = Buffer.concat(
    Array.from({ length: height }, () => {
      if (!noise) return row;
      const r = Buffer.alloc(1 + width * 3);
      for (let i = 1; i < r.length; i++) r[i] = Math.floor(Math.random() * 256);
      return r;
    }),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: noise ? 0 : 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
