/**
 * Proving a libvirt backup restorable (issue 24 item 3; docs/decisions/0024-backup-verification.md), on top of the
 * stored copy's own checks (backups.ts verifyBackup: manifest, length, SHA-256 read back through libvirt, qcow2 check):
 *
 * - **The marker.** Before a take of a running machine whose guest has an agent, the driver writes the backup's name
 *   into the guest's `/var/lib/irontech-backup-marker` through the agent (guest-file-open/write/close; no process in
 *   the guest) and has the guest write it to its disk (guest-exec `sync`; an agent that refuses exec: a
 *   filesystem freeze and thaw, which flushes too). What it wrote is recorded beside the backup, in the backup pool's
 *   small volume `<name>.marker` (written after the take; none when no marker could be written).
 * - **The boot.** A throwaway machine from the copy: a qcow2 overlay in the machines' pool backed by the backup's
 *   volume (no copy of it; the backup is only read), a transient domain `irontech-verify-<hash>` (never a machine's
 *   ref: the reconciler and the host's counts do not see it) with little memory, one vCPU, no seed, no console, and
 *   one NIC on an isolated libvirt network (no <forward>: nothing leaves the host; made on first use). Whatever
 *   happens, the domain is destroyed and the overlay deleted (and a leftover of an earlier run first).
 * - **Came up.** With an agent (`readyWhen: agent`): guest-ping answers within the boot timeout, then the marker is
 *   read back and compared with the recorded one. Without (`lease`, the busybox test fixture): a DHCP lease on the
 *   isolated network; no marker can be read, and the answer says so (`note`).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BackupProof } from '../provider.ts';
import { BACKUP_NAME_RE, backupVolumes, verifyBackup, type BackupHost } from './backups.ts';
import { defineIdempotent } from './host-objects.ts';
import { macForKey } from './names.ts';
import { isNotFound, VirshError, type Virsh } from './virsh.ts';
import { domifaddrIps, natNetworkXml, xmlEscape } from './xml.ts';

/** Where the marker lives in the guest (a file directly in /var/lib: no directory to make first). */
export const MARKER_PATH = '/var/lib/irontech-backup-marker';
/** The throwaway machines' names: portal-owned, never a machine's ref (REF_RE), matched by the tests' cleanup. */
export const VERIFY_DOMAIN_RE = /^irontech-verify-[0-9a-f]{16}$/;

export type AgentResult = { ok: true; value: unknown } | { ok: false; error: string };

export interface VerifyHost {
  virsh: Pick<Virsh, 'run' | 'maybe'>;
  /** The backups' side (verifyBackup, the backup pool). */
  backup: BackupHost;
  /** The machines' pool: the overlay lives there. */
  pool: string;
  domainType: 'qemu' | 'kvm';
  machine: string;
  /** The isolated network the throwaway machine gets (made when missing). */
  network: { name: string; bridge: string; cidr: string };
  ramMib: number;
  /** How long the throwaway machine has to show it came up. */
  bootTimeoutMs: number;
  /** How a machine of this host shows it came up (the driver's readyWhen). */
  readyWhen: 'agent' | 'lease';
  /** One guest agent command on a domain (the driver's agentCommand). */
  agent(domain: string, command: Record<string, unknown>): Promise<AgentResult>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const digest = (s: string) => createHash('sha256').update(s).digest('hex');

export const verifyDomainName = (backup: string) => `irontech-verify-${digest(`verify:${backup}`).slice(0, 16)}`;
export const markerVolume = (backup: string) => `${backup}.marker`;

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-verify-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function checkName(name: string) {
  if (!BACKUP_NAME_RE.test(name)) throw new Error(`"${name}" is not a backup name`);
}

// ---- the marker at the take ------------------------------------------------------------------------------------

/** Runs `/bin/sync` in the guest through the agent and waits for it; false when the agent refuses or it fails. */
async function guestSync(h: VerifyHost, ref: string): Promise<boolean> {
  const exec = await h.agent(ref, { execute: 'guest-exec', arguments: { path: '/bin/sync', 'capture-output': false } });
  const pid = exec.ok ? (exec.value as { pid?: unknown } | null)?.pid : undefined;
  if (typeof pid !== 'number') return false;
  for (let i = 0; i < 60; i++) {
    const status = await h.agent(ref, { execute: 'guest-exec-status', arguments: { pid } });
    if (!status.ok) return false;
    const v = status.value as { exited?: boolean; exitcode?: number };
    if (v.exited) return v.exitcode === 0;
    await sleep(500);
  }
  return false;
}

/** A freeze flushes every mounted file system to the disk; thawed at once (whatever the freeze answered). */
async function freezeThaw(h: VerifyHost, ref: string): Promise<boolean> {
  try {
    await h.virsh.run(['domfsfreeze', ref], { timeoutMs: 60_000 });
    return true;
  } catch {
    return false;
  } finally {
    await h.virsh.run(['domfsthaw', ref], { timeoutMs: 60_000 }).catch(() => undefined);
  }
}

/**
 * Writes `marker` into the guest's MARKER_PATH and onto its disk; answers whether it is there (false: no agent
 * answered, file access or every way to flush refused: the take goes on without a marker).
 */
export async function writeMarker(h: VerifyHost, ref: string, marker: string): Promise<boolean> {
  const open = await h.agent(ref, { execute: 'guest-file-open', arguments: { path: MARKER_PATH, mode: 'w' } });
  if (!open.ok || typeof open.value !== 'number') return false;
  const handle = open.value;
  const wrote = await h.agent(ref, {
    execute: 'guest-file-write',
    arguments: { handle, 'buf-b64': Buffer.from(`${marker}\n`).toString('base64') },
  });
  const flushed = wrote.ok && (await h.agent(ref, { execute: 'guest-file-flush', arguments: { handle } })).ok;
  const closed = (await h.agent(ref, { execute: 'guest-file-close', arguments: { handle } })).ok;
  if (!wrote.ok || !flushed || !closed) return false;
  return (await guestSync(h, ref)) || (await freezeThaw(h, ref));
}

async function backupPoolName(h: VerifyHost) {
  return (await h.backup.backupPool()).name;
}

/** Records the marker a backup's take wrote (null: none; an earlier take's record of that name is removed). */
export async function recordMarker(h: VerifyHost, name: string, marker: string | null): Promise<void> {
  checkName(name);
  const pool = await backupPoolName(h);
  const vol = markerVolume(name);
  await deleteMarker(h, name);
  if (marker === null) return;
  const data = Buffer.from(marker);
  await h.virsh.run(['vol-create-as', '--pool', pool, vol, `${data.length}B`, '--format', 'raw'], { short: true });
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'marker');
    await writeFile(file, data, { mode: 0o600 });
    await h.virsh.run(['vol-upload', '--pool', pool, vol, file], { short: true });
  });
}

