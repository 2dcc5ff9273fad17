/** Where the console of a libvirt machine is reached from: the URI's host and the VNC display. */
import { expect, it } from 'vitest';
import { hostOfUri, parseVncDisplay } from './console.ts';

it('treats local and loopback URIs as local, qemu+ssh as a tunnel, anything else as unreachable for VNC', () => {
  expect(hostOfUri('qemu:///system')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu:///system?socket=/tmp/x/libvirt-sock')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu+tcp://127.0.0.1:16509/system')).toEqual({ kind: 'local' });
  expect(hostOfUri('qemu+ssh://root@kvm1.example.net:2222/system')).toEqual({
    kind: 'ssh',
    user: 'root',
    host: 'kvm1.example.net',
    port: 2222,
  });
  expect(hostOfUri('qemu+ssh://kvm1/system')).toEqual({ kind: 'ssh', user: null, host: 'kvm1', port: null });
  expect(hostOfUri('qemu+tls://kvm2.example.net/system')).toEqual({ kind: 'other', host: 'kvm2.example.net' });
});

it('reads the VNC port from virsh domdisplay', () => {
  expect(parseVncDisplay('vnc://127.0.0.1:0\n')).toEqual({ address: '127.0.0.1', port: 5900 });
  expect(parseVncDisplay('vnc://[::1]:12')).toEqual({ address: '::1', port: 5912 });
  expect(parseVncDisplay('spice://127.0.0.1:5930')).toBeNull();
});
