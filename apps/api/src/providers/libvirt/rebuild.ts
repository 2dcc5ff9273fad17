/**
 * A reinstall of a libvirt machine (issue 23 item 6): the driver's rebuild.
 *
 * 1. The machine stops: ACPI shutdown, then destroy after the driver's stop timeout (the move's endpoint does both).
 * 2. Its domain is undefined and its volumes deleted: the disk (the copy-on-write qcow2 over the old image's base), the
 *    NoCloud seed and the serial log. Its DHCP reservations stay: they are keyed by the MAC, which derives from the
 *    machine's key, so the private and public addresses do not change.
 * 3. The driver's own create makes it anew from the spec (same key, so the same ref, name, UUID and MACs): a new disk
 *    over the chosen image's base grown to the size, a new seed with the spec's password, keys and user-data, the
 *    definition, and a start. A rebuilt machine always starts (docs/virtual-machines.md, "Rebuild"): cloud-init runs
 *    at that first boot. The seed's instance-id is new on every rebuild (`<ref>-<8 random hex>`, where a create uses
 *    the ref): the new disk would run cloud-init anyway, but an operator image that keeps /var/lib/cloud (or a
 *    cloud-init told to trust its cache) would otherwise take the machine for the instance it already set up and skip
 *    the new keys, password and user-data. Like a create, it returns once the guest answers (the driver's readiness).
 * A retry after a crash anywhere redoes what is left: a machine already undefined skips 1–2's domain steps, volume
 * deletion ignores what is gone, and create skips what an earlier attempt made. A retry after a finished rebuild
 * erases the disk again (the operation asked for a fresh disk; the runner does not retry a success).
 */
import { randomBytes } from 'node:crypto';
import type { BootOptions, CreatedMachine, MachineSpec } from '../provider.ts';
import type { MoveEndpoint } from './move.ts';
import { refForKey } from './names.ts';

export async function rebuildMachine(
  host: Pick<MoveEndpoint, 'state' | 'stop' | 'undefine' | 'deleteVolumes' | 'lock'>,
  create: (spec: MachineSpec, opts?: BootOptions) => Promise<CreatedMachine>,
  ref: string,
  spec: MachineSpec,
  opts?: BootOptions,
): Promise<void> {
  if (refForKey(spec.key) !== ref) throw new Error(`The rebuild's key ${spec.key} is not machine ${ref}'s`);
  await host.lock(ref, async () => {
    if ((await host.state(ref)) !== null) {
      await host.stop(ref);
      await host.undefine(ref);
    }
    await host.deleteVolumes(ref);
  });
  // create takes the machine's lock itself.
  await create({ ...spec, instanceId: `${ref}-${randomBytes(4).toString('hex')}` }, opts);
}
