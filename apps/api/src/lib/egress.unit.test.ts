import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createEgressPolicy, EGRESS_REFUSED_MESSAGE, EgressRefusedError } from './egress.ts';

const policy = createEgressPolicy();

const REFUSED = [
  // IPv4 special ranges
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '0.1.2.3',
  '169.254.169.254',
  '169.254.0.1',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  '100.127.255.254',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  '240.0.0.1',
  '192.0.0.8',
  '192.0.2.1',
  '198.51.100.7',
  '203.0.113.9',
  '198.18.0.1',
  // IPv6 special ranges
  '::1',
  '[::1]',
  '::',
  'fe80::1',
  'fe80::1%eth0',
  'fc00::1',
  'fd12:3456::1',
  'ff02::1',
  'fec0::1',
  '2001:db8::1',
  '100::1',
  // embedded IPv4 forms
  '::ffff:127.0.0.1',
  '[::ffff:127.0.0.1]',
  '::ffff:7f00:1',
  '::ffff:169.254.169.254',
  '::ffff:0:127.0.0.1',
  '::127.0.0.1',
  '::8.8.8.8',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::1',
  '2002:7f00:1::1',
  '2002:a00:1::1',
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1
  // weird IPv4 literals (inet_aton reads them all as an address)
  '2130706433',
  '0x7f000001',
  '0x7F.0.0.1',
  '127.1',
  '0177.0.0.1',
  '017700000001',
  '0xa9.0xfe.0xa9.0xfe',
  '3232235777', // 192.168.1.1
  // not addresses at all
  '1.2.3.4.5',
  '999.1.1.1',
  'example.com',
];

describe('egress policy: addresses', () => {
  it.each(REFUSED)('refuses %s', (ip) => {
    expect(policy.isAllowedAddress(ip)).toBe(false);
  });

  it.each(['8.8.8.8', '93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'allows the public address %s',
    (ip) => {
      expect(policy.isAllowedAddress(ip)).toBe(true);
    },
  );

  it('allows what the operator allows, and only that', () => {
    const p = createEgressPolicy({ allow: ['10.20.0.0/16', 'fd00:1::/32', '127.0.0.1'] });
    expect(p.isAllowedAddress('10.20.3.4')).toBe(true);
    expect(p.isAllowedAddress('10.21.3.4')).toBe(false);
    expect(p.isAllowedAddress('fd00:1::5')).toBe(true);
    expect(p.isAllowedAddress('fd00:2::5')).toBe(false);
    expect(p.isAllowedAddress('127.0.0.1')).toBe(true);
    expect(p.isAllowedAddress('::ffff:127.0.0.1')).toBe(true);
    expect(p.isAllowedAddress('127.0.0.2')).toBe(false);
    expect(p.isAllowedAddress('8.8.8.8')).toBe(true);
  });

  it('refuses a malformed allow entry at build time', () => {
    expect(() => createEgressPolicy({ allow: ['10.0.0.0/33'] })).toThrow();
    expect(() => createEgressPolicy({ allow: ['intranet'] })).toThrow();
  });
});

describe('egress policy: names', () => {
  const answers: Record<string, string[]> = {
    'public.example': ['93.184.216.34', '2606:2800:220:1::1'],
    'mixed.example': ['93.184.216.34', '10.0.0.5'],
    'loop.example': ['127.0.0.1'],
    'mapped.example': ['::ffff:127.0.0.1'],
  };
  const p = createEgressPolicy({
    lookup: async (host) => {
      const list = answers[host];
      if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  });

  it('answers every address of a name whose answers are all public', async () => {
    await expect(p.resolveAllowed('public.example')).resolves.toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    await expect(p.resolveAllowed('PUBLIC.example.')).resolves.toHaveLength(2);
  });

  it('normalises a literal to the address it means', async () => {
    await expect(p.resolveAllowed('8.8.8.8')).resolves.toEqual(['8.8.8.8']);
    await expect(p.resolveAllowed('134744072')).resolves.toEqual(['8.8.8.8']);
    await expect(p.resolveAllowed('[2606:4700:4700::1111]')).resolves.toEqual(['2606:4700:4700::1111']);
  });

  it.each([
    'mixed.example',
    'loop.example',
    'mapped.example',
    'nowhere.example',
    'localhost',
    'LOCALHOST.',
    'app.localhost',
    'metadata',
    'metadata.google.internal',
    'printer.local',
    'intranet',
    '127.1',
    '0x7f000001',
    '[::1]',
    'foo.123',
    '',
  ])('refuses %j with a message safe for a tenant', async (host) => {
    const err = await p.resolveAllowed(host).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EgressRefusedError);
    expect((err as Error).message).toBe(EGRESS_REFUSED_MESSAGE);
  });
});

describe('egress policy: connect time', () => {
  it('refuses a DNS answer that changed between the check and the connect (rebinding)', async () => {
    const listener = createServer();
    let connections = 0;
    listener.on('connection', (s) => {
      connections++;
      s.destroy();
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const { port } = listener.address() as AddressInfo;
    try {
      let calls = 0;
      const rebinding = createEgressPolicy({
        lookup: async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
      });
      await expect(rebinding.resolveAllowed('rebind.example')).resolves.toEqual(['93.184.216.34']);

      const socket = connect({ host: 'rebind.example', port, lookup: rebinding.lookup });
      const [err] = (await once(socket, 'error').catch((e: unknown) => [e])) as [NodeJS.ErrnoException];
      expect(err).toBeInstanceOf(EgressRefusedError);
      expect(err.code).toBe('EEGRESS');
      expect(calls).toBe(2);
      expect(connections).toBe(0);
    } finally {
      listener.close();
    }
  });

  it('connects through the lookup when the answer is allowed', async () => {
    const listener = createServer((s) => s.end('ok'));
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    const { port } = listener.address() as AddressInfo;
    try {
      const p = createEgressPolicy({
        allow: ['127.0.0.1/32'],
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      const socket = connect({ host: 'receiver.example', port, lookup: p.lookup });
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      await once(socket, 'end');
      expect(Buffer.concat(chunks).toString()).toBe('ok');
    } finally {
      listener.close();
    }
  });
});
