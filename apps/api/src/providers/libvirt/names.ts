/** Names the driver derives from a machine's idempotency key, so a retried create finds what it made. */
import { createHash } from 'node:crypto';

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

export const REF_RE = /^irontech-[0-9a-f]{20}$/;

/** The domain name and the machine's ref. */
export const refForKey = (key: string) => `irontech-${digest(key).slice(0, 20)}`;

/** A MAC in QEMU's locally administered range (52:54:00), stable for what it is derived from. */
function qemuMac(seed: string): string {
  const h = digest(seed);
  return `52:54:00:${h.slice(0, 2)}:${h.slice(2, 4)}:${h.slice(4, 6)}`;
}

/** The MAC of the machine's NIC on its private network. */
export const macForKey = (key: string) => qemuMac(`mac:${key}`);

/** The MAC of the machine's NIC on the public network. */
export const publicMacForKey = (key: string) => qemuMac(`public-mac:${key}`);

export function uuidForKey(key: string): string {
  const h = digest(`uuid:${key}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export const volumes = (ref: string) => ({ disk: `${ref}.qcow2`, seed: `${ref}-seed.iso`, log: `${ref}-serial.log` });

/** The guest's hostname: the machine name reduced to what a hostname may hold. */
export function guestHostname(name: string): string {
  const h = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return h || 'vm';
}
