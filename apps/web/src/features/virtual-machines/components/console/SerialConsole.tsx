/** The serial console: xterm.js on the VM's first serial port through the API's websocket. */
import { forwardRef, useEffect, useImperativeHandle, useRef, useState } from 'react';
import { ConsoleLoading } from './ConsoleLoading.tsx';
import { pacedWriter, type PacedWriter } from './paced-writer.ts';
import type { Terminal } from './xterm.ts';

export interface SerialHandle {
  /** Types text (the paste box): line ends become Enter (CR), paced like everything sent. */
  typeText(text: string): void;
  /** Sends bytes (a special key), after anything still being typed. */
  send(text: string): void;
  focus(): void;
}

interface Props {
  url: string;
  onConnected(): void;
  onDisconnected(clean: boolean): void;
  /** xterm.js's chunk could not be loaded. */
  onLoadFailed(err: unknown): void;
}

const encoder = new TextEncoder();

export const SerialConsole = forwardRef<SerialHandle, Props>(function SerialConsole(
  { url, onConnected, onDisconnected, onLoadFailed },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const out = useRef<PacedWriter | null>(null);
  const [loaded, setLoaded] = useState(false);
  const handlers = useRef({ onConnected, onDisconnected, onLoadFailed });
  handlers.current = { onConnected, onDisconnected, onLoadFailed };

  useEffect(() => {
    let gone = false;
    let close = () => {};
    import('./xterm.ts').then(
      ({ openTerminal }) => {
        if (gone) return;
        setLoaded(true);
        const { terminal, fit } = openTerminal(host.current!);
        term.current = terminal;
        const ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        // Everything the page sends, typed or pasted (the paste box, or a paste into the terminal, which xterm
        // hands over as one piece), goes through one paced queue; it stops when the socket does.
        const writer = pacedWriter((chunk) => {
          if (ws.readyState !== WebSocket.OPEN) return false;
          ws.send(chunk);
          return true;
        });
        out.current = writer;
        let opened = false;
        ws.onopen = () => {
          opened = true;
          handlers.current.onConnected();
          terminal.focus();
          // Wake the getty so the login prompt shows without a key press.
          writer.write(encoder.encode('\r'));
        };
        ws.onmessage = (e) =>
          terminal.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data as ArrayBuffer));
        ws.onclose = (e) => {
          writer.cancel();
          handlers.current.onDisconnected(opened && e.code === 1000);
        };
        const typed = terminal.onData((data) => writer.write(encoder.encode(data)));
        const resize = new ResizeObserver(() => fit());
        resize.observe(host.current!);
        close = () => {
          resize.disconnect();
          typed.dispose();
          writer.cancel();
          ws.onclose = null;
          ws.close();
          terminal.dispose();
        };
      },
      (err: unknown) => !gone && handlers.current.onLoadFailed(err),
    );
    return () => {
      gone = true;
      close();
      out.current = null;
      term.current = null;
    };
  }, [url]);

  useImperativeHandle(ref, () => ({
    typeText(text) {
      out.current?.write(encoder.encode(text.replace(/\r?\n/g, '\r')));
      term.current?.focus();
    },
    send(text) {
      out.current?.write(encoder.encode(text));
      term.current?.focus();
    },
    focus: () => term.current?.focus(),
  }));

  return (
    <>
      <div ref={host} data-testid="serial-terminal" className="h-full w-full bg-slate-950 p-2" />
      {!loaded && <ConsoleLoading />}
    </>
  );
});
