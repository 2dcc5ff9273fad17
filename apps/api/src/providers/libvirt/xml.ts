/** The libvirt XML the driver defines: the machine's domain, the NAT network and the storage pool. */

export const METADATA_NS = 'https://irontech.dev/libvirt/machine/1';
/** The 1:1 NAT mapping's element, read by the host's hook (scripts/libvirt-hooks/qemu): its own namespace. */
export const NAT_NS = 'https://irontech.dev/libvirt/nat/1';

export const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

/** What the portal asked for, kept in the domain's metadata so a resize rewrites the same definition. */
export interface MachineMeta {
  key: string;
  name: string;
  image: string;
  region: string;
  /** The configuration's size: what is billed and exactly what the guest gets (guestSize). */
  cpu: number;
  ramGb: number;
  diskGb: number;
  /** The public address reserved for it on the host's public network (settings.publicNetwork), if any. */
  publicIp?: string | null;
  /** The private address reserved for it on its NAT network (null on a bridged network: the operator's DHCP). */
  privateIp?: string | null;
}

export interface DomainParams {
  ref: string;
  uuid: string;
  mac: string;
  /** Its size in the definition is guestSize(meta): nothing else decides what the guest gets. */
  meta: MachineMeta;
  domainType: 'qemu' | 'kvm';
  machine: string;
  diskPath: string;
  seedPath: string;
  serialLogPath: string;
  network: string;
  /** A second NIC on the host's public network (routed or bridged public addresses). */
  publicNic?: { network: string; mac: string } | null;
  /** A 1:1 NAT mapping the host's hook applies while the domain runs (public addresses without a public network). */
  nat?: { publicIp: string; privateIp: string } | null;
}

const IPV4_RE = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function ipv4(ip: string): string {
  if (!IPV4_RE.test(ip)) throw new Error(`"${ip}" is not an IPv4 address`);
  return ip;
}

/**
 * What the guest gets: exactly its configuration's size (issue 23 item 3), its vCPUs, its memory (GB = 1024 MiB)
 * and its disk (GB = 1024^3 bytes). No cap or scale: a host too small for a size is refused it at placement.
 */
export function guestSize(size: Pick<MachineMeta, 'cpu' | 'ramGb' | 'diskGb'>) {
  return { vcpus: size.cpu, ramMb: Math.round(size.ramGb * 1024), diskBytes: Math.round(size.diskGb * 1024 ** 3) };
}

export function domainXml(p: DomainParams): string {
  const meta = JSON.stringify(p.meta);
  const { vcpus, ramMb } = guestSize(p.meta);
  return `<domain type='${p.domainType}'>
  <name>${p.ref}</name>
  <uuid>${p.uuid}</uuid>
  <title>${xmlEscape(p.meta.name)}</title>
  <metadata>
    <irontech:machine xmlns:irontech='${METADATA_NS}'>${xmlEscape(meta)}</irontech:machine>${
      p.nat
        ? `
    <irontech:nat xmlns:irontech='${NAT_NS}' public='${ipv4(p.nat.publicIp)}' private='${ipv4(p.nat.privateIp)}'/>`
        : ''
    }
  </metadata>
  <memory unit='MiB'>${ramMb}</memory>
  <currentMemory unit='MiB'>${ramMb}</currentMemory>
  <vcpu placement='static'>${vcpus}</vcpu>
  <os>
    <type arch='x86_64' machine='${p.machine}'>hvm</type>
    <boot dev='hd'/>
    <bootmenu enable='no'/>
  </os>
  <features><acpi/><apic/></features>
  ${p.domainType === 'kvm' ? "<cpu mode='host-passthrough'/>" : ''}
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' discard='unmap'/>
      <source file='${xmlEscape(p.diskPath)}'/>
      <target dev='vda' bus='virtio'/>
    </disk>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/>
      <source file='${xmlEscape(p.seedPath)}'/>
      <target dev='vdb' bus='virtio'/>
      <readonly/>
    </disk>
    <interface type='network'>
      <source network='${xmlEscape(p.network)}'/>
      <mac address='${p.mac}'/>
      <model type='virtio'/>
    </interface>${
      p.publicNic
        ? `
    <interface type='network'>
      <source network='${xmlEscape(p.publicNic.network)}'/>
      <mac address='${p.publicNic.mac}'/>
      <model type='virtio'/>
    </interface>`
        : ''
    }
    <serial type='pty'>
      <log file='${xmlEscape(p.serialLogPath)}' append='on'/>
      <target port='0'/>
    </serial>
    <console type='pty'><target type='serial' port='0'/></console>
    <channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>
    <graphics type='vnc' port='-1' autoport='yes' websocket='-1' listen='127.0.0.1'>
      <listen type='address' address='127.0.0.1'/>
    </graphics>
    <video><model type='vga'/></video>
    <memballoon model='virtio'><stats period='5'/></memballoon>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
  </devices>
</domain>
`;
}

/** The machine's metadata out of its domain XML (null for a domain the driver did not make). */
export function parseMeta(domain: string): MachineMeta | null {
  const m = /<irontech:machine[^>]*>([^<]*)<\/irontech:machine>/.exec(domain);
  if (!m?.[1]) return null;
  const json = m[1]
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return JSON.parse(json) as MachineMeta;
}

