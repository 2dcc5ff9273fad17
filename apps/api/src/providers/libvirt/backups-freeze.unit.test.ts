/**
 * The guest's freeze around a running take's `backup-begin` (backups.ts takeBackup, decision 0028), on a stand-in
 * host that answers as libvirt does: frozen right before `backup-begin` and thawed right after it, also when it fails;
 * application-consistent only when the take's own thaw found the file systems still frozen (a watchdog's or anyone's
 * earlier thaw makes it crash-consistent); a guest without a connected agent is never asked; a refused freeze is
 * thawed at once and the take goes on crash-consistent.
 */
import { describe, expect, it } from 'vitest';
import { VirshError } from './virsh.ts';
import { takeBackup, type BackupHost } from './backups.ts';

const REF = 'irontech-0123456789abcdef0123';
const AGENT = (state: 'connected' | 'disconnected') =>
  `<domain><devices><channel type='unix'><source mode='bind' path='/run/x.agent'/><target type='virtio' name='org.qemu.guest_agent.0' state='${state}'/></channel></devices></domain>`;

function host(answers: {
  agent?: 'connected' | 'disconnected';
  freeze?: string | Error;
  thaw?: string;
  begin?: Error;
}) {
  const calls: string[] = [];
  const run = async (args: string[]): Promise<string> => {
    calls.push(args[0]!);
    switch (args[0]) {
      case 'vol-info':
        return 'Capacity: 2147483648\nAllocation: 1048576\n';
      case 'dumpxml':
        return AGENT(answers.agent ?? 'connected');
      case 'domfsfreeze':
        if (answers.freeze instanceof Error) throw answers.freeze;
        return answers.freeze ?? 'Froze 2 filesystem(s)\n';
      case 'domfsthaw':
        return answers.thaw ?? 'Thawed 2 filesystem(s)\n';
      case 'backup-begin':
        if (answers.begin) throw answers.begin;
        return 'Backup started\n';
      case 'domjobinfo':
        return args.includes('--completed') ? 'Job type:         Completed\n' : 'Job type:         None\n';
      default:
        return '';
    }
  };
  const h: BackupHost = {
    virsh: { uri: 'qemu:///test', connectUri: async () => 'qemu:///test', run, maybe: run },
    // The watchdog's virsh: a no-op should it ever fire.
    virshBinary: '/bin/true',
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
  const around = () => calls.filter((c) => ['domfsfreeze', 'backup-begin', 'domfsthaw'].includes(c));
  return { h, calls, around };
}

describe('the freeze around a running take', () => {
  it('freezes right before backup-begin and thaws right after: application-consistent', async () => {
    const { h, around } = host({});
    const info = await takeBackup(h, REF, 'portal-backup-1');
    expect(around()).toEqual(['domfsfreeze', 'backup-begin', 'domfsthaw']);
    expect(info.consistency).toBe('application-consistent');
    expect(info.frozenMs).toBeGreaterThanOrEqual(0);
  });

  it('thaws when backup-begin fails, and each fallback attempt freezes on its own', async () => {
    const { h, around } = host({ begin: new VirshError('x', 'error: operation failed: something refused') });
    await expect(takeBackup(h, REF, 'portal-backup-1')).rejects.toThrow();
    // Full with a checkpoint, then full without: frozen and thawed around each.
    expect(around()).toEqual(['domfsfreeze', 'backup-begin', 'domfsthaw', 'domfsfreeze', 'backup-begin', 'domfsthaw']);
  });

  it('is crash-consistent when the file systems were thawed before its own thaw (Thawed 0: the watchdog, someone)', async () => {
    const { h } = host({ thaw: 'Thawed 0 filesystem(s)\n' });
    const info = await takeBackup(h, REF, 'portal-backup-1');
    expect(info.consistency).toBe('crash-consistent');
    expect(info.frozenMs).toBeUndefined();
  });

  it("counts on the commands' success when virsh -q prints no counts (the thaw came before the watchdog could)", async () => {
    const { h } = host({ freeze: '', thaw: '' });
    expect((await takeBackup(h, REF, 'portal-backup-1')).consistency).toBe('application-consistent');
  });

  it('asks nothing of a guest whose agent is not connected', async () => {
    const { h, around } = host({ agent: 'disconnected' });
    const info = await takeBackup(h, REF, 'portal-backup-1');
    expect(around()).toEqual(['backup-begin']);
    expect(info.consistency).toBe('crash-consistent');
  });

  it('a refused freeze (an agent left frozen, one not answering) is thawed at once; the take goes on unfrozen', async () => {
    const { h, around } = host({
      freeze: new VirshError(
        'x',
        'error: internal error: unable to execute QEMU agent command: the agent is in frozen state',
      ),
    });
    const info = await takeBackup(h, REF, 'portal-backup-1');
    expect(around()).toEqual(['domfsfreeze', 'domfsthaw', 'backup-begin']);
    expect(info.consistency).toBe('crash-consistent');
  });
});
