/** The console's websocket address and the keys pasted text becomes. */
import { expect, it } from 'vitest';
import { consoleSocketUrl, keysymOf, needsShift } from './console-socket.ts';

it('turns the getConsole link into the websocket of one console kind, on ws or wss like the page', () => {
  expect(
    consoleSocketUrl(
      '/irontech/api/v1/virtualMachines/console/7?token=abc',
      'vnc',
      'https://cloud.example.com/portal/virtualMachineConsole/7',
    ),
  ).toBe('wss://cloud.example.com/irontech/api/v1/virtualMachines/console/7/vnc?token=abc');
  expect(consoleSocketUrl('/api/virtualMachines/console/7?token=abc', 'serial', 'http://127.0.0.1:3000/')).toBe(
    'ws://127.0.0.1:3000/api/virtualMachines/console/7/serial?token=abc',
  );
});

it('types text as X keysyms, with Shift for shifted characters', () => {
  expect(keysymOf('a')).toBe(0x61);
  expect(keysymOf('\n')).toBe(0xff0d);
  expect(keysymOf('€')).toBe(0x01000000 + 0x20ac);
  expect(['A', '_', '$', '>'].every(needsShift)).toBe(true);
  expect(['a', '-', '/', '1'].some(needsShift)).toBe(false);
});
