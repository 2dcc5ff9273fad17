/**
 * Whether a typed logo URL loads as an image in this browser (issue 25 defect 7). The check runs here, not on the
 * server: the portal never fetches a tenant's URL (SSRF; ARCHITECTURE habit 13). The page's CSP applies too, so an
 * address the portal could not show is refused as well.
 */
export function imageLoads(url: string, timeoutMs = 10_000): Promise<boolean> {
  return new Promise((resolve) => {
    const img = new Image();
    const timer = window.setTimeout(() => done(false), timeoutMs);
    function done(ok: boolean) {
      window.clearTimeout(timer);
      img.onload = null;
      img.onerror = null;
      resolve(ok);
    }
    img.onload = () => done(true);
    img.onerror = () => done(false);
    img.src = url;
  });
}
