/**
 * A screen's code (a lazy chunk) that did not load: the network is gone, or a deploy replaced the chunk the
 * running page knows. Each browser words it its own way; none of them is an application error, and a reload
 * (once the network is back) cures both (issue 25).
 */
const CHUNK_LOAD_FAILURES = [
  /Failed to fetch dynamically imported module/i, // Chromium
  /error loading dynamically imported module/i, // Firefox
  /Importing a module script failed/i, // Safari
  /Unable to preload CSS/i, // Vite's preload of a chunk's stylesheet
];

export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return CHUNK_LOAD_FAILURES.some((pattern) => pattern.test(message));
}

export const CHUNK_LOAD_TEXT = {
  title: 'This page could not be loaded',
  body: 'The connection to the server was lost, or the portal was updated. Reload to try again.',
  reload: 'Reload',
};

/** sessionStorage key: when the portal last reloaded itself for a chunk that did not load. */
export const CHUNK_RELOAD_KEY = 'chunk-reload-at';
/** Within this long after such a reload, another failure shows the Reload page instead of reloading again. */
export const CHUNK_RELOAD_GUARD_MS = 60_000;

/**
 * Whether a chunk failure should reload the page on its own: a deploy replaced the chunks the running page knows
 * (their names carry the build's hashes), so the old one is gone and a reload fetches the new index and its
 * chunks. Never while the browser is offline (the Reload page waits for the user), and at most once per
 * CHUNK_RELOAD_GUARD_MS, so a chunk that is missing for good cannot reload the page in a loop.
 */
export function shouldReloadForChunk(
  error: unknown,
  env: { online: boolean; now: number; lastReloadAt: string | null },
): boolean {
  if (!isChunkLoadError(error) || !env.online) return false;
  const last = Number(env.lastReloadAt);
  return !(Number.isFinite(last) && last > 0 && env.now - last < CHUNK_RELOAD_GUARD_MS);
}

/**
 * A lazy screen's code: on a chunk that did not load after a deploy the page reloads once (the promise then never
 * settles, so no error page flashes); otherwise the error goes to the router's error page (Reload).
 */
export async function loadChunk<T>(load: () => Promise<T>, target?: () => string | undefined): Promise<T> {
  try {
    return await load();
  } catch (error) {
    let lastReloadAt: string | null;
    try {
      lastReloadAt = sessionStorage.getItem(CHUNK_RELOAD_KEY);
    } catch {
      // No storage (private mode quirks): no automatic reload, the Reload page instead.
      throw error;
    }
    if (shouldReloadForChunk(error, { online: navigator.onLine, now: Date.now(), lastReloadAt })) {
      sessionStorage.setItem(CHUNK_RELOAD_KEY, String(Date.now()));
      // The address being navigated to (the failed load runs before the navigation commits), else this one.
      const href = target?.();
      if (href) window.location.assign(href);
      else window.location.reload();
      return new Promise<T>(() => {});
    }
    throw error;
  }
}
