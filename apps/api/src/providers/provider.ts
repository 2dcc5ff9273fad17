import type { Duplex } from 'node:stream';

/**
 * The one interface every VM driver implements (simulator, libvirt, clusters). Calls are idempotent by
 * `key` where they create things, so a retried or resumed operation never makes a second machine.
 */
export interface MachineSpec {
  /** Idempotency key: the same key returns the same machine. */
  key: string;
  name: string;
  image: string;
  cpu: number;
  ramGb: number;
  diskGb: number;
  region: string;
  /** The login the portal shows (`sshUsername`): the guest gives it the password and key. */
  username: string;
  /** OpenSSH public key to install for the default user (the portal's own, whose private key the portal hands out). */
  publicKey: string;
  /**
   * The customer's chosen public keys (`type base64 [comment]` lines, validated by the key store), installed for
   * the default user beside `publicKey`; absent or [] when none (issue 23 item 5).
   */
  authorizedKeys?: string[];
  /**
   * cloud-init user-data given at create (`#cloud-config` YAML or a `#!` script, at most 16 KiB), for the NoCloud
   * seed's user-data; absent or null when none. Create and rebuild pass it (adopt does not).
   */
  userData?: string | null;
  /**
   * cloud-init's instance-id for the seed; absent: the driver's own for the machine (libvirt: its ref). A rebuild
   * gives a new one each time (libvirt/rebuild.ts), so cloud-init treats the reinstalled machine as a new instance.
   */
  instanceId?: string;
  /** Password for the default user. */
  password: string;
  /** The public address the portal allocated from the region's pool (drivers that can, give it to the guest). */
  publicIp?: string | null;
  /**
   * Restore as a new machine (issue 24 item 2): the new machine's disk is a copy of this backup (the driver's name
   * for it, as backupTake wrote it) instead of a fresh one from `image`; the image still names the OS it runs.
   */
  fromBackup?: string;
}

export interface CreatedMachine {
  ref: string;
  publicIp: string | null;
  privateIp: string | null;
}

export interface HostCapacity {
  cpus: number;
  ramGb: number;
  diskGb: number;
}

export type MachineState = 'running' | 'stopped' | 'missing';

/**
 * A running machine's statistics as its host reports them: counters since the machine (its QEMU process) started,
 * so a counter lower than the last one read means it restarted; and the memory it uses now.
 */
export interface MachineStats {
  /** CPU time of all its vCPUs, ns. */
  cpuTimeNs: number;
  /** The vCPUs it runs with (CPU % is of all of them). */
  vcpus: number;
  /** Guest memory in use, bytes (what the guest reports through its balloon driver, else what QEMU holds); null: unknown. */
  memoryUsedBytes: number | null;
  /** Bytes read from and written to its disks. */
  diskReadBytes: number;
  diskWriteBytes: number;
  /** Bytes its network interfaces received and sent (as the guest sees them). */
  netRxBytes: number;
  netTxBytes: number;
}

/** One host's answer for all its machines: their states, and the statistics of those that run. */
export interface HostSample {
  states: Map<string, MachineState>;
  /** By ref; a running machine absent here gave no statistics this time. */
  stats: Map<string, MachineStats>;
}

export interface Usage {
  /** Percent of all cores, 0–100. */
  cpuPercent: number;
  ramUsedGb: number;
}

/** A failure the runner may retry (network blip, busy host) — anything else is permanent. */
export class TransientProviderError extends Error {
  override name = 'TransientProviderError';
}

/** How the reason of a move that must be finished starts (the runner retries it however long it takes). */
export const MOVE_UNFINISHED = 'The machine runs on its new host; removing it from the old one failed';

/**
 * A move whose machine already runs on its new host but is not removed from the old one yet: retried until it is, so
 * the VM is never shown on the old host while its machine runs on the new one (docs/draining.md).
 */
export class MoveUnfinishedError extends TransientProviderError {
  override name = 'MoveUnfinishedError';
}

/**
 * A machine powered on but whose guest did not answer within the driver's boot timeout (docs/virtual-machines.md,
 * "Starting"). Permanent; the machine is left running (the customer can look at its console, reset or delete it), so
 * a create that ends so still records the machine (`created`).
 */
