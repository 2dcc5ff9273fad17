/** The graphical console: noVNC on the VM's display through the API's websocket. */
import RFBModule from '@novnc/novnc/lib/rfb';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { keysymOf, needsShift, XK_CONTROL_L, XK_SHIFT_L } from './console-socket.ts';

// noVNC's npm package is CommonJS (`exports.default = RFB`): depending on the bundler's interop the default
// import is the class or the exports object holding it.
const RFB: typeof RFBModule = (RFBModule as unknown as { default?: typeof RFBModule }).default ?? RFBModule;
type RFB = RFBModule;

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
}

export const VncConsole = forwardRef<VncHandle, Props>(function VncConsole(
  { url, scale, onConnected, onDisconnected },
  ref,
) {
  const screen = useRef<HTMLDivElement>(null);
  const rfb = useRef<RFB | null>(null);
  const handlers = useRef({ onConnected, onDisconnected });
  handlers.current = { onConnected, onDisconnected };

  useEffect(() => {
    const client = new RFB(screen.current!, url, { shared: true });
    client.scaleViewport = scale;
    client.background = '#020617';
    client.addEventListener('connect', () => handlers.current.onConnected());
    client.addEventListener('disconnect', (e) =>
      handlers.current.onDisconnected(Boolean((e as CustomEvent<{ clean: boolean }>).detail?.clean)),
    );
    rfb.current = client;
    return () => {
      rfb.current = null;
      try {
        client.disconnect();
      } catch {
        // already closed
      }
    };
    // `scale` is applied by the effect below without reconnecting.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [url]);

  useEffect(() => {
    if (rfb.current) rfb.current.scaleViewport = scale;
  }, [scale]);

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

  return <div ref={screen} data-testid="vnc-screen" className="h-full w-full overflow-hidden bg-slate-950" />;
});
