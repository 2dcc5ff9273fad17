/**
 * Backup verification's steps that need no host (backup-verify.ts, decision 0024): the isolated network (no forward),
 * the throwaway machine's definition (its overlay, the agent's channel, little memory, a name that is never a
 * machine's ref), the marker written through the agent and flushed to the guest's disk (sync, else freeze and thaw,
 * thawed whatever happens), and a backup without its manifest refused before any machine is made.
 */
import { describe, expect, it } from 'vitest';
import { REF_RE } from './names.ts';
import type { BackupHost } from './backups.ts';
import {
  isolatedNetworkXml,
  MARKER_PATH,
  proveBackup,
  throwawayXml,
  VERIFY_DOMAIN_RE,
  verifyDomainName,
  writeMarker,
  type AgentResult,
  type VerifyHost,
} from './backup-verify.ts';

const REF = 'irontech-0123456789abcdef0123';

function standIn(agent: (cmd: Record<string, unknown>) => AgentResult) {
  const calls: string[][] = [];
  const agentCalls: Record<string, unknown>[] = [];
  const virsh = {
    uri: 'qemu:///test',
    connectUri: async () => 'qemu:///test',
    run: async (args: string[]) => {
      calls.push(args);
      return '';
    },
    maybe: async (args: string[]) => {
      calls.push(args);
      // No volume of any backup exists on this host.
      if (args[0] === 'vol-info') return null;
      return '';
    },
  };
  const backup: BackupHost = {
    virsh,
    virshBinary: 'virsh',
    pool: 'vms',
    diskVolume: (ref) => `${ref}.qcow2`,
    backupPool: async () => ({ name: 'vms-backups', path: '/var/lib/libvirt/vms-backups' }),
    state: async () => 'running',
    isRunning: (s) => s === 'running',
    stop: async () => undefined,
    start: async () => undefined,
    configuredDiskBytes: async () => 2 * 1024 ** 3,
    timeoutMs: 60_000,
  };
  const h: VerifyHost = {
    virsh,
    backup,
    pool: 'vms',
    domainType: 'qemu',
    machine: 'q35',
    network: { name: 'vms-verify', bridge: 'vms0v', cidr: '10.231.255.0/24' },
    ramMib: 512,
    bootTimeoutMs: 60_000,
    readyWhen: 'agent',
    agent: async (_domain, command) => {
      agentCalls.push(command);
      return agent(command);
    },
  };
  return { h, calls, agentCalls };
}

describe('backup verification (libvirt)', () => {
  it('puts the throwaway machine on an isolated network: DHCP, no forward', () => {
    const xml = isolatedNetworkXml('vms-verify', 'vms0v', '10.231.255.0/24');
    expect(xml).not.toContain('<forward');
    expect(xml).toContain("<bridge name='vms0v'");
    expect(xml).toContain("<range start='10.231.255.2' end='10.231.255.254'/>");
  });

  it('defines a small machine over the overlay with the agent channel, named never as a machine', () => {
    const name = verifyDomainName('portal-backup-7');
    expect(name).toMatch(VERIFY_DOMAIN_RE);
    expect(REF_RE.test(name)).toBe(false);
    expect(verifyDomainName('portal-backup-7')).toBe(name);
    expect(verifyDomainName('portal-backup-8')).not.toBe(name);
    const xml = throwawayXml({
      name,
      domainType: 'qemu',
      machine: 'q35',
      ramMib: 384,
      diskPath: '/pool/overlay.qcow2',
      network: 'vms-verify',
      mac: '52:54:00:aa:bb:cc',
    });
    expect(xml).toContain("<memory unit='MiB'>384</memory>");
    expect(xml).toContain("<source file='/pool/overlay.qcow2'/>");
    expect(xml).toContain("<source network='vms-verify'/>");
    expect(xml).toContain("name='org.qemu.guest_agent.0'");
    // Nothing reaches it from outside: no VNC, no seed.
    expect(xml).not.toContain('<graphics');
    expect(xml.match(/<disk /g)).toHaveLength(1);
  });

  it('writes the marker through the agent and has the guest flush it (sync)', async () => {
    const { h, calls, agentCalls } = standIn((c) => {
      if (c.execute === 'guest-file-open') return { ok: true, value: 5 };
      if (c.execute === 'guest-exec') return { ok: true, value: { pid: 42 } };
      if (c.execute === 'guest-exec-status') return { ok: true, value: { exited: true, exitcode: 0 } };
      return { ok: true, value: {} };
    });
    expect(await writeMarker(h, REF, 'portal-backup-3')).toBe(true);
    expect(agentCalls[0]).toEqual({ execute: 'guest-file-open', arguments: { path: MARKER_PATH, mode: 'w' } });
    const write = agentCalls.find((c) => c.execute === 'guest-file-write') as { arguments: { 'buf-b64': string } };
    expect(Buffer.from(write.arguments['buf-b64'], 'base64').toString()).toBe('portal-backup-3\n');
    expect(agentCalls.map((c) => c.execute)).toEqual([
      'guest-file-open',
      'guest-file-write',
      'guest-file-flush',
      'guest-file-close',
      'guest-exec',
      'guest-exec-status',
    ]);
    expect(calls).toEqual([]);
  });

  it('an agent that refuses exec: the guest is frozen (which flushes) and thawed, even when the freeze fails', async () => {
    const { h, calls } = standIn((c) =>
      c.execute === 'guest-exec'
        ? { ok: false, error: 'Command guest-exec has been disabled' }
        : { ok: true, value: c.execute === 'guest-file-open' ? 5 : {} },
    );
    expect(await writeMarker(h, REF, 'portal-backup-3')).toBe(true);
    expect(calls.map((c) => c[0])).toEqual(['domfsfreeze', 'domfsthaw']);

    h.virsh.run = async (args: string[]) => {
      calls.push(args);
      if (args[0] === 'domfsfreeze') throw new Error('freeze refused');
      return '';
    };
    calls.length = 0;
    expect(await writeMarker(h, REF, 'portal-backup-3')).toBe(false);
    expect(calls.map((c) => c[0])).toEqual(['domfsfreeze', 'domfsthaw']);
  });

  it('no agent answering: no marker, and the take goes on', async () => {
    const { h, agentCalls } = standIn(() => ({ ok: false, error: 'Guest agent is not responding' }));
    expect(await writeMarker(h, REF, 'portal-backup-3')).toBe(false);
    expect(agentCalls).toHaveLength(1);
  });

  it('a backup without its manifest fails verification before any machine is made', async () => {
    const { h, calls } = standIn(() => ({ ok: true, value: {} }));
    const proof = await proveBackup(h, 'portal-backup-9');
    expect(proof.error).toMatch(/not on its target/);
    expect(calls.some((c) => c[0] === 'create' || c[0] === 'vol-create-as')).toBe(false);
    await expect(proveBackup(h, '../etc')).rejects.toThrow(/not a backup name/);
  });
});