export class GuestNotReadyError extends Error {
  override name = 'GuestNotReadyError';
  constructor(
    message: string,
    readonly created: CreatedMachine | null = null,
  ) {
    super(message);
  }
}

/**
 * Options of the calls that power a machine on (create, start, reset, rebuild, resize of a running one). The driver
 * returns once the guest answers (libvirt: its guest agent, or a DHCP lease for images without one); `onBooting` is
 * called once the machine is powered on and the wait for the guest begins (again after a power cycle inside the
 * call), so the runner shows the VM as Starting meanwhile. The driver awaits it; it must not throw.
 */
export interface BootOptions {
  onBooting?: () => void | Promise<void>;
}

/** A live console: the machine's display (RFB, as a VNC server speaks it) or its first serial port. */
export type ConsoleKind = 'vnc' | 'serial';

/**
 * Openers for the consoles a machine offers (a kind that is absent is not offered). Each call opens a new
 * byte stream to the host; destroying the stream releases the host side (socket, tunnel or child process).
 */
export type ConsoleChannels = Partial<Record<ConsoleKind, () => Promise<Duplex>>>;

/**
 * A backup as the driver wrote it to the provider's backup target (issue 24 item 2): bytes it holds (null when the
 * driver cannot tell) and whether it is an incremental one (holding only what changed since the backup before).
 */
export interface BackupInfo {
  sizeBytes: number | null;
  incremental: boolean;
  /**
   * 'application-consistent': the guest's file systems were frozen through its agent at the copy's instant (flushed,
   * no write half done); 'crash-consistent': as a power cut at that instant (no agent, or powered off: the portal
   * cannot tell a clean shutdown from a forced one). Decision 0028.
   */
  consistency: BackupConsistency;
  /** How long the guest's file systems were frozen for the take (ms), when they were (figures and tests). */
  frozenMs?: number;
}

/** The contract's BACKUP_CONSISTENCIES (packages/contract/src/backup-consistency.ts). */
export type BackupConsistency = 'application-consistent' | 'crash-consistent';

/**
 * What a backup's verification found (backupProve): `error` why it is not restorable (null: it is, as far as it was
 * checked); `note` what could not be checked (e.g. a guest without an agent: booted, but no marker read), null when
 * everything was.
 */
export interface BackupProof {
  error: string | null;
  note: string | null;
}

/**
 * What a backup's delete changed beside it (decision 0027): the backups that were made over the deleted one and now hold
 * its data (merged into them: libvirt makes each a flattened whole copy), with their new size. Storage billing counts
 * them at that size from the delete on.
 */
export interface BackupDeleted {
  merged: { name: string; sizeBytes: number | null; incremental: boolean }[];
}

/** A snapshot as the driver took it: bytes it holds (null when the driver cannot tell) and whether memory is in it. */
export interface SnapshotInfo {
  sizeBytes: number | null;
  includesMemory: boolean;
}

