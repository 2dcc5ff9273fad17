/**
 * The websocket address of a console: the link `getConsole` hands out (`{API}/virtualMachines/console/{id}?token=…`)
 * with the kind appended, on ws: or wss: like the page. Every connection needs a fresh link (tokens are single use).
 */
export type ConsoleKind = 'vnc' | 'serial';

export function consoleSocketUrl(consoleUrl: string, kind: ConsoleKind, base: string = window.location.href): string {
  const url = new URL(consoleUrl, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/$/, '')}/${kind}`;
  return url.toString();
}

/** X11 keysyms for typing text as key presses (Latin-1 maps to itself, the rest to 0x01000000 + code point). */
export function keysymOf(ch: string): number {
  if (ch === '\n' || ch === '\r') return 0xff0d; // Return
  if (ch === '\t') return 0xff09; // Tab
  const cp = ch.codePointAt(0) ?? 0;
  return cp < 0x100 ? cp : 0x01000000 + cp;
}

/** Special keys offered as buttons: keysym for the display, bytes for the serial terminal. */
export const SPECIAL_KEYS = [
  { label: 'Esc', keysym: 0xff1b, serial: '\x1b' },
  { label: 'Tab', keysym: 0xff09, serial: '\t' },
  { label: 'Ctrl-C', keysym: null, serial: '\x03', ctrl: 0x63 },
  { label: 'Ctrl-D', keysym: null, serial: '\x04', ctrl: 0x64 },
  { label: 'F1', keysym: 0xffbe, serial: '\x1bOP' },
  { label: 'F2', keysym: 0xffbf, serial: '\x1bOQ' },
  { label: 'F12', keysym: 0xffc9, serial: '\x1b[24~' },
] as const;

export const XK_CONTROL_L = 0xffe3;

export const XK_SHIFT_L = 0xffe1;

/**
 * Characters typed with Shift on a US keyboard. A VNC server (QEMU) turns a keysym into the key that carries it
 * but does not press Shift for it, so pasted text presses Shift around these itself.
 */
export const needsShift = (ch: string) => /^[A-Z~!@#$%^&*()_+{}|:"<>?]$/.test(ch);
