/** The graphical console: noVNC on the VM's display through the API's websocket. */
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import { ConsoleLoading } from './ConsoleLoading.tsx';
import { keysymOf, needsShift, XK_CONTROL_L, XK_SHIFT_L } from './console-socket.ts';
import type { RfbClient } from './novnc.ts';

export interface VncHandle {
  typeText(text: string): void;
  ctrlAltDel(): void;
  key(keysym: number | null, ctrl?: number): void;
  focus(): void;
}

interface Props {
  url: string;
  scale: boolean;
  onConnected(): void;
  onDisconnected(clean: boolean): void;
  /** noVNC's chunk could not be loaded. */
  onLoadFailed(err: unknown): void;
}

export const VncConsole = forwardRef<VncHandle, Props>(function VncConsole(
  { url, scale, onConnected, onDisconnected, onLoadFailed },
  ref,
) {
  const screen = useRef<HTMLDivElement>(null);
  const rfb = useRef<RfbClient | null>(null);
  const [loaded, setLoaded] = useState(false);
  const handlers = useRef({ onConnected, onDisconnected, onLoadFailed, scale });
  handlers.current = { onConnected, onDisconnected, onLoadFailed, scale };

  useEffect(() => {
    let client: RfbClient | null = null;
    let gone = false;
    import('./novnc.ts').then(
      ({ RFB }) => {
        if (gone) return;
        setLoaded(true);
        client = new RFB(screen.current!, url, { shared: true });
        client.scaleViewport = handlers.current.scale;
        client.background = '#020617';
        // A console the page has let go of reports nothing: its disconnect comes after the page moved on (to the
        // serial tab), where an old handler took it for a refused display and opened a second serial console.
        client.addEventListener('connect', () => !gone && handlers.current.onConnected());
        client.addEventListener(
          'disconnect',
          (e) =>
            !gone && handlers.current.onDisconnected(Boolean((e as CustomEvent<{ clean: boolean }>).detail?.clean)),
        );
        rfb.current = client;
      },
      (err: unknown) => !gone && handlers.current.onLoadFailed(err),
    );
    return () => {
      gone = true;
      rfb.current = null;
      try {
        client?.disconnect();
      } catch {
        // already closed
      }
    };
  }, [url]);

  useEffect(() => {
    if (rfb.current) rfb.current.scaleViewport = scale;
  }, [scale]);

  // Pasted text goes out as fast as noVNC sends it: QEMU queues VNC key events and paces them itself
  // (`key-delay-ms`), unlike the serial line (paced-writer.ts).
  useImperativeHandle(ref, () => ({
    typeText(text) {
      const c = rfb.current;
      if (!c) return;
      for (const ch of text) {
        const sym = keysymOf(ch);
        const shift = needsShift(ch);
        if (shift) c.sendKey(XK_SHIFT_L, 'ShiftLeft', true);
        c.sendKey(sym, null, true);
        c.sendKey(sym, null, false);
        if (shift) c.sendKey(XK_SHIFT_L, 'ShiftLeft', false);
      }
    },
    ctrlAltDel: () => rfb.current?.sendCtrlAltDel(),
    key(keysym, ctrl) {
      const c = rfb.current;
      if (!c) return;
      if (ctrl !== undefined) {
        c.sendKey(XK_CONTROL_L, 'ControlLeft', true);
        c.sendKey(ctrl, null);
        c.sendKey(XK_CONTROL_L, 'ControlLeft', false);
      } else if (keysym !== null) {
        c.sendKey(keysym, null);
      }
      c.focus();
    },
    focus: () => rfb.current?.focus(),
  }));

  return (
    <>
      <div ref={screen} data-testid="vnc-screen" className="h-full w-full overflow-hidden bg-slate-950" />
      {!loaded && <ConsoleLoading />}
    </>
  );
});
