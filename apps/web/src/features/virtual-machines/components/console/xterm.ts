/** xterm.js with its fit addon and stylesheet: their own chunk, loaded by the serial tab when it is shown. */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

export type { Terminal };

/** A terminal drawn in `host`, sized to it; `fit()` sizes it again (the window or frame changed). */
export function openTerminal(host: HTMLElement): { terminal: Terminal; fit: () => void } {
  const terminal = new Terminal({
    cursorBlink: true,
    fontSize: 14,
    theme: { background: '#020617' },
    convertEol: false,
  });
  const addon = new FitAddon();
  terminal.loadAddon(addon);
  terminal.open(host);
  addon.fit();
  return { terminal, fit: () => addon.fit() };
}
