/**
 * The libvirt rebuild's order of steps (rebuild.ts) against a recording stand-in of the host's helpers: a defined
 * machine is stopped, undefined and its volumes deleted under its lock, then made anew by the driver's create with the
 * new spec; a machine already undefined (a retry after a crash) only has its leftover volumes deleted before the
 * create; a spec whose key is another machine's is refused before anything happens.
 */
import { describe, expect, it } from 'vitest';
import type { MachineSpec } from '../provider.ts';
import { refForKey } from './names.ts';
import { rebuildMachine } from './rebuild.ts';

const spec: MachineSpec = {
  key: 'vm-7',
  name: 'web-1',
  image: 'Ubuntu 24.04 LTS',
  cpu: 2,
  ramGb: 4,
  diskGb: 80,
  region: 'US East',
  username: 'root',
  publicKey: 'ssh-ed25519 AAAA portal',
  authorizedKeys: ['ssh-ed25519 BBBB me@laptop'],
  userData: '#!/bin/sh\ntouch /root/x\n',
  password: 'pw',
  publicIp: '203.0.113.9',
};
const ref = refForKey(spec.key);

function standIn(state: string | null) {
  const calls: string[] = [];
  let locked = false;
  const host = {
    state: async (r: string) => (calls.push(`state ${r === ref}`), state),
    stop: async () => void calls.push(`stop locked=${locked}`),
    undefine: async () => void calls.push(`undefine locked=${locked}`),
    deleteVolumes: async () => void calls.push(`deleteVolumes locked=${locked}`),
    async lock<T>(_r: string, fn: () => Promise<T>) {
      locked = true;
      try {
        return await fn();
      } finally {
        locked = false;
      }
    },
  };
  const create = async (s: MachineSpec) => {
    calls.push(`create ${s.image} ${s.authorizedKeys?.join(',')} locked=${locked}`);
    return { ref, publicIp: s.publicIp ?? null, privateIp: '10.0.0.5' };
  };
  return { calls, host, create };
}

describe('libvirt rebuild', () => {
  it('stops, undefines and deletes the volumes of a defined machine under its lock, then creates it from the new spec', async () => {
    const { calls, host, create } = standIn('running');
    await rebuildMachine(host, create, ref, spec);
    expect(calls).toEqual([
      'state true',
      'stop locked=true',
      'undefine locked=true',
      'deleteVolumes locked=true',
      'create Ubuntu 24.04 LTS ssh-ed25519 BBBB me@laptop locked=false',
    ]);
  });

  it('after a crash that left it undefined, deletes what volumes are left and creates it', async () => {
    const { calls, host, create } = standIn(null);
    await rebuildMachine(host, create, ref, spec);
    expect(calls).toEqual([
      'state true',
      'deleteVolumes locked=true',
      'create Ubuntu 24.04 LTS ssh-ed25519 BBBB me@laptop locked=false',
    ]);
  });

  it("refuses a spec whose key is another machine's, touching nothing", async () => {
    const { calls, host, create } = standIn('running');
    await expect(rebuildMachine(host, create, ref, { ...spec, key: 'vm-8' })).rejects.toThrow(/not machine/);
    expect(calls).toEqual([]);
  });
});
