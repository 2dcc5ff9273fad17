/** Host URIs as data (issue 21): which URIs each owner's policy accepts, what they parse into, how they render. */
import { describe, expect, it } from 'vitest';
import { HostUriError, parseHostUri, policyFor, renderHostUri, type HostUriPolicy } from './host-uri.ts';

const reseller: HostUriPolicy = { owner: 'reseller', allowTcp: false };
const resellerTcp: HostUriPolicy = { owner: 'reseller', allowTcp: true };
const operator: HostUriPolicy = { owner: 'operator' };

const refusedFor = (uri: string, policy: HostUriPolicy) => {
  try {
    parseHostUri(uri, policy);
  } catch (e) {
    expect(e).toBeInstanceOf(HostUriError);
    return (e as Error).message;
  }
  throw new Error(`${uri} was accepted`);
};

describe('reseller policy', () => {
  it.each([
    ['qemu+ssh://root@kvm1.example.net/system', { transport: 'ssh', user: 'root', host: 'kvm1.example.net' }],
    ['qemu+ssh://kvm1.example.net:2222/system', { transport: 'ssh', host: 'kvm1.example.net', port: 2222 }],
    ['qemu+ssh://ops_1@KVM1.Example.NET./system', { user: 'ops_1', host: 'kvm1.example.net' }],
    ['qemu+ssh://root@203.0.113.7:22/system', { host: '203.0.113.7', port: 22 }],
    ['qemu+ssh://root@[2001:db8::7]:22/system', { host: '2001:db8::7', port: 22 }],
    ['qemu+tls://kvm2.example.net/system', { transport: 'tls', host: 'kvm2.example.net' }],
    ['qemu+tls://kvm2.example.net:16514/system', { transport: 'tls', port: 16514 }],
  ])('accepts %s', (uri, expected) => {
    const parsed = parseHostUri(uri, reseller);
    expect(parsed).toMatchObject({ driver: 'qemu', path: '/system', params: [], ...expected });
  });

  it.each([
    // Programs, sockets, files, local daemons, other drivers and transports.
    'qemu+ext:///system?command=/tmp/x.sh',
    'qemu+ext://host/system?command=/tmp/x.sh',
    'qemu:///system',
    'qemu:///session',
    'qemu+unix:///system',
    'qemu+unix:///system?socket=/run/libvirt/libvirt-sock',
    'qemu+libssh://root@host/system',
    'qemu+libssh2://root@host/system',
    'qemu://host/system',
    'test:///default',
    'xen+ssh://root@host/system',
    'lxc+ssh://root@host/system',
    'QEMU+SSH://root@host/system',
    'qemu+tcp://127.0.0.9:16509/system',
    // Any query, whatever it names.
    'qemu+ssh://root@host/system?command=/tmp/x.sh',
    'qemu+ssh://root@host/system?netcat=/tmp/x.sh',
    'qemu+ssh://root@host/system?socket=/tmp/sock',
    'qemu+ssh://root@host/system?keyfile=/etc/shadow',
    'qemu+ssh://root@host/system?no_verify=1',
    'qemu+ssh://root@host/system?proxy=native',
    'qemu+ssh://root@host/system?known_hosts=/dev/null',
    'qemu+ssh://root@host/system?mode=legacy',
    'qemu+tls://host/system?pkipath=/root',
    'qemu+tls://host/system?no_verify=1',
    'qemu+ssh://root@host/system?',
    'qemu+ssh://root@host/system#x',
    // Path.
    'qemu+ssh://root@host/session',
    'qemu+ssh://root@host/',
    'qemu+ssh://root@host',
    'qemu+ssh://root@host/system/',
    'qemu+ssh://root@host//system',
    // User.
    'qemu+ssh://root:secret@host/system',
    'qemu+ssh://a@b@host/system',
    'qemu+ssh://-oProxyCommand=x@host/system',
    'qemu+ssh://Root@host/system',
    'qemu+tls://root@host/system',
    // Host.
    'qemu+ssh://root@/system',
    'qemu+ssh:///system',
    'qemu+ssh://root@ho%73t/system',
    'qemu+ssh://root@h_st/system',
    'qemu+ssh://root@-host/system',
    'qemu+ssh://root@0x7f.1/system',
    'qemu+ssh://root@2130706433/system',
    'qemu+ssh://root@127.1/system',
    'qemu+ssh://root@[fe80::1%25eth0]/system',
    'qemu+ssh://root@[not-v6]/system',
    'qemu+ssh://root@[::1]x/system',
    // Unicode look-alikes, whitespace, control characters.
    'qemu+ssh://root@kvm1.еxample.net/system',
    'qemu+ssh://root@host/system\n',
    'qemu+ssh://root@host /system',
    'qemu+ssh://root@host/sys\u0000tem',
    'qemu+ssh://root@host/system\u200b',
    // Port.
    'qemu+ssh://root@host:0/system',
    'qemu+ssh://root@host:65536/system',
    'qemu+ssh://root@host:022/system',
    'qemu+ssh://root@host:/system',
    'qemu+ssh://root@host:ssh/system',
    '',
    'kvm1.example.net',
    `qemu+ssh://root@${'a'.repeat(600)}.net/system`,
  ])('refuses %j', (uri) => {
    const message = refusedFor(uri, reseller);
    // Says what to write, never echoes what was found.
    expect(message).not.toContain('/tmp');
    expect(message).not.toMatch(/refused|end of file/i);
  });

  it('takes qemu+tcp only where the operator allows it', () => {
    expect(refusedFor('qemu+tcp://kvm1.example.net:16509/system', reseller)).toBe(
      'Use qemu+ssh://user@host[:port]/system or qemu+tls://host[:port]/system',
    );
    expect(parseHostUri('qemu+tcp://kvm1.example.net:16509/system', resellerTcp)).toMatchObject({
      transport: 'tcp',
      host: 'kvm1.example.net',
      port: 16509,
    });
    expect(() => parseHostUri('qemu+tcp://root@kvm1/system', resellerTcp)).toThrow(HostUriError);
  });

  it('says what to fix', () => {
    expect(refusedFor('qemu+ext:///system?command=/tmp/x', reseller)).toMatch(/^Use qemu\+ssh:\/\/user@host/);
    expect(refusedFor('qemu+ssh://root@host/system?keyfile=/k', reseller)).toMatch(/^Remove the \?… part/);
    expect(refusedFor('qemu+ssh://root@host/session', reseller)).toMatch(/^The path is \/system/);
    expect(refusedFor('qemu+ssh://root:pw@host/system', reseller)).toMatch(/without a password/);
    expect(refusedFor('qemu+ssh://root@0x7f.1/system', reseller)).toMatch(/^Write the host as a name/);
    expect(refusedFor('qemu+ssh://root@host:99999/system', reseller)).toMatch(/^The port is a number/);
  });
});

