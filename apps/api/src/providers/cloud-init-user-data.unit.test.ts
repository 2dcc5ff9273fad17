/**
 * combineUserData: the portal's cloud-config alone without customer user-data; with it, a multipart whose parts
 * decode to exactly the two texts, the customer's first (cloud-config or shell script by its first line), the
 * portal's second carrying the merge rule. (cloud-init 22.4's own handlers merged such a message as intended:
 * users, keys, runcmd and write_files of both, the customer's single values winning; docs/virtual-machines.md.)
 */
import { describe, expect, it } from 'vitest';
import { combineUserData, PORTAL_PART_MERGE } from './cloud-init-user-data.ts';

const PORTAL = "#cloud-config\nusers:\n  - name: 'root'\n    ssh_authorized_keys:\n      - 'ssh-ed25519 AAAA x'\n";

/** The parts of a multipart/mixed message: headers and the base64-decoded body. */
function parts(message: string) {
  const boundary = /^Content-Type: multipart\/mixed; boundary="([^"]+)"\nMIME-Version: 1.0\n\n/.exec(message)?.[1];
  if (!boundary) throw new Error('not a multipart message');
  expect(message.endsWith(`\n--${boundary}--\n`)).toBe(true);
  return message
    .split(`--${boundary}`)
    .slice(1, -1)
    .map((raw) => {
      const [head = '', body = ''] = raw.replace(/^\n/, '').split('\n\n');
      const headers = Object.fromEntries(
        head.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
      );
      expect(headers['Content-Transfer-Encoding']).toBe('base64');
      return { headers, body: Buffer.from(body.replace(/\n/g, ''), 'base64').toString('utf8') };
    });
}

describe('combineUserData', () => {
  it("is the portal's cloud-config as it is without customer user-data", () => {
    expect(combineUserData(PORTAL, null)).toBe(PORTAL);
    expect(combineUserData(PORTAL, '')).toBe(PORTAL);
  });

  it("puts a customer's cloud-config first and the portal's, with its merge rule, second", () => {
    const customer = "#cloud-config\nusers: [default]\nwrite_files:\n  - path: /etc/motd\n    content: 'héllo --x'\n";
    const [first, second, ...rest] = parts(combineUserData(PORTAL, customer));
    expect(rest).toEqual([]);
    expect(first).toEqual({
      headers: expect.objectContaining({ 'Content-Type': 'text/cloud-config; charset="utf-8"' }),
      body: customer,
    });
    expect(first!.headers['Merge-Type']).toBeUndefined();
    expect(second).toEqual({
      headers: expect.objectContaining({
        'Content-Type': 'text/cloud-config; charset="utf-8"',
        'Merge-Type': PORTAL_PART_MERGE,
      }),
      body: PORTAL,
    });
  });

  it('sends a #! script as a shell script part', () => {
    const [first, second] = parts(combineUserData(PORTAL, '#!/bin/sh\necho hi > /root/hi\n'));
    expect(first!.headers['Content-Type']).toBe('text/x-shellscript; charset="utf-8"');
    expect(first!.body).toBe('#!/bin/sh\necho hi > /root/hi\n');
    expect(second!.body).toBe(PORTAL);
  });
});
