/**
 * The libvirt snapshot steps (snapshots.ts, decision 0019) against a recording stand-in of virsh: the take's
 * arguments (vda internal, the seed left out, atomic) and its size from the disk's allocation; a retried take answers
 * the snapshot made; a revert of a snapshot gone from the host fails before any revert; a delete of one gone does
 * nothing; the definitions a move redefines come parents first with the current one marked.
 */
import { describe, expect, it } from 'vitest';
import { VirshError } from './virsh.ts';
import { deleteSnapshot, revertSnapshot, snapshotDefinitions, takeSnapshot } from './snapshots.ts';

const REF = 'irontech-0123456789abcdef0123';

/** A host with these snapshots (name -> state word) whose disk grows by `grows` bytes on a take. */
function standIn(snapshots: Record<string, string>, grows = 1000) {
  const calls: string[][] = [];
  let allocation = 5000;
  const run = async (args: string[]): Promise<string> => {
    calls.push(args);
    const [cmd, , name] = args;
    if (cmd === 'snapshot-info') {
      const state = snapshots[name!];
      if (!state)
        throw new VirshError('no', `error: Domain snapshot not found: no domain snapshot with matching name '${name}'`);
      return `Name: ${name}\nDomain: ${REF}\nState:          ${state}\n`;
    }
    if (cmd === 'snapshot-create-as') {
      snapshots[args[3]!] = 'running';
      allocation += grows;
      return '';
    }
    if (cmd === 'vol-info') return `Name: ${REF}.qcow2\nCapacity:       2147483648\nAllocation:     ${allocation}\n`;
    if (cmd === 'snapshot-list') return `${Object.keys(snapshots).join('\n')}\n`;
    if (cmd === 'snapshot-current') return 'b\n';
    if (cmd === 'snapshot-dumpxml') return `<domainsnapshot><name>${name}</name></domainsnapshot>`;
    return '';
  };
  const virsh = { run, maybe: (args: string[]) => run(args).catch(() => null) };
  return { calls, host: { virsh, pool: 'p', diskVolume: (ref: string) => `${ref}.qcow2` } };
}

describe('libvirt snapshots', () => {
  it('takes an internal snapshot of the disk only, atomically, and measures what it added', async () => {
    const { calls, host } = standIn({}, 134_000_000);
    expect(await takeSnapshot(host, REF, 'portal-snap-1')).toEqual({ sizeBytes: 134_000_000, includesMemory: true });
    expect(calls.find((c) => c[0] === 'snapshot-create-as')).toEqual([
      'snapshot-create-as',
      REF,
      '--name',
      'portal-snap-1',
      '--description',
      'Taken by the portal',
      '--diskspec',
      'vda,snapshot=internal',
      '--diskspec',
      'vdb,snapshot=no',
      '--atomic',
    ]);
  });

  it('a retried take answers the snapshot an earlier attempt made, without taking another', async () => {
    const { calls, host } = standIn({ 'portal-snap-2': 'shutoff' });
    expect(await takeSnapshot(host, REF, 'portal-snap-2')).toEqual({ sizeBytes: null, includesMemory: false });
    expect(calls.map((c) => c[0])).toEqual(['snapshot-info']);
  });

  it('reverts a snapshot the host has, and refuses one it lost before trying', async () => {
    const { calls, host } = standIn({ 'portal-snap-3': 'running' });
    await revertSnapshot(host, REF, 'portal-snap-3');
    expect(calls.at(-1)).toEqual(['snapshot-revert', REF, 'portal-snap-3']);
    await expect(revertSnapshot(host, REF, 'portal-snap-9')).rejects.toThrow(/not on its host/);
    expect(calls.filter((c) => c[0] === 'snapshot-revert')).toHaveLength(1);
  });

  it('deletes a snapshot; one already gone is no error and no call', async () => {
    const { calls, host } = standIn({ 'portal-snap-4': 'running' });
    await deleteSnapshot(host, REF, 'portal-snap-4');
    await deleteSnapshot(host, REF, 'portal-snap-5');
    expect(calls.filter((c) => c[0] === 'snapshot-delete')).toEqual([['snapshot-delete', REF, 'portal-snap-4']]);
  });

  it('lists the definitions a move redefines, in libvirt’s topological order, the current one marked', async () => {
    const { calls, host } = standIn({ a: 'running', b: 'shutoff' });
    expect(await snapshotDefinitions(host.virsh, REF)).toEqual([
      { xml: '<domainsnapshot><name>a</name></domainsnapshot>', current: false },
      { xml: '<domainsnapshot><name>b</name></domainsnapshot>', current: true },
    ]);
    expect(calls[0]).toEqual(['snapshot-list', REF, '--name', '--topological']);
  });
});
