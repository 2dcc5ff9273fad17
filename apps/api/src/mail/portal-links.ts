/**
 * Links in mails point at the portal of the recipient's reseller: its primary custom domain when it has one
 * (https://<domain> + the path of the configured public URL, i.e. the base path), else the public URL itself.
 * TLS on a custom domain is the reverse proxy's job (docs/custom-domains.md), so such links are always https.
 */
export function portalRootFor(portalUrl: string, primaryHost: string | null): string {
  if (!primaryHost) return portalUrl.replace(/\/+$/, '');
  const path = new URL(portalUrl).pathname.replace(/\/+$/, '');
  return `https://${primaryHost}${path}`;
}

/** A mailed link to `path` of the recipient's portal, with `query`. */
export function portalLink(
  portalUrl: string,
  primaryHost: string | null,
  path: string,
  query: Record<string, string | number>,
): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  return `${portalRootFor(portalUrl, primaryHost)}${path}${search ? `?${search}` : ''}`;
}