/** A NAT network with DHCP from libvirt's dnsmasq over `cidr` (a /24 or larger, e.g. 10.231.0.0/24). */
export function natNetworkXml(name: string, bridge: string, cidr: string): string {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const octets = (base ?? '').split('.').map(Number);
  if (
    octets.length !== 4 ||
    octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255) ||
    !Number.isInteger(bits) ||
    bits < 16 ||
    bits > 28
  ) {
    throw new Error(`network cidr "${cidr}" must look like 10.231.0.0/24 (prefix 16–28)`);
  }
  const ip = octets.reduce((a, o) => a * 256 + o, 0);
  const size = 2 ** (32 - bits);
  const net = ip - (ip % size);
  const dotted = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
  const mask = dotted(2 ** 32 - size);
  return `<network>
  <name>${xmlEscape(name)}</name>
  <forward mode='nat'/>
  <bridge name='${xmlEscape(bridge)}' stp='off' delay='0'/>
  <ip address='${dotted(net + 1)}' netmask='${mask}'>
    <dhcp><range start='${dotted(net + 2)}' end='${dotted(net + size - 2)}'/></dhcp>
  </ip>
</network>
`;
}

export function dirPoolXml(name: string, dir: string): string {
  return `<pool type='dir'>
  <name>${xmlEscape(name)}</name>
  <target><path>${xmlEscape(dir)}</path><permissions><mode>0755</mode></permissions></target>
</pool>
`;
}

export const ipToNumber = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
export const numberToIp = (n: number) => [24, 16, 8, 0].map((sh) => Math.floor(n / 2 ** sh) % 256).join('.');

/** The static DHCP entries (`<host mac name ip/>`) of a network definition. */
export function staticHosts(networkXml: string): { mac: string; name: string | null; ip: string }[] {
  return [...networkXml.matchAll(/<host\s([^>]*)\/>/g)].flatMap((m) => {
    const attr = (k: string) => new RegExp(`${k}=['"]([^'"]+)['"]`).exec(m[1]!)?.[1] ?? null;
    const mac = attr('mac');
    const ip = attr('ip');
    return mac && ip ? [{ mac: mac.toLowerCase(), name: attr('name'), ip }] : [];
  });
}

/**
 * Whether libvirt serves DHCP on the network: a NAT or routed network with an <ip> and a <dhcp> range. A bridged
 * network (`<forward mode='bridge'/>`, no <ip>) has none: the operator's DHCP on the bridge hands out addresses.
 */
export function hasDhcp(networkXml: string): boolean {
  return /<ip\b[^>]*>[\s\S]*?<dhcp>/.test(networkXml);
}

/** The IPv4 addresses `virsh domifaddr --source arp|agent|lease` shows for the NIC with `mac`, in order. */
export function domifaddrIps(output: string, mac: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.toLowerCase().includes(mac.toLowerCase()))
    .map((l) => /ipv4\s+(\d+\.\d+\.\d+\.\d+)\//.exec(l)?.[1])
    .filter((ip): ip is string => Boolean(ip));
}

/**
 * A push-mode backup of the machine's disk (vda) into `targetFile` on the host, a qcow2 that libvirt creates (a full
 * one), or, with `incrementalFrom` (a checkpoint's name), only what changed since that checkpoint written into the
 * qcow2 the caller made there over the previous backup (`--reuse-external`); the read-only NoCloud seed (vdb) is left
 * out (backups.ts).
 */
export function backupXml(targetFile: string, incrementalFrom?: string): string {
  return `<domainbackup mode='push'>${incrementalFrom ? `\n  <incremental>${xmlEscape(incrementalFrom)}</incremental>` : ''}
  <disks>
    <disk name='vda' type='file' backup='yes'>
      <target file='${xmlEscape(targetFile)}'/>
      <driver type='qcow2'/>
    </disk>
    <disk name='vdb' backup='no'/>
  </disks>
</domainbackup>
`;
}

/** A checkpoint of the machine's disk (vda: a persistent dirty bitmap in its qcow2), the seed left out (backups.ts). */
export function checkpointXml(name: string): string {
  return `<domaincheckpoint>
  <name>${xmlEscape(name)}</name>
  <disks>
    <disk name='vda' checkpoint='bitmap'/>
    <disk name='vdb' checkpoint='no'/>
  </disks>
</domaincheckpoint>
`;
}

/**
 * A volume for `vol-create` / `vol-create-from`: its name, capacity and format, over `backing` when given. A qcow2 is
 * made version 3 (compat 1.1; libvirt's own default is 0.10): only that version holds the persistent dirty bitmaps an
 * incremental backup's checkpoint needs (backups.ts).
 */
export function volumeXml(
  name: string,
  capacityBytes: number,
  format: 'qcow2' | 'raw',
  backing?: { path: string; format: 'qcow2' | 'raw' },
): string {
  return `<volume>
  <name>${xmlEscape(name)}</name>
  <capacity unit='bytes'>${Math.round(capacityBytes)}</capacity>
  <target><format type='${format}'/>${format === 'qcow2' ? '<compat>1.1</compat>' : ''}</target>${
    backing
      ? `
  <backingStore><path>${xmlEscape(backing.path)}</path><format type='${backing.format}'/></backingStore>`
      : ''
  }
</volume>
`;
}
