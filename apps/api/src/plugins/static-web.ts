/**
 * Serves the built portal under BASE_PATH with a SPA fallback. index.html gets the runtime config
 * (base href + API path) injected, so one build works under any base path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ACCENT_PATTERN, accentVariables } from '@portal/contract/brand-colors';

export interface StaticWebOptions {
  distDir: string;
  basePath: string;
  apiBasePath: string;
  /** Serve the build's *.map files (off by default: they publish the portal's source). */
  serveSourceMaps?: boolean;
  /**
   * The brand of the portal at a host (a reseller's custom domain), put into index.html's title and icon so the
   * tab is right before any script runs; null keeps the build's defaults (SPEC point 1).
   */
  brandOf?: (
    host: string,
  ) => Promise<{ resellerName: string | null; tabLogoUrl: string | null; accentColor?: string | null } | null>;
  /** Called for each page sent (the portal's index.html): the session plugin's CSRF cookie, set before any script runs. */
  onPage?: (req: FastifyRequest, reply: FastifyReply) => void;
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function renderIndexHtml(template: string, opts: { basePath: string; apiBasePath: string }): string {
  const base = opts.basePath.endsWith('/') ? opts.basePath : `${opts.basePath}/`;
  const config = JSON.stringify({ basePath: opts.basePath, apiBasePath: opts.apiBasePath });
  return template.replace(
    '<!--PORTAL_CONFIG-->',
    `<base href="${escapeAttr(base)}"><meta name="portal-config" content='${escapeAttr(config)}'>`,
  );
}

const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** index.html with a reseller's tab title and icon in place of the defaults (same length of work either way). */
export function brandIndexHtml(
  html: string,
  brand: { resellerName: string | null; tabLogoUrl: string | null; accentColor?: string | null },
): string {
  let out = html;
  // Replacer functions: a `$` in a name or URL is text, not a replacement pattern.
  const { resellerName, tabLogoUrl, accentColor } = brand;
  // The reseller's accent (docs/branding.md) before any script runs: no flash of the portal's blue. Last in <head>,
  // after the stylesheet, so it wins over the theme's defaults; only a checked #rrggbb ever reaches the page.
  if (accentColor && ACCENT_PATTERN.test(accentColor)) {
    const vars = Object.entries(accentVariables(accentColor))
      .map(([name, value]) => `${name}:${value}`)
      .join(';');
    out = out.replace('</head>', () => `<style>:root{${vars}}</style></head>`);
  }
  if (resellerName) out = out.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeText(resellerName)}</title>`);
  if (tabLogoUrl)
    out = out.replace(/(<link\s+rel="icon"[^>]*?\shref=")[^"]*(")/, (_m, open: string, close: string) => {
      return `${open}${escapeAttr(tabLogoUrl)}${close}`;
    });
  return out;
}

export async function registerStaticWeb(app: FastifyInstance, opts: StaticWebOptions): Promise<boolean> {
  const indexFile = join(opts.distDir, 'index.html');
  if (!existsSync(indexFile)) {
    app.log.warn(`web app not built (${indexFile} missing): run "npm run build" to serve the portal`);
    return false;
  }
  const html = renderIndexHtml(readFileSync(indexFile, 'utf8'), opts);
  const prefix = opts.basePath.endsWith('/') ? opts.basePath : `${opts.basePath}/`;
  if (!opts.serveSourceMaps) {
    app.addHook('onRequest', (req, reply, done) => {
      const path = req.url.split('?')[0] ?? '';
      if (path.startsWith(prefix) && path.endsWith('.map')) {
        reply.callNotFound();
        return;
      }
      done();
    });
  }
  // preCompressed: the build writes .br and .gz beside each asset; the one the browser accepts is sent.
  await app.register(fastifyStatic, {
    root: opts.distDir,
    prefix,
    index: false,
    wildcard: false,
    cacheControl: false,
    preCompressed: true,
    setHeaders: (res: FastifyReply, path: string) => {
      // Hashed assets are immutable; everything else is revalidated.
      res.header(
        'cache-control',
        path.includes(`${join('dist', 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  const sendIndex = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '';
    // Unknown API paths and missing files are 404s, not the portal's page.
    if (path.startsWith(`${opts.apiBasePath}/`) || /\.[a-z0-9]+$/i.test(path)) return reply.callNotFound();
    // The page must load even when the brand cannot be read (database down): then with the build's defaults.
    const brand = opts.brandOf
      ? await opts.brandOf(req.host).catch((err: unknown) => {
          req.log.warn({ err }, 'brand of host unavailable; serving the default page');
          return null;
        })
      : null;
    opts.onPage?.(req, reply);
    return reply
      .type('text/html')
      .header('cache-control', 'no-cache')
      .send(brand ? brandIndexHtml(html, brand) : html);
  };
  app.get(prefix, sendIndex);
  app.get(`${prefix}*`, sendIndex);
  return true;
}