/** The marker recorded for a backup, or null when its take wrote none. */
export async function recordedMarker(h: VerifyHost, name: string): Promise<string | null> {
  const pool = await backupPoolName(h);
  const vol = markerVolume(name);
  if ((await h.virsh.maybe(['vol-info', '--pool', pool, vol])) === null) return null;
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'marker');
    await h.virsh.run(['vol-download', '--pool', pool, vol, file]);
    return (await readFile(file, 'utf8')).trim() || null;
  });
}

export async function deleteMarker(h: VerifyHost, name: string): Promise<void> {
  const pool = await backupPoolName(h);
  // Through the host's session (a take ends with it: a process would cost it 16-80 ms; decision 0022 "Measured").
  await h.virsh.run(['vol-delete', '--pool', pool, markerVolume(name)], { short: true }).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
}

// ---- the throwaway machine ---------------------------------------------------------------------------------------

/** The isolated network: the NAT network's definition without its <forward> (guests reach only each other). */
export function isolatedNetworkXml(name: string, bridge: string, cidr: string): string {
  const xml = natNetworkXml(name, bridge, cidr).replace("  <forward mode='nat'/>\n", '');
  if (xml.includes('<forward')) throw new Error('the isolated network must have no forward');
  return xml;
}

async function ensureNetwork(h: VerifyHost) {
  const { name, bridge, cidr } = h.network;
  const info = await h.virsh.maybe(['net-info', name]);
  if (info === null)
    await defineIdempotent(() =>
      withTempDir(async (dir) => {
        const file = path.join(dir, 'net.xml');
        await writeFile(file, isolatedNetworkXml(name, bridge, cidr), { mode: 0o600 });
        await h.virsh.run(['net-define', file]);
      }),
    );
  if (!/^Active:\s+yes/m.test(info ?? ''))
    await h.virsh.run(['net-start', name]).catch((e: unknown) => {
      if (!(e instanceof VirshError && /already active/i.test(e.stderr))) throw e;
    });
}

export function throwawayXml(p: {
  name: string;
  domainType: 'qemu' | 'kvm';
  machine: string;
  ramMib: number;
  diskPath: string;
  network: string;
  mac: string;
}): string {
  return `<domain type='${p.domainType}'>
  <name>${p.name}</name>
  <title>Backup verification (throwaway)</title>
  <memory unit='MiB'>${p.ramMib}</memory>
  <vcpu placement='static'>1</vcpu>
  <os>
    <type arch='x86_64' machine='${xmlEscape(p.machine)}'>hvm</type>
    <boot dev='hd'/>
  </os>
  <features><acpi/><apic/></features>
  ${p.domainType === 'kvm' ? "<cpu mode='host-passthrough'/>" : ''}
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2'/>
      <source file='${xmlEscape(p.diskPath)}'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <interface type='network'>
      <source network='${xmlEscape(p.network)}'/>
      <mac address='${p.mac}'/>
      <model type='virtio'/>
    </interface>
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
  </devices>
</domain>
`;
}

async function removeThrowaway(h: VerifyHost, domain: string, overlay: string) {
  await h.virsh.run(['destroy', domain]).catch(() => undefined);
  // A leftover defined (not transient) by hand or by another version: undefined too.
  await h.virsh.run(['undefine', domain]).catch(() => undefined);
  await h.virsh.run(['pool-refresh', h.pool]).catch(() => undefined);
  await h.virsh.run(['vol-delete', '--pool', h.pool, overlay]).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
}

