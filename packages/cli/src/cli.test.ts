/**
 * The `portal` command against the real API on the simulator (issue 26 item 5's test; docs/cli.md): the server
 * listens on loopback, a user creates personal tokens through the API, and the CLI runs as a child process (its
 * bin, through tsx) with its own HOME: login stores the profile 0600, a VM is created, listed as JSON, stopped,
 * started and deleted; SSH keys and teams; a read-only token's create exits 1 with the API's message, a bad token
 * exits 1 with the 401, and usage errors exit 2.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { routes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../apps/api/test/harness.ts';
import { seededCatalog } from '../../../apps/api/test/vm-catalog.ts';
import { ed25519KeyLine } from '../../../apps/api/test/ssh-key-lines.ts';

/** Each run of the bin starts Node and tsx (1-3 s on a loaded two-core machine): generous per-test time. */
const SLOW = 180_000;
const BIN = fileURLToPath(new URL('../bin/portal.js', import.meta.url));

let t: TestApp;
let admin: TestClient;
let url: string;
let home: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `portal ...args` as a child process with HOME in a scratch directory and no PORTAL_* from this process. */
function portal(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('PORTAL_') && k !== 'XDG_CONFIG_HOME'),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...clean, HOME: home, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function token(scope: 'read' | 'act', name: string): Promise<string> {
  const res = await admin.call(routes.apiTokens.create, {
    body: { name, scope, expiresAt: new Date(Date.now() + 7 * 86_400_000).toISOString() },
  });
  expect(res.status, res.message).toBe(200);
  return res.data.token;
}

async function waitForStatus(id: number, status: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data?.status === status) return;
    if (Date.now() > deadline) throw new Error(`VM ${id} is ${res.data?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '30', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '250' },
  });
  t.portal.startWorkers();
  await t.portal.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.portal.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  // The portal's address without a path: the CLI adds the default API base path, as for a real portal.
  url = `http://127.0.0.1:${address.port}`;
  expect(t.config.API_BASE_PATH).toBe('/irontech/api/v1');
  admin = await signIn(t);
  home = mkdtempSync(join(tmpdir(), 'portal-cli-'));
});

afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('portal CLI', () => {
  it('logs in, creates, lists, stops, starts and deletes a VM on the simulator', { timeout: SLOW }, async () => {
    const secret = await token('act', 'cli');
    const login = await portal(['login', '--url', url, '--token', secret]);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain('Logged in to');
    const file = join(home, '.config', 'portal', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      profiles: { default: { url: `${url}/irontech/api/v1`, token: secret } },
    });

    const catalog = await seededCatalog(admin);
    const created = await portal([
      'vm',
      'create',
      '--name',
      'cli-made',
      '--region',
      String(catalog.east.id),
      '--image',
      'Debian 12',
      '--configuration',
      String(catalog.micro.id),
      '--provider',
      String(catalog.provider.id),
      '--json',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { ids } = JSON.parse(created.stdout) as { ids: number[] };
    expect(ids).toHaveLength(1);
    const id = ids[0]!;

    const list = await portal(['vm', 'list', '--search', 'cli-made', '--json']);
    expect(list.code).toBe(0);
    const listed = JSON.parse(list.stdout) as { data: { id: number; name: string }[]; totalPages: number };
    expect(listed.data.map((vm) => [vm.id, vm.name])).toEqual([[id, 'cli-made']]);

    await waitForStatus(id, 'Running');
    const table = await portal(['vm', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+STATUS/);
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+cli-made\\s+Running`, 'm'));

    const stop = await portal(['vm', 'stop', String(id)]);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    await waitForStatus(id, 'Stopped');
    const show = await portal(['vm', 'show', String(id), '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: 'Stopped', virtualMachine: { id, name: 'cli-made' } });

    const start = await portal(['vm', 'start', String(id), '--json']);
    expect(start.code).toBe(0);
    expect(JSON.parse(start.stdout)).toHaveProperty('message');
    await waitForStatus(id, 'Running');

    const del = await portal(['vm', 'delete', String(id)]);
    expect(del.stderr).toBe('');
    expect(del.code).toBe(0);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const after = JSON.parse((await portal(['vm', 'list', '--search', 'cli-made', '--json'])).stdout) as {
        data: { id: number; status: string }[];
      };
      if (!after.data.some((vm) => vm.id === id)) break;
      expect(Date.now()).toBeLessThan(deadline);
    }
    const gone = await portal(['vm', 'show', String(id)]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('HTTP 404');
  });

  it(
    'adds, lists and deletes an SSH key, lists teams; PORTAL_URL/PORTAL_TOKEN override the stored profile',
    { timeout: SLOW },
    async () => {
      const secret = await token('act', 'cli-env');
      const env = { PORTAL_URL: url, PORTAL_TOKEN: secret };
      const line = ed25519KeyLine('cli@test');
      const added = await portal(['ssh-key', 'add', '--name', 'laptop', '--key', line, '--json'], env);
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      const key = JSON.parse(added.stdout) as { id: number; fingerprint: string };
      const keys = await portal(['ssh-key', 'list'], env);
      expect(keys.stdout).toMatch(new RegExp(`^${key.id}\\s+laptop\\s+ssh-ed25519`, 'm'));
      expect((await portal(['ssh-key', 'delete', String(key.id)], env)).code).toBe(0);
      const none = JSON.parse((await portal(['ssh-key', 'list', '--json'], env)).stdout) as unknown[];
      expect(none.some((k) => (k as { id: number }).id === key.id)).toBe(false);

      const teams = await portal(['team', 'list', '--json'], env);
      expect(teams.code).toBe(0);
      const api = await admin.call(routes.teams.list);
      expect((JSON.parse(teams.stdout) as { data: { id: number }[] }).data.map((x) => x.id)).toEqual(
        api.data.data.map((x) => x.id),
      );
    },
  );

  it(
    "a read-only token's create exits 1 with the API's message; a bad token exits 1 with the 401; usage exits 2",
    { timeout: SLOW },
    async () => {
      const read = await token('read', 'cli-read');
      const env = { PORTAL_URL: url, PORTAL_TOKEN: read };
      const listed = await portal(['vm', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      const refused = await portal(
        [
          'vm',
          'create',
          '--name',
          'nope',
          '--region',
          '1',
          '--image',
          'Debian 12',
          '--configuration',
          '1',
          '--provider',
          '1',
        ],
        env,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(API_TOKEN_TEXT.readOnly);
      expect(refused.stderr).toContain('HTTP 403');

      const otherHome = mkdtempSync(join(tmpdir(), 'portal-cli-bad-'));
      try {
        const bad = await portal(['login', '--url', url, '--token', 'vmp_not-a-real-token'], { HOME: otherHome });
        expect(bad.code).toBe(1);
        expect(bad.stderr).toContain('401');
        expect(bad.stderr).toContain(API_TOKEN_TEXT.invalid);
        // Nothing stored for a token the API refused.
        expect(() => statSync(join(otherHome, '.config', 'portal', 'config.json'))).toThrow();
        const notLoggedIn = await portal(['vm', 'list'], { HOME: otherHome });
        expect(notLoggedIn.code).toBe(2);
        expect(notLoggedIn.stderr).toContain('Not logged in');
      } finally {
        rmSync(otherHome, { recursive: true, force: true });
      }

      const unknown = await portal(['vm', 'frobnicate'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('Unknown command: vm frobnicate');
      const badOption = await portal(['vm', 'list', '--colour'], env);
      expect(badOption.code).toBe(2);
      const badId = await portal(['vm', 'stop', 'abc'], env);
      expect(badId.code).toBe(2);
      const bad400 = await portal(['vm', 'list', '--rows', '100000', '--json'], env);
      expect(bad400.code).toBe(1);
      expect(bad400.stderr).toContain('HTTP 400');
    },
  );
});
