/**
 * The console page the portal frames: the machine's text console. Like a terminal it opens at the bottom
 * (a column-reverse scroller: no script, which the CSP would refuse).
 */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE =
  'html,body{margin:0;height:100%;background:#0b1120;color:#d1fae5}.screen{height:100%;overflow:auto;display:flex;flex-direction:column-reverse}' +
  'pre{margin:0;padding:16px;font:13px/1.45 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap}';

export function consolePage(name: string, text: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(name)} console</title><style>${STYLE}</style></head>` +
    `<body><div class="screen"><pre id="console">${escapeHtml(text)}<span>█</span></pre></div></body></html>`
  );
}

export const EXPIRED_CONSOLE_PAGE =
  '<!doctype html><p>This console link has expired. Open the console again from the portal.</p>';
