/**
 * The libvirt backup steps (backups.ts, decision 0022) that need no host: the push backup's XML (vda into the file, the
 * seed left out), names that could reach a path refused before any virsh call, and a restore or verify of a backup
 * without its manifest (never completed, or deleted) refused before the machine is touched.
 */
import { describe, expect, it } from 'vitest';
import { VirshError } from './virsh.ts';
import { BACKUP_NAME_RE, deleteBackup, restoreBackup, takeBackup, verifyBackup, type BackupHost } from './backups.ts';
import { backupXml, checkpointXml, volumeXml } from './xml.ts';

const REF = 'irontech-0123456789abcdef0123';

function standIn() {
  const calls: string[][] = [];
  const stops: string[] = [];
  const h: BackupHost = {
    virsh: {
      uri: 'qemu:///test',
      connectUri: async () => 'qemu:///test',
      run: async (args) => {
        calls.push(args);
        return '';
      },
      maybe: async (args) => {
        calls.push(args);
        // No volume of any backup exists on this host.
        if (args[0] === 'vol-info') return null;
        return '';
      },
    },
    virshBinary: 'virsh',
    pool: 'vms',
    diskVolume: (ref) => `${ref}.qcow2`,
    backupPool: async () => ({ name: 'vms-backups', path: '/var/lib/libvirt/vms-backups' }),
    state: async () => 'running',
    isRunning: (s) => s === 'running',
    stop: async (ref) => void stops.push(ref),
    start: async () => undefined,
    configuredDiskBytes: async () => 2 * 1024 ** 3,
    timeoutMs: 60_000,
  };
  return { h, calls, stops };
}

describe('libvirt backups', () => {
  it('backs up vda in push mode into the file and leaves the NoCloud seed out', () => {
    const xml = backupXml('/pool/portal-backup-1.qcow2');
    expect(xml).toContain("<domainbackup mode='push'>");
    expect(xml).toMatch(
      /<disk name='vda' type='file' backup='yes'>\s*<target file='\/pool\/portal-backup-1\.qcow2'\/>/,
    );
    expect(xml).toContain("<driver type='qcow2'/>");
    expect(xml).toContain("<disk name='vdb' backup='no'/>");
    expect(volumeXml("a'b", 1024, 'qcow2')).toContain('<name>a&apos;b</name>');
  });

  it('an incremental push names its checkpoint; its file is a version 3 qcow2 over the previous backup', () => {
    const xml = backupXml('/pool/portal-backup-2.qcow2', 'portal-backup-1');
    expect(xml).toContain('<incremental>portal-backup-1</incremental>');
    expect(backupXml('/pool/x.qcow2')).not.toContain('<incremental>');
    expect(checkpointXml('portal-backup-2')).toMatch(
      /<name>portal-backup-2<\/name>[\s\S]*<disk name='vda' checkpoint='bitmap'\/>\s*<disk name='vdb' checkpoint='no'\/>/,
    );
    const vol = volumeXml('portal-backup-2.qcow2', 1024, 'qcow2', {
      path: '/pool/portal-backup-1.qcow2',
      format: 'qcow2',
    });
    expect(vol).toContain('<compat>1.1</compat>');
    expect(vol).toContain(
      "<backingStore><path>/pool/portal-backup-1.qcow2</path><format type='qcow2'/></backingStore>",
    );
    expect(volumeXml('seed', 1024, 'raw')).not.toContain('compat');
  });

  it("refuses names that are not the portal's before any virsh call", async () => {
    for (const bad of ['../x', 'a/b', 'a.qcow2', '', '-x', 'a b', 'x'.repeat(101)]) {
      expect(BACKUP_NAME_RE.test(bad)).toBe(false);
      const { h, calls } = standIn();
      await expect(takeBackup(h, REF, bad)).rejects.toThrow(/not a backup name/);
      await expect(restoreBackup(h, REF, bad)).rejects.toThrow(/not a backup name/);
      await expect(deleteBackup(h, bad)).rejects.toThrow(/not a backup name/);
      await expect(verifyBackup(h, bad)).rejects.toThrow(/not a backup name/);
      expect(calls).toEqual([]);
    }
    expect(BACKUP_NAME_RE.test('portal-backup-12')).toBe(true);
  });

  it('restores only a backup whose manifest is there, before stopping the machine', async () => {
    const { h, calls, stops } = standIn();
    await expect(restoreBackup(h, REF, 'portal-backup-1')).rejects.toThrow(/not on its target/);
    expect(stops).toEqual([]);
    expect(calls.some((c) => c[0] === 'vol-delete' || c[0] === 'vol-create-from')).toBe(false);
    expect(await verifyBackup(h, 'portal-backup-1')).toMatch(/not on its target/);
  });

  it('deletes the manifest before the seal and the image, and a backup already gone is no error', async () => {
    const { h, calls } = standIn();
    h.virsh.run = async (args) => {
      calls.push(args);
      if (args[0] === 'vol-delete')
        throw new VirshError('x', 'error: Storage volume not found: no storage vol with matching name');
      return '';
    };
    await deleteBackup(h, 'portal-backup-1');
    expect(calls.filter((c) => c[0] === 'vol-delete').map((c) => c[3])).toEqual([
      'portal-backup-1.manifest.json',
      'portal-backup-1.seal.json',
      'portal-backup-1.qcow2',
    ]);
  });
});
