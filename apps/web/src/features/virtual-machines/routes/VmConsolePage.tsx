/**
 * /virtualMachineConsole/:id — a full-screen tab with the VM's live console; a non-numeric id closes the tab.
 *
 * SPEC: "Loading console...", then the console frame with a close button, or "Failed to load console. Please
 * try again." with Close. The frame has two tabs, Graphical (noVNC) and Serial (xterm.js), each a websocket to
 * the API (docs/decisions/0009-browser-console.md). Every connection, and every reconnect, asks `getConsole`
 * for a fresh single-use link first. noVNC and xterm.js are not in this page's chunk: each tab loads its library
 * when it is shown ("Loading console..." in the frame meanwhile).
 */
import { Maximize, Minimize, X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { consoleUrlSchema } from '@portal/contract/validation';
import { Button } from '../../../components/ui/Button.tsx';
import { ApiError, errorMessage } from '../../../lib/api.ts';
import { reportError } from '../../../lib/report-error.ts';
import { fetchConsoleUrl } from '../api/vms.ts';
import { consoleSocketUrl, SPECIAL_KEYS, type ConsoleKind } from '../components/console/console-socket.ts';
import { SerialConsole, type SerialHandle } from '../components/console/SerialConsole.tsx';
import { VncConsole, type VncHandle } from '../components/console/VncConsole.tsx';

type Link = { kind: ConsoleKind; url: string; attempt: number };
type Status = 'connecting' | 'connected' | 'lost' | 'unreachable' | 'none';
type ConsoleLink = { url: string; consoles: ConsoleKind[] };

/** The consoles to offer when the API does not say (an older server): try both, as before. */
const ALL_CONSOLES: ConsoleKind[] = ['vnc', 'serial'];

/**
 * A console link from the API, checked (a null or empty result is an error, SPEC points 5 and 7), with the
 * consoles the machine has: a simulated machine has no display, and asking noVNC to connect anyway logged a
 * 404 and "disconnected RFB object" errors (issue 25).
 */
async function consoleLink(id: number): Promise<ConsoleLink> {
  let consoleUrl: unknown;
  let consoles: ConsoleKind[] | undefined;
  try {
    ({ consoleUrl, consoles } = await fetchConsoleUrl(id));
  } catch (err) {
    // SPEC point 8: "Failed to fetch console URL: {detail}"; the screen keeps its one failure text.
    const message = withDetail(ERRORS.fetchConsole, errorMessage(err));
    console.error(message);
    // A refusal (no such VM, not running, no permission) is an answer; anything else is worth reporting.
    if (!(err instanceof ApiError) || err.status >= 500) reportError(new Error(message));
    throw err;
  }
  const parsed = consoleUrlSchema.safeParse(consoleUrl);
  if (!parsed.success) {
    console.error(ERRORS.invalidConsoleUrl);
    reportError(new Error(ERRORS.invalidConsoleUrl));
    throw new Error(ERRORS.invalidConsoleUrl);
  }
  return { url: parsed.data, consoles: consoles ?? ALL_CONSOLES };
}

export function VmConsolePage() {
  const { virtualMachineId } = useParams();
  const id = Number(virtualMachineId);
  const numeric = /^\d+$/.test(virtualMachineId ?? '') && id > 0;
  const [link, setLink] = useState<Link | null>(null);
  // A tab the portal did not open cannot be closed by script: a bad id says so instead of loading forever.
  const [failed, setFailed] = useState(!numeric);
  const [status, setStatus] = useState<Status>('connecting');
  const [scale, setScale] = useState(true);
  const [fullScreen, setFullScreen] = useState(false);
  const [paste, setPaste] = useState('');
  const [consoles, setConsoles] = useState<ConsoleKind[]>(ALL_CONSOLES);
  const everConnected = useRef(false);
  const vnc = useRef<VncHandle>(null);
  const serial = useRef<SerialHandle>(null);

  const connect = useCallback(
    async (kind: ConsoleKind, initial?: ConsoleLink) => {
      everConnected.current = false;
      // The machine has no such console: say so, and open no socket that can only fail.
      if (initial === undefined && !consoles.includes(kind)) {
        setStatus('none');
        setLink((prev) => ({ kind, url: '', attempt: (prev?.attempt ?? 0) + 1 }));
        return;
      }
      setStatus('connecting');
      try {
        const { url, consoles: offered } = initial ?? (await consoleLink(id));
        setConsoles(offered);
        if (!offered.includes(kind)) {
          setStatus('none');
          setLink((prev) => ({ kind, url: '', attempt: (prev?.attempt ?? 0) + 1 }));
          return;
        }
        setLink((prev) => ({ kind, url: consoleSocketUrl(url, kind), attempt: (prev?.attempt ?? 0) + 1 }));
      } catch {
        setStatus('unreachable');
      }
    },
    [id, consoles],
  );

  useEffect(() => {
    if (!numeric) {
      window.close();
      return;
    }
    let active = true;
    consoleLink(id).then(
      // The graphical console first when there is one; otherwise the serial console straight away.
      (first) => active && void connect(first.consoles.includes('vnc') ? 'vnc' : 'serial', first),
      () => active && setFailed(true),
    );
    return () => {
      active = false;
    };
    // Once per machine: `connect` changes with the consoles it learns, which must not start another link.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, numeric]);

  useEffect(() => {
    const onChange = () => setFullScreen(Boolean(document.fullscreenElement));
    document.addEventListener('fullscreenchange', onChange);
    return () => document.removeEventListener('fullscreenchange', onChange);
  }, []);

  const onConnected = useCallback(() => {
    everConnected.current = true;
    setStatus('connected');
  }, []);
  const onDisconnected = useCallback(() => {
    // A machine without a display (e.g. the simulator's) refuses the graphical socket: offer its serial console.
    if (!everConnected.current && link?.kind === 'vnc' && link.attempt === 1) return void connect('serial');
    setStatus(everConnected.current ? 'lost' : 'unreachable');
  }, [link, connect]);
  // The tab's library (noVNC or xterm.js, each its own chunk) did not load: the page's failure text.
  const onLoadFailed = useCallback((err: unknown) => {
    console.error(err);
    setFailed(true);
  }, []);

  const kind = link?.kind ?? 'vnc';
  const typeText = () => {
    if (!paste) return;
    if (kind === 'vnc') vnc.current?.typeText(paste);
    else serial.current?.typeText(paste);
    setPaste('');
  };
  const special = (k: (typeof SPECIAL_KEYS)[number]) => {
    if (kind === 'vnc') vnc.current?.key(k.keysym, 'ctrl' in k ? k.ctrl : undefined);
    else serial.current?.send(k.serial);
  };
  const toggleFullScreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void document.documentElement.requestFullscreen().catch(() => {});
  };

  const tab = (k: ConsoleKind, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={kind === k}
      onClick={() => kind !== k && void connect(k)}
      className={`rounded px-3 py-1 ${kind === k ? 'bg-slate-700 text-white' : 'text-slate-300 hover:bg-slate-800'}`}
    >
      {label}
    </button>
  );
  // One line per key (a phone's toolbar wraps between keys, never inside "Ctrl-C").
  const small =
    'whitespace-nowrap rounded border border-slate-700 px-2 py-1 text-xs text-slate-200 hover:bg-slate-800 disabled:opacity-40';
  // A machine without this console (the simulator's display) gets no keys for it, only the way to the other one.
  const keys = status !== 'none';

  // One landmark holds the whole page (axe: all content in landmarks).
  return (
    <main className="fixed inset-0 flex flex-col bg-slate-950 text-slate-100">
      <div className="flex flex-wrap items-center justify-between gap-2 px-4 py-2 text-sm">
        <div className="flex items-center gap-3">
          {/* With the tabs shown, a phone keeps them, the state and the end buttons on one line. */}
          <span className={link && !failed ? 'hidden sm:inline' : undefined}>Console</span>
          {link && !failed && (
            <div role="tablist" aria-label="Console type" className="flex gap-1">
              {tab('vnc', 'Graphical')}
              {tab('serial', 'Serial')}
            </div>
          )}
          {link && !failed && (
            <span role="status" className="text-xs text-slate-400">
              {status === 'connected'
                ? 'Connected'
                : status === 'connecting'
                  ? 'Connecting…'
                  : status === 'none'
                    ? 'Not available'
                    : 'Disconnected'}
            </span>
          )}
        </div>
        {/* The keys: beside the end buttons on a wide screen, a line of their own under the tabs on a phone. */}
        {link && !failed && keys && (
          <div className="order-last flex w-full flex-wrap items-center gap-1 sm:order-none sm:ml-auto sm:w-auto sm:justify-end">
            {kind === 'vnc' && (
              <button
                type="button"
                className={small}
                disabled={status !== 'connected'}
                onClick={() => vnc.current?.ctrlAltDel()}
              >
                Ctrl-Alt-Del
              </button>
            )}
            {SPECIAL_KEYS.map((k) =>
              kind === 'vnc' && k.keysym === null && !('ctrl' in k) ? null : (
                <button
                  key={k.label}
                  type="button"
                  className={small}
                  disabled={status !== 'connected'}
                  onClick={() => special(k)}
                >
                  {k.label}
                </button>
              ),
            )}
            {kind === 'vnc' && (
              <label className="ml-2 flex items-center gap-1 text-xs whitespace-nowrap text-slate-300">
                <input type="checkbox" checked={scale} onChange={(e) => setScale(e.target.checked)} /> Scale to window
              </label>
            )}
          </div>
        )}
        <div className="ml-auto flex items-center gap-1 sm:ml-0">
          {link && !failed && (
            <button
              type="button"
              aria-label={fullScreen ? 'Exit full screen' : 'Full screen'}
              className="rounded p-1 hover:bg-slate-800"
              onClick={toggleFullScreen}
            >
              {fullScreen ? <Minimize className="h-5 w-5" /> : <Maximize className="h-5 w-5" />}
            </button>
          )}
          <button
            type="button"
            aria-label="Close console"
            onClick={() => window.close()}
            className="rounded p-1 hover:bg-slate-800"
          >
            <X className="h-5 w-5" />
          </button>
        </div>
      </div>
      {failed ? (
        <div className="flex flex-1 flex-col items-center justify-center gap-4">
          <p role="alert">{TEXT.consoleFailed}</p>
          <Button variant="secondary" onClick={() => window.close()}>
            Close
          </Button>
        </div>
      ) : link ? (
        <>
          <div className="relative min-h-0 flex-1" data-testid="console-frame">
            {status === 'none' ? (
              <div className="flex h-full flex-col items-center justify-center gap-4 px-4 text-center">
                <p role="status">
                  {link.kind === 'vnc'
                    ? 'This machine has no graphical console. Use its serial console.'
                    : 'This machine has no serial console. Use its graphical console.'}
                </p>
                {consoles.includes(link.kind === 'vnc' ? 'serial' : 'vnc') && (
                  <Button onClick={() => void connect(link.kind === 'vnc' ? 'serial' : 'vnc')}>
                    {link.kind === 'vnc' ? 'Open the serial console' : 'Open the graphical console'}
                  </Button>
                )}
              </div>
            ) : link.kind === 'vnc' ? (
              <VncConsole
                key={link.attempt}
                ref={vnc}
                url={link.url}
                scale={scale}
                onConnected={onConnected}
                onDisconnected={onDisconnected}
                onLoadFailed={onLoadFailed}
              />
            ) : (
              <SerialConsole
                key={link.attempt}
                ref={serial}
                url={link.url}
                onConnected={onConnected}
                onDisconnected={onDisconnected}
                onLoadFailed={onLoadFailed}
              />
            )}
            {(status === 'lost' || status === 'unreachable') && (
              <div className="absolute inset-0 flex flex-col items-center justify-center gap-4 bg-slate-950/85">
                <p role="alert">
                  {status === 'lost' ? 'The console connection was lost.' : 'Could not connect to the console.'}
                </p>
                <Button onClick={() => void connect(kind)}>Reconnect</Button>
              </div>
            )}
          </div>
          <form
            className="flex items-center gap-2 border-t border-slate-800 px-4 py-2"
            onSubmit={(e) => {
              e.preventDefault();
              typeText();
            }}
          >
            <label htmlFor="console-paste" className="text-xs text-slate-400">
              Paste text
            </label>
            <textarea
              id="console-paste"
              rows={1}
              value={paste}
              onChange={(e) => setPaste(e.target.value)}
              placeholder="Text to type"
              className="min-w-0 flex-1 resize-y rounded border border-slate-700 bg-slate-900 px-2 py-1 font-mono text-sm text-slate-100"
            />
            <button type="submit" className={small} disabled={status !== 'connected' || !paste}>
              Type text
            </button>
          </form>
        </>
      ) : (
        <div className="flex flex-1 items-center justify-center">
          <p>{TEXT.consoleLoading}</p>
        </div>
      )}
    </main>
  );
}