/** Reads the marker file in the throwaway guest: its text, null when there is none, 'refused' when access is. */
async function readGuestMarker(h: VerifyHost, domain: string): Promise<string | null | 'refused'> {
  const open = await h.agent(domain, { execute: 'guest-file-open', arguments: { path: MARKER_PATH, mode: 'r' } });
  if (!open.ok) return /No such file or directory/i.test(open.error) ? null : 'refused';
  const handle = open.value;
  try {
    const read = await h.agent(domain, { execute: 'guest-file-read', arguments: { handle, count: 4096 } });
    if (!read.ok) return 'refused';
    const b64 = (read.value as { 'buf-b64'?: string } | null)?.['buf-b64'] ?? '';
    return Buffer.from(b64, 'base64').toString('utf8').trim();
  } finally {
    await h.agent(domain, { execute: 'guest-file-close', arguments: { handle } });
  }
}

const seconds = (ms: number) => Math.round(ms / 1000);

/**
 * Boots the copy and looks for a sign of life (and the marker); answers the proof. The domain and overlay are gone
 * when it returns or throws.
 */
async function bootCheck(h: VerifyHost, name: string, expected: string | null): Promise<BackupProof> {
  const domain = verifyDomainName(name);
  const overlay = `${domain}.qcow2`;
  const mac = macForKey(`verify:${name}`);
  await removeThrowaway(h, domain, overlay);
  await ensureNetwork(h);
  const bp = await backupPoolName(h);
  const data = backupVolumes(name).data;
  const backingPath = (await h.virsh.run(['vol-path', '--pool', bp, data])).trim();
  const capacity = Number(
    /^Capacity:\s+(\d+)/m.exec(await h.virsh.run(['vol-info', '--bytes', '--pool', bp, data]))?.[1] ?? Number.NaN,
  );
  if (!Number.isFinite(capacity)) throw new Error(`could not read the size of ${data}`);
  try {
    await h.virsh.run([
      'vol-create-as',
      '--pool',
      h.pool,
      overlay,
      `${capacity}B`,
      '--format',
      'qcow2',
      '--backing-vol',
      backingPath,
      '--backing-vol-format',
      'qcow2',
    ]);
    const diskPath = (await h.virsh.run(['vol-path', '--pool', h.pool, overlay])).trim();
    const xml = throwawayXml({
      name: domain,
      domainType: h.domainType,
      machine: h.machine,
      ramMib: h.ramMib,
      diskPath,
      network: h.network.name,
      mac,
    });
    await withTempDir(async (dir) => {
      const file = path.join(dir, 'domain.xml');
      await writeFile(file, xml, { mode: 0o600 });
      // Transient: nothing of it is left defined once destroyed.
      await h.virsh.run(['create', file]);
    });
    const until = Date.now() + h.bootTimeoutMs;
    for (;;) {
      await sleep(2000);
      if (h.readyWhen === 'agent') {
        if ((await h.agent(domain, { execute: 'guest-ping' })).ok) break;
      } else {
        const leases = await h.virsh.run(['net-dhcp-leases', h.network.name, '--mac', mac]);
        if (domifaddrIps(leases, mac).length > 0) break;
      }
      const state = (await h.virsh.maybe(['domstate', domain]))?.trim() ?? null;
      if (state !== 'running')
        return { error: `The copy did not boot: its machine stopped (${state ?? 'gone'}) while starting`, note: null };
      if (Date.now() >= until)
        return {
          error:
            h.readyWhen === 'agent'
              ? `The copy did not boot: its guest agent did not answer within ${seconds(h.bootTimeoutMs)} s`
              : `The copy did not boot: it took no network address within ${seconds(h.bootTimeoutMs)} s`,
          note: null,
        };
    }
    if (h.readyWhen === 'lease')
      return {
        error: null,
        note: 'The copy booted (it took a network address on an isolated network); its guest has no agent, so no marker was read',
      };
    const found = await readGuestMarker(h, domain);
    if (found === 'refused')
      return {
        error: null,
        note: "The copy booted (its guest agent answered); the agent refuses file access, so the take's marker was not read",
      };
    if (expected === null)
      return {
        error: null,
        note: 'The copy booted (its guest agent answered); no marker was written at the take (the VM was powered off, or its agent did not answer), so its contents were not compared',
      };
    if (found !== expected)
      return {
        error: `The copy booted, but its marker reads ${found === null ? 'nothing' : `“${found}”`} instead of “${expected}”: it is not the disk as it was at the take`,
        note: null,
      };
    return { error: null, note: null };
  } finally {
    await removeThrowaway(h, domain, overlay).catch(() => undefined);
  }
}

/** The stored copy's checks (backups.ts), then the throwaway boot; null error: proven. */
export async function proveBackup(h: VerifyHost, name: string): Promise<BackupProof> {
  checkName(name);
  const stored = await verifyBackup(h.backup, name);
  if (stored) return { error: stored, note: null };
  return bootCheck(h, name, await recordedMarker(h, name));
}
