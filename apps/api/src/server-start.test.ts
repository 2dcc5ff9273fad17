/**
 * Start-up failures name their cause, and the first administrator is made only once the server listens
 * (issue 9 item 16). Real server processes; engine-independent, so it runs in the api-pglite project only.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, inject, it } from 'vitest';
import { openDatabase } from './db/client.ts';

const serverTs = fileURLToPath(new URL('./server.ts', import.meta.url));

/** Runs the server until it prints its sign-in lines (then stops it) or exits by itself. */
function start(
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', serverTs], {
      env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server neither started nor failed: ${stdout} ${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => {
      stdout += String(d);
      if (/Lost a password\?/.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const busyPort = (): Promise<Server> =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => resolve(s));
  });

describe.skipIf(inject('pgUrl'))('start-up', () => {
  it('names an unreachable DATABASE_URL', async () => {
    const run = await start({
      DATABASE_URL: 'postgres://portal:secret@127.0.0.1:1/portal',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'start-')),
      PORT: '0',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'Cannot reach PostgreSQL at 127.0.0.1:1/portal (DATABASE_URL): connection refused. Is the server running and listening there?',
    );
    expect(run.stderr).not.toContain('secret');
  });

  it(
    'names a port in use, makes no administrator then, and shows the password on the next start',
    { timeout: 300_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'start-'));
      const blocker = await busyPort();
      const port = (blocker.address() as { port: number }).port;
      const clash = await start({ DATA_DIR: dataDir, PORT: String(port) });
      blocker.close();
      expect(clash.code).toBe(1);
      expect(clash.stderr.trim()).toBe(
        `Port ${port} on 127.0.0.1 is already in use (PORT): stop the other process or set PORT to a free port.`,
      );
      const db = await openDatabase({ dataDir });
      const [{ n } = { n: -1 }] = (await db.db.execute<{ n: number }>(sql`select count(*)::int as n from users`)).rows;
      await db.close();
      expect(n).toBe(0);

      const ok = await start({ DATA_DIR: dataDir, PORT: '0' });
      expect(ok.stdout).toMatch(/Sign in: {3}admin@example\.com/);
      expect(ok.stdout).toMatch(/Password: {2}Demo-\S+/);
      // The demo reseller's owner staff member (issue 13), printed beside it.
      expect(ok.stdout).toMatch(
        /Reseller: {2}owner@northwind\.example \(reseller area, owner staff\)\n {2}Password: {2}Staff-\S+/,
      );
    },
  );

  it(
    'VM_PROVIDER=libvirt on a fresh DATA_DIR seeds libvirt providers, the demo host and only the built image',
    { timeout: 300_000 },
    async () => {
      // Nothing listens at this URI: the rows are what is checked, no libvirtd is contacted (the host stays unseen).
      const uri = 'qemu+tcp://127.0.0.1:1/system';
      const dataDir = mkdtempSync(join(tmpdir(), 'start-'));
      const run = await start({ DATA_DIR: dataDir, PORT: '0', VM_PROVIDER: 'libvirt', LIBVIRT_DEMO_URI: uri });
      expect(run.stdout).toMatch(/Sign in: {3}admin@example\.com/);
      const db = await openDatabase({ dataDir });
      const rows = async (query: ReturnType<typeof sql>) => (await db.db.execute<Record<string, unknown>>(query)).rows;
      try {
        expect(await rows(sql`select name, driver, settings->>'uri' as uri from providers order by id`)).toEqual([
          { name: 'Northwind Cloud', driver: 'libvirt', uri },
          { name: 'Irontech Metal', driver: 'libvirt', uri },
        ]);
        expect(
          await rows(sql`select h.name, h.uri, r.name as region, p.name as provider from hosts h
            join regions r on r.id = h.region_id join providers p on p.id = h.provider_id order by h.id`),
        ).toEqual([
          { name: 'local', uri, region: 'US East', provider: 'Northwind Cloud' },
          { name: 'local-metal', uri, region: 'US East', provider: 'Irontech Metal' },
        ]);
        // Every region offers the names the built guest serves, and nothing that does not exist.
        expect(
          await rows(sql`select r.name as region, string_agg(i.name, ',' order by i.name) as images
            from regions r join images i on i.region_id = r.id group by r.name order by r.name`),
        ).toEqual(['Frankfurt', 'Singapore', 'US East', 'US West'].map((region) => ({ region, images: 'Debian 12' })));
      } finally {
        await db.close();
      }
    },
  );
});
