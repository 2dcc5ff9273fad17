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
