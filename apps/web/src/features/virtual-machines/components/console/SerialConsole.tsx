/** The serial console: xterm.js on the VM's first serial port through the API's websocket. */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

export interface SerialHandle {
  send(text: string): void;
  focus(): void;
}

interface Props {
  url: string;
  onConnected(): void;
  onDisconnected(clean: boolean): void;
}

export const SerialConsole = forwardRef<SerialHandle, Props>(function SerialConsole(
  { url, onConnected, onDisconnected },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const socket = useRef<WebSocket | null>(null);
  const term = useRef<Terminal | null>(null);
  const handlers = useRef({ onConnected, onDisconnected });
  handlers.current = { onConnected, onDisconnected };

  useEffect(() => {
    const terminal = new Terminal({
      cursorBlink: true,
      fontSize: 14,
      theme: { background: '#020617' },
      convertEol: false,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(host.current!);
    fit.fit();
    term.current = terminal;
    const encoder = new TextEncoder();
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    socket.current = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      handlers.current.onConnected();
      terminal.focus();
      // Wake the getty so the login prompt shows without a key press.
      ws.send(encoder.encode('\r'));
    };
    ws.onmessage = (e) => terminal.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data as ArrayBuffer));
    ws.onclose = (e) => handlers.current.onDisconnected(opened && e.code === 1000);
    const typed = terminal.onData((data) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
    });
    const resize = new ResizeObserver(() => fit.fit());
    resize.observe(host.current!);
    return () => {
      resize.disconnect();
      typed.dispose();
      ws.onclose = null;
      ws.close();
      terminal.dispose();
      socket.current = null;
      term.current = null;
    };
  }, [url]);

  useImperativeHandle(ref, () => ({
    send(text) {
      const ws = socket.current;
      if (ws?.readyState === WebSocket.OPEN) ws.send(new TextEncoder().encode(text));
      term.current?.focus();
    },
    focus: () => term.current?.focus(),
  }));

  return <div ref={host} data-testid="serial-terminal" className="h-full w-full bg-slate-950 p-2" />;
});
