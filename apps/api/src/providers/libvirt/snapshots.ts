/**
 * Snapshots of a libvirt machine (issue 24 item 1; docs/decisions/0019-snapshots.md): libvirt's internal snapshots,
 * kept inside the machine's qcow2 disk (libvirt 9.0 / QEMU 7.2 cannot revert external ones).
 *
 * - Take: `snapshot-create-as` with the disk (vda) internal and the read-only NoCloud seed (vdb, raw) left out. A
 *   running machine's snapshot holds its memory and device state too (QEMU's savevm: the vCPUs are paused while it
 *   is written), so it is consistent without a guest-agent freeze: reverting resumes the machine at that instant,
 *   caches and all. A powered-off machine's holds its disk (qemu-img, nothing is writing). `--atomic`: a failure
 *   leaves nothing half made. Idempotent by name: a retry after a crash finds the snapshot and answers it.
 * - Size: what the take added to the disk file (its allocation before and after: the memory state and the tables;
 *   the disk's own clusters are shared with the live disk until it overwrites them). Null when libvirt cannot say.
 * - Revert: `snapshot-revert`; libvirt brings the machine back in the snapshot's state, running (memory restored)
 *   or shut off, with the definition it had then. libvirt 9.0 never loads a snapshot into the running QEMU: it stops
 *   the process and starts a new one that loads it (`-loadvm`), and its stop waits until the old QEMU has been reaped
 *   (by PID 1 on a host). That restart, not QEMU's loadvm, is a running revert's cost (decision 0019, "Measured").
 *   The looks around it (snapshot-info, checkpoint-list) go through the host's virsh session.
 * - Delete: `snapshot-delete`; one already gone is no error.
 * The machine's delete and rebuild undefine it with `--snapshots-metadata` and delete the qcow2 (its snapshots with
 * it); a cold move copies the qcow2 whole, so the snapshots travel, and redefines their metadata on the target
 * (move.ts).
 */
import { dropCheckpoints } from './backups.ts';
import { isNotFound, VirshError, type Virsh } from './virsh.ts';

export interface SnapshotHost {
  virsh: Pick<Virsh, 'run' | 'maybe'>;
  pool: string;
  /** The machine's disk volume in the pool. */
  diskVolume(ref: string): string;
}

/** The longest a take or revert may run (a large running guest's memory is written into the disk). */
const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

const NO_SNAPSHOT_RE = /Domain snapshot not found|no domain snapshot with matching name/i;

async function allocation(h: SnapshotHost, ref: string): Promise<number | null> {
  await h.virsh.maybe(['pool-refresh', h.pool]);
  const out = await h.virsh.maybe(['vol-info', '--bytes', '--pool', h.pool, h.diskVolume(ref)]);
  const m = out && /^Allocation:\s+(\d+)/m.exec(out);
  return m ? Number(m[1]) : null;
}

/** The snapshot's state word as libvirt stores it (`running`, `shutoff`, …), or null when there is no such snapshot. */
async function snapshotState(h: SnapshotHost, ref: string, name: string): Promise<string | null> {
  try {
    const out = await h.virsh.run(['snapshot-info', ref, name]);
    return /^State:\s+(.+)$/m.exec(out)?.[1]?.trim() ?? 'unknown';
  } catch (e) {
    if (e instanceof VirshError && (NO_SNAPSHOT_RE.test(e.stderr) || isNotFound(e))) return null;
    throw e;
  }
}

const withMemory = (state: string) => state === 'running' || state === 'paused';

export async function takeSnapshot(h: SnapshotHost, ref: string, name: string) {
  const existing = await snapshotState(h, ref, name);
  if (existing !== null) return { sizeBytes: null, includesMemory: withMemory(existing) };
  const before = await allocation(h, ref);
  await h.virsh.run(
    [
      'snapshot-create-as',
      ref,
      '--name',
      name,
      '--description',
      'Taken by the portal',
      '--diskspec',
      'vda,snapshot=internal',
      '--diskspec',
      'vdb,snapshot=no',
      '--atomic',
    ],
    { timeoutMs: SNAPSHOT_TIMEOUT_MS },
  );
  const after = await allocation(h, ref);
  const state = (await snapshotState(h, ref, name)) ?? 'unknown';
  return {
    sizeBytes: before !== null && after !== null ? Math.max(0, after - before) : null,
    includesMemory: withMemory(state),
  };
}

export async function revertSnapshot(h: SnapshotHost, ref: string, name: string) {
  if ((await snapshotState(h, ref, name)) === null)
    throw new Error(`Snapshot ${name} of ${ref} is not on its host any more`);
  // QEMU refuses to revert a disk holding a backup checkpoint's dirty bitmap (and leaves the machine off): they are
  // removed first, and the next backup is a full one (backups.ts).
  await dropCheckpoints(h, ref);
  await h.virsh.run(['snapshot-revert', ref, name], { timeoutMs: SNAPSHOT_TIMEOUT_MS });
}

export async function deleteSnapshot(h: SnapshotHost, ref: string, name: string) {
  if ((await snapshotState(h, ref, name)) === null) return;
  await h.virsh.run(['snapshot-delete', ref, name], { timeoutMs: SNAPSHOT_TIMEOUT_MS }).catch((e: unknown) => {
    if (!(e instanceof VirshError && NO_SNAPSHOT_RE.test(e.stderr))) throw e;
  });
}

/**
 * A machine's snapshots as XML, parents before children (`snapshot-list --topological`), with the current one named:
 * what a cold move redefines on the target (`snapshot-create --redefine`), the snapshots themselves being in the
 * copied qcow2.
 */
export async function snapshotDefinitions(
  virsh: Pick<Virsh, 'run' | 'maybe'>,
  ref: string,
): Promise<{ xml: string; current: boolean }[]> {
  const list = await virsh.maybe(['snapshot-list', ref, '--name', '--topological']);
  if (!list) return [];
  const current = (await virsh.maybe(['snapshot-current', ref, '--name']))?.trim() ?? '';
  const out: { xml: string; current: boolean }[] = [];
  for (const name of list.split('\n').map((n) => n.trim())) {
    if (!name) continue;
    out.push({ xml: await virsh.run(['snapshot-dumpxml', ref, name]), current: name === current });
  }
  return out;
}