export interface ProviderDriver {
  readonly kind: string;
  /** Optional: ends what the driver keeps open to its host (libvirt: its virsh session); later calls reopen it. */
  close?(): void;
  create(spec: MachineSpec, opts?: BootOptions): Promise<CreatedMachine>;
  start(ref: string, opts?: BootOptions): Promise<void>;
  /** Asks the guest to power off (ACPI), as the power button of a real machine does. */
  stop(ref: string): Promise<void>;
  /** Powers off at once without asking the guest, as pulling the plug does. */
  forceStop(ref: string): Promise<void>;
  reset(ref: string, opts?: BootOptions): Promise<void>;
  resize(ref: string, size: { cpu: number; ramGb: number; diskGb: number }): Promise<void>;
  delete(ref: string): Promise<void>;
  status(ref: string): Promise<MachineState>;
  /**
   * Optional: the state of every machine of this driver (on its host) in one call, by ref; a ref absent from the
   * answer is 'missing', as status() would say. The reconciler asks once per host per pass (issue 22).
   */
  statusAll?(): Promise<Map<string, MachineState>>;
  /**
   * Optional: statusAll with the statistics of every running machine, still in one call to the host (libvirt: one
   * `virsh domstats`). The reconciler's pass uses it when present and stores the statistics (engine/metrics).
   */
  sampleAll?(): Promise<HostSample>;
  usage(ref: string): Promise<Usage>;
  /** The text console: boot log and a prompt. */
  console(ref: string): Promise<string>;
  health(): Promise<{ healthy: boolean; detail: unknown }>;
  /** Optional: the interactive consoles of a running machine (docs/virtual-machines.md, "Console"). */
  consoleChannels?(ref: string): Promise<ConsoleChannels>;
  /** Optional: what the host offers (libvirt: `virsh nodeinfo` and the pool's capacity), for host registration. */
  capacity?(): Promise<HostCapacity>;
  /**
   * Optional: calls `listener` with a machine's ref whenever the engine reports a change of its state (libvirt's
   * lifecycle events); answers a function that stops listening. The driver keeps the event stream alive.
   */
  watch?(listener: (ref: string) => void): () => void;
  /** Optional: the base images in the host's pool, by the catalog names they serve. */
  images?(): Promise<string[]>;
  /**
   * Optional: moves a machine to another host of the same provider, cold (docs/draining.md): stops it (gracefully,
   * then forcibly after the stop timeout), copies its disks to `target` (the destination host's driver), defines it
   * there with the same identity (name, MAC, addresses) and starts it if it was running, then removes it here. A
   * failure leaves it on this host, defined and in its previous power state. `running`: the machine ran when the move
   * was queued (an attempt resumed after a crash finds it already stopped by the attempt before).
   */
  moveTo?(ref: string, target: ProviderDriver, opts: { running: boolean }): Promise<void>;
  /**
   * Optional: reinstalls a machine from `spec.image` (issue 23 item 6): powers it off (gracefully, then forcibly),
   * throws its disk and seed away, makes them anew from the image with the spec's keys, password and user-data, and
   * starts it. The machine keeps its ref, name, size, MAC and addresses. Idempotent: a retry after a crash redoes it.
   */
  rebuild?(ref: string, spec: MachineSpec, opts?: BootOptions): Promise<void>;
  /**
   * Optional: snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md), named by the portal (`name`: never the
   * customer's text). Take: of a running machine with its memory, of a powered-off one its disks; idempotent by name
   * (a retry after a crash answers the snapshot an earlier attempt made). Revert: the machine returns to exactly that
   * state, running with its memory or powered off as it was taken. Delete: a snapshot already gone is no error.
   */
  snapshotTake?(ref: string, name: string): Promise<SnapshotInfo>;
  snapshotRevert?(ref: string, name: string): Promise<void>;
  snapshotDelete?(ref: string, name: string): Promise<void>;
  /**
   * Optional: backups (issue 24 item 2), kept on the provider's backup target outside the machine's disk chain and
   * named by the portal (`name`, never the customer's text). They outlive the machine: a backup names no ref.
   * Take: a whole copy of the machine's disk as it is at one instant (running: without pausing it longer than a
   * freeze; powered off: the disk as it lies). Written under a temporary name and renamed when complete, so a run
   * killed mid-way never leaves a backup that looks whole; idempotent by name (a retry redoes it).
   * Restore: the machine returns to that backup's disk (powered off gracefully, then forcibly; started again if it ran,
   * and then, like a start, resolved only once its guest is ready: `opts` as start's).
   * Delete: a backup already gone is no error; one another builds on is merged into it first, and the delete answers
   * the merged backups' new sizes (BackupDeleted). Verify: the stored copy reads back whole (its checksum, the image's
   * own check); answers why not, or null when it is good.
   */
  backupTake?(ref: string, name: string): Promise<BackupInfo>;
  backupRestore?(ref: string, name: string, opts?: BootOptions): Promise<void>;
  backupDelete?(name: string): Promise<BackupDeleted | void>;
  backupVerify?(name: string): Promise<string | null>;
  /**
   * Optional: proves a backup restorable (issue 24 item 3; docs/decisions/0024-backup-verification.md): the stored
   * copy's checksum as backupVerify, then a throwaway machine booted from it in isolation (an overlay over the copy,
   * destroyed whatever happens) whose guest shows it came up, and the marker written at the take read back.
   */
  backupProve?(name: string): Promise<BackupProof>;
  /**
   * Optional: take back a machine the driver does not know (the simulator forgets its machines when the
   * portal restarts; a real cloud never needs this).
   */
  adopt?(
    ref: string,
    spec: MachineSpec,
    state: 'running' | 'stopped',
    ips: { publicIp: string | null; privateIp: string | null },
  ): Promise<void>;
}
