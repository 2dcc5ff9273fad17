/**
 * The NoCloud seed carries what the customer chose (issue 23 item 5): their keys beside the portal's, quoted, read
 * back by the busybox fixture's own reader (scripts/guest-image/seed.awk); their user-data as a MIME multipart with the
 * portal's #cloud-config, and no multipart without it (the fixture's reader knows none). A rebuild's seed carries a new
 * instance-id each time (rebuild.ts), so cloud-init treats the reinstalled disk as a new instance.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { MachineSpec } from '../provider.ts';
import { refForKey } from './names.ts';
import { rebuildMachine } from './rebuild.ts';
import { seedFiles } from './seed.ts';

const execFileP = promisify(execFile);
const SEED_AWK = fileURLToPath(new URL('../../../../../scripts/guest-image/seed.awk', import.meta.url));

const PORTAL_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBhO+RunSY0rsWAURZvDhbvXMIYqFdeFPAv+ey4Dir49 irontech';
const CHOSEN = [
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMr5Vv4sLpfr3pP0dZb0v8xqgX9n2b7nH3kGkS5YwJfN it's@laptop",
  'ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCl2 ops',
];
const base = { instanceId: 'i-1', hostname: 'web-01', user: 'root', password: 'pw', publicKey: PORTAL_KEY };

/** The decoded parts of the multipart user-data: content type and text. */
function parts(userData: string) {
  const boundary = /boundary="([^"]+)"/.exec(userData)?.[1];
  if (!boundary) throw new Error('not a multipart');
  return userData
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((raw) => {
      const [head = '', body = ''] = raw.replace(/^\n/, '').split('\n\n');
      const type = /^Content-Type: ([^;]+)/m.exec(head)?.[1];
      return { type, text: Buffer.from(body.replace(/\n/g, ''), 'base64').toString('utf8') };
    });
}

describe('seed', () => {
  it("installs the customer's keys beside the portal's, each quoted, and the fixture's reader gets them all", async () => {
    const { userData } = seedFiles({ ...base, authorizedKeys: CHOSEN });
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    expect(userData).toContain(
      [
        '    ssh_authorized_keys:',
        `      - '${PORTAL_KEY}'`,
        "      - 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMr5Vv4sLpfr3pP0dZb0v8xqgX9n2b7nH3kGkS5YwJfN it''s@laptop'",
        `      - '${CHOSEN[1]}'`,
        '',
      ].join('\n'),
    );
    const dir = await mkdtemp(path.join(os.tmpdir(), 'seed-keys-'));
    try {
      await writeFile(path.join(dir, 'user-data'), userData);
      await execFileP('busybox', ['awk', '-v', `out=${dir}`, '-f', SEED_AWK, path.join(dir, 'user-data')]);
      expect(await readFile(path.join(dir, 'keys'), 'utf8')).toBe(`${[PORTAL_KEY, ...CHOSEN].join('\n')}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a chosen key that would break out of its line', () => {
    expect(() => seedFiles({ ...base, authorizedKeys: ['ssh-ed25519 AAAA\nruncmd: [reboot]'] })).toThrow(
      /single lines/,
    );
  });

  it("gives a multipart only with user-data: the customer's part first, then the portal's cloud-config", () => {
    expect(seedFiles({ ...base, userData: null }).userData.startsWith('#cloud-config\n')).toBe(true);
    expect(seedFiles({ ...base, userData: '' }).userData.startsWith('#cloud-config\n')).toBe(true);

    const portalOnly = seedFiles({ ...base, authorizedKeys: CHOSEN }).userData;
    const script = '#!/bin/sh\necho hi > /root/hello\n';
    const withScript = seedFiles({ ...base, authorizedKeys: CHOSEN, userData: script }).userData;
    expect(withScript).toMatch(/^Content-Type: multipart\/mixed; boundary="/);
    expect(parts(withScript)).toEqual([
      { type: 'text/x-shellscript', text: script },
      { type: 'text/cloud-config', text: portalOnly },
    ]);

    const config = '#cloud-config\nwrite_files:\n  - path: /root/hello\n    content: hi\n';
    const withConfig = seedFiles({ ...base, userData: config }).userData;
    expect(parts(withConfig).map((p) => p.type)).toEqual(['text/cloud-config', 'text/cloud-config']);
    expect(parts(withConfig)[0]!.text).toBe(config);
  });

  it('puts the instance-id in meta-data', () => {
    expect(seedFiles({ ...base, instanceId: 'irontech-abc-1f2e' }).metaData).toBe(
      'instance-id: irontech-abc-1f2e\nlocal-hostname: web-01\n',
    );
  });
});

describe("a rebuild's instance-id", () => {
  const spec: MachineSpec = {
    key: 'vm-7',
    name: 'web-1',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 1,
    diskGb: 10,
    region: 'US East',
    username: 'root',
    publicKey: PORTAL_KEY,
    password: 'pw',
  };
  const ref = refForKey(spec.key);
  const host = {
    state: async () => 'running',
    stop: async () => undefined,
    undefine: async () => undefined,
    deleteVolumes: async () => undefined,
    lock: <T>(_r: string, fn: () => Promise<T>) => fn(),
  };

  it("differs on every rebuild and from the create's (the ref)", async () => {
    const ids: (string | undefined)[] = [];
    const create = async (s: MachineSpec) => {
      ids.push(s.instanceId);
      return { ref, publicIp: null, privateIp: null };
    };
    await rebuildMachine(host, create, ref, spec);
    await rebuildMachine(host, create, ref, spec);
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(new RegExp(`^${ref}-[0-9a-f]{8}$`));
    expect(ids[0]).not.toBe(ids[1]);
  });
});
