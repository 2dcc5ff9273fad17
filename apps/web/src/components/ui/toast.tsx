/**
 * Toasts: bottom-left, newest on top, no progress bar, draggable, close on click, 5 s, 320 px, queued over a limit
 * (toast-container.tsx). The container's code loads once the user is signed in, never on the sign-in screens
 * (issue 25: /login's JS <= 150 KB gzip). A toast shown before it is mounted waits in react-toastify's queue and
 * appears when it mounts (no sign-in screen shows one); once mounted it stays, across sign-out too.
 */
import { useEffect, useState, type ComponentType } from 'react';
import { useAuth } from '../../lib/auth-context.tsx';
import { useTheme, type Theme } from '../../lib/theme.ts';

type View = ComponentType<{ theme: Theme }>;

export function Toasts() {
  const { authed } = useAuth();
  const { theme } = useTheme();
  const [wanted, setWanted] = useState(false);
  const [View, setView] = useState<View | null>(null);
  // Sticky: once signed in, the container stays mounted (a toast shown as the user signs out still shows).
  if (authed && !wanted) setWanted(true);
  useEffect(() => {
    if (!wanted || View) return;
    let active = true;
    const load = () =>
      void import('./toast-container.tsx')
        .then((m) => active && setView(() => m.ToastContainerView))
        // Offline or a deploy removed the chunk: try again when the browser is back online (no error screen).
        .catch(() => window.addEventListener('online', load, { once: true }));
    load();
    return () => {
      active = false;
      window.removeEventListener('online', load);
    };
  }, [wanted, View]);
  return View ? <View theme={theme} /> : null;
}
