/**
 * Where keyboard focus goes when a dialog closes (issue 25: it dropped to <body>, so the next Tab started over
 * at the top of the page). To the element that opened the dialog when it can take focus; otherwise, its row
 * deleted or its button replaced (Stop became Start), to the page's main area, the skip link's target. A
 * trigger only disabled for a moment (its action running) gets focus back once enabled, unless the user has
 * moved on meanwhile.
 */
const WAIT_FOR_ENABLED_MS = 10_000;

export function returnFocus(target: HTMLElement | null): void {
  if (target?.isConnected) {
    target.focus();
    if (document.activeElement === target) return;
  }
  const main = document.getElementById('main');
  main?.focus();
  if (!target?.isConnected || !target.matches(':disabled')) return;
  const parked = () => document.activeElement === main || document.activeElement === document.body;
  const observer = new MutationObserver(() => {
    if (!target.isConnected) return observer.disconnect();
    if (target.matches(':disabled')) return;
    observer.disconnect();
    if (parked()) target.focus();
  });
  observer.observe(target, { attributes: true, attributeFilter: ['disabled'] });
  setTimeout(() => observer.disconnect(), WAIT_FOR_ENABLED_MS);
}
