/** Turns a contract route + params + query into a URL, for the test client. */
import type { RouteDef } from '@portal/contract/common';
import { buildPath } from '@portal/contract/routes';

export type { RouteDef };

export function buildRoute(
  route: RouteDef,
  params: Record<string, string | number> = {},
  query: Record<string, string | number | boolean | undefined> = {},
): { url: string } {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
  const path = buildPath(route.path, params);
  return { url: qs.size ? `${path}?${qs.toString()}` : path };
}
