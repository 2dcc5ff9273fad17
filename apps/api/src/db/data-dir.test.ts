/** DATA_DIR and everything in it is owner-only, and a loose existing one is repaired at start (issue 9 item 4). */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './client.ts';
import { mailOutbox } from './schema.ts';

function looseEntries(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) out.push(`${p} ${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
  };
  walk(root);
  return out;
}

describe('DATA_DIR permissions', () => {
  it('creates the PGlite files owner-only, WAL included', { timeout: 180_000 }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'datadir-')), 'data');
    const database = await openDatabase({ dataDir: dir });
    // While the database runs, the directory itself keeps everyone else out.
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    await database.db
      .insert(mailOutbox)
      .values({ toAddress: 'a@example.com', fromAddress: 'b@example.com', subject: 'code 123456', textBody: 'secret' });
    await database.close();
    expect(looseEntries(dir)).toEqual([]);
  });

  it('repairs the modes of an existing, world-writable one', { timeout: 240_000 }, async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'datadir-')), 'data');
    const first = await openDatabase({ dataDir: dir });
    await first.close();
    chmodSync(dir, 0o777);
    mkdirSync(join(dir, 'extra'), { mode: 0o777 });
    chmodSync(join(dir, 'extra'), 0o777);
    writeFileSync(join(dir, 'extra', 'file'), 'x');
    chmodSync(join(dir, 'extra', 'file'), 0o666);
    expect(looseEntries(dir).length).toBeGreaterThan(0);
    const again = await openDatabase({ dataDir: dir });
    await again.close();
    expect(looseEntries(dir)).toEqual([]);
  });
});
