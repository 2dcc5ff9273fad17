/**
 * The offline banner (issue 25 item 6; docs/failure-states.md): while the browser is offline or the server gives
 * no answer, a polite status at the top of every screen says so; the portal retries on its own and the banner goes
 * when the server answers again (the screen's data is refreshed then). It is in the page only while there is
 * something to say: an empty second role=status would be one more "status" beside a screen's own (the console's).
 */
import WifiOff from 'lucide-react/icons/wifi-off';
import { NETWORK_TEXT, useNetworkState } from '../../lib/network.ts';

export function NetworkBanner() {
  const state = useNetworkState();
  const text = state === 'offline' ? NETWORK_TEXT.offline : state === 'unreachable' ? NETWORK_TEXT.unreachable : '';
  if (!text) return null;
  // Below the phone's top bar (its menu button stays usable), at the top of the page from `md` up.
  return (
    <div className="pointer-events-none fixed inset-x-0 top-14 z-[10000] flex justify-center px-2 md:top-2">
      <p
        role="status"
        aria-live="polite"
        data-testid="network-banner"
        data-state={state}
        className="pointer-events-auto flex max-w-md items-start gap-2 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm font-medium text-amber-950 shadow-lg"
      >
        <WifiOff className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
        <span>{text}</span>
      </p>
    </div>
  );
}
