import { expect, it } from 'vitest';
import {
  chooseHost,
  couldEverHold,
  noHostText,
  placementOutlook,
  runsOnlyOnHosts,
  type HostLoad,
  type HostRow,
} from './placement.ts';

const seen = new Date('2026-11-23T08:00:00Z');
function host(id: number, patch: Partial<HostRow> = {}): HostRow {
  return {
    id,
    name: `h${id}`,
    uri: `qemu+ssh://h${id}/system`,
    providerId: 1,
    regionId: 1,
    cpus: 8,
    ramGb: 32,
    diskGb: 500,
    cpuOvercommit: 2,
    ramOvercommit: 1,
    diskOvercommit: 1,
    enabled: true,
    draining: false,
    hostKey: null,
    backupConcurrency: null,
    lastSeenAt: seen,
    lastError: null,
    createdAt: seen,
    ...patch,
  };
}
const load = (h: HostRow, cpu = 0, ram = 0, disk = 0): HostLoad => ({ host: h, used: { cpu, ram, disk } });
const micro = { cpu: 2, ram: 4, disk: 80 };

it('spreads: the host whose fullest resource would be the smallest fraction, lowest id on a tie', () => {
  expect(chooseHost([load(host(1)), load(host(2))], micro)?.id).toBe(1);
  expect(chooseHost([load(host(1), 2, 4, 80), load(host(2))], micro)?.id).toBe(2);
  // Memory is host 2's fullest resource: host 1 has more room there.
  expect(chooseHost([load(host(1), 8, 4, 80), load(host(2), 0, 24, 0)], micro)?.id).toBe(1);
});

it('counts overcommit, and never places on a full, draining, disabled, unseen or unreachable host', () => {
  expect(chooseHost([load(host(1), 14, 0, 0)], micro)?.id).toBe(1); // 16 vCPUs = 8 × 2
  expect(chooseHost([load(host(1), 15, 0, 0)], micro)).toBeNull();
  expect(chooseHost([load(host(1), 0, 30, 0)], micro)).toBeNull();
  expect(
    chooseHost(
      [
        load(host(1, { draining: true })),
        load(host(2, { enabled: false })),
        load(host(3, { lastSeenAt: null })),
        load(host(4, { lastError: 'Connection refused' })),
      ],
      micro,
    ),
  ).toBeNull();
  expect(chooseHost([load(host(1, { lastError: 'down' })), load(host(2), 10, 20, 300)], micro)?.id).toBe(2);
});

it('says why no host takes a size: larger than any could hold, or no room now with the hosts counted by why', () => {
  const large = { name: 'Large', cpu: 12, ram: 48, disk: 300 };
  const microNamed = { name: 'Micro', ...micro };
  // 8 CPUs × 2 hold 12 cores, but 32 GB never holds 48.
  expect(couldEverHold(host(1), large)).toBe(false);
  expect(couldEverHold(host(1, { ramGb: 64 }), large)).toBe(true);
  expect(noHostText([load(host(1)), load(host(2, { draining: true }))], large, 'US East')).toBe(
    'Large (12 cores, 48 GB RAM, 300 GB disk) is larger than any host in US East can hold. Choose a smaller configuration.',
  );
  expect(
    noHostText(
      [
        load(host(1), 16, 0, 0),
        load(host(2), 0, 30, 0),
        load(host(3, { lastError: 'down' })),
        load(host(4, { cpus: 1, cpuOvercommit: 1 })),
      ],
      microNamed,
      'US East',
    ),
  ).toBe(
    'No host in US East has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: 2 full, 1 unreachable, 1 too small)',
  );
  expect(noHostText([], microNamed, 'US East')).toBe(
    'No host in US East has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: none registered)',
  );
});

it("foretells placeVm's answer for the create form's size cards (placementOutlook, runsOnlyOnHosts)", () => {
  const large = { cpu: 12, ram: 48, disk: 300 };
  // No hosts: a provider that places nothing takes it; one that runs only on hosts has no room.
  expect(placementOutlook([], micro, false)).toBeNull();
  expect(placementOutlook([], micro, true)).toBe('noRoom');
  expect(placementOutlook([load(host(1))], micro, true)).toBeNull();
  expect(placementOutlook([load(host(1), 15, 0, 0)], micro, false)).toBe('noRoom');
  expect(placementOutlook([load(host(1, { lastError: 'refused' }))], micro, false)).toBe('noRoom');
  // 48 GB of RAM on hosts of 32 GB × 1: never, however empty or unavailable.
  expect(placementOutlook([load(host(1)), load(host(2, { enabled: false }))], large, false)).toBe('tooLarge');
  expect(runsOnlyOnHosts({ driver: 'simulator', resellerId: null, settings: {} })).toBe(false);
  expect(runsOnlyOnHosts({ driver: 'libvirt', resellerId: null, settings: { uri: 'qemu:///system' } })).toBe(false);
  expect(runsOnlyOnHosts({ driver: 'libvirt', resellerId: null, settings: {} })).toBe(true);
  expect(runsOnlyOnHosts({ driver: 'libvirt', resellerId: 7, settings: { uri: 'qemu:///system' } })).toBe(true);
});