describe('operator policy', () => {
  it.each([
    ['qemu:///system', { transport: 'local', path: '/system' }],
    [
      'qemu:///system?socket=/tmp/irontech-libvirtd/sock',
      { transport: 'local', params: [{ name: 'socket', value: '/tmp/irontech-libvirtd/sock' }] },
    ],
    ['qemu+unix:///system?socket=/run/x', { transport: 'local' }],
    ['test:///default', { transport: 'test', path: '/default' }],
    ['qemu+tcp://127.0.0.1:16509/system', { transport: 'tcp', host: '127.0.0.1', port: 16509 }],
    ['qemu+ssh://root@127.0.0.2:2222/system?keyfile=/k&no_verify=1&command=/opt/ssh', { transport: 'ssh' }],
    ['qemu+ext:///system?command=/opt/connect', { transport: 'other', transportName: 'ext' }],
    ['qemu+libssh://root@kvm1/system?known_hosts=/etc/kh', { transport: 'other', transportName: 'libssh' }],
    ['qemu://kvm1/system', { transport: 'tls' }],
  ])('accepts %s', (uri, expected) => {
    expect(parseHostUri(uri, operator)).toMatchObject(expected);
  });

  it.each(['qemu:///system\n', 'qemu:// /system', 'qemu:///sys\ttem', 'qemu:///system\u0085', 'system', '', '://x'])(
    'refuses %j',
    (uri) => {
      refusedFor(uri, operator);
    },
  );

  it('is the policy of providers without a reseller', () => {
    expect(policyFor({ resellerId: null }, true)).toEqual({ owner: 'operator' });
    expect(policyFor({ resellerId: 7 }, true)).toEqual({ owner: 'reseller', allowTcp: true });
  });
});

describe('renderHostUri', () => {
  it('gives back the parsed URI, with portal-set parameters encoded', () => {
    for (const uri of ['qemu+ssh://root@kvm1.example.net:2222/system', 'qemu+tls://[2001:db8::7]/system'])
      expect(renderHostUri(parseHostUri(uri, reseller))).toBe(uri);
    const parsed = parseHostUri('qemu+ssh://root@kvm1.example.net/system', reseller);
    expect(
      renderHostUri({
        ...parsed,
        host: '203.0.113.7',
        params: [
          { name: 'keyfile', value: '/tmp/irontech-host-x/id' },
          { name: 'no_tty', value: '1' },
        ],
      }),
    ).toBe('qemu+ssh://root@203.0.113.7/system?keyfile=/tmp/irontech-host-x/id&no_tty=1');
  });
});
