import { TEXT } from '@portal/contract/messages';

/** Over the console frame while the tab's library (noVNC or xterm.js) loads: the page's own loading text. */
export function ConsoleLoading() {
  return (
    <div className="absolute inset-0 flex items-center justify-center bg-slate-950">
      <p>{TEXT.consoleLoading}</p>
    </div>
  );
}
