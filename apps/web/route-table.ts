/**
 * The portal's route table without its schemas (issue #12, first-load weight). At run time the portal needs
 * only each route's method and path; the zod schemas of every request and answer (zod plus the whole contract,
 * ~40 KB gzip) are for types, which the compiler takes from the real `@portal/contract/routes`. This plugin
 * serves that import, in the build and the dev server, as a module generated from the real table, so the two
 * cannot drift. Reading a schema from it (`routes.x.y.body`) throws: import the schema from its contract module.
 */
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import type { Plugin } from 'vite';
import type { RouteDef } from '@portal/contract/common';
import type * as RoutesModule from '@portal/contract/routes';

const SPECIFIER = '@portal/contract/routes';
const VIRTUAL_ID = '\0portal-route-table';
const PATHS_MODULE = fileURLToPath(new URL('../../packages/contract/src/paths.ts', import.meta.url));

/** The module's source: `routes` with `{ method, path }` per route, `allRoutes` and `buildPath`. */
export async function clientRouteTableSource(): Promise<string> {
  // Vite's config loader leaves workspace TypeScript to Node, which cannot load it: tsx does.
  const { routes } = (await tsImport('@portal/contract/routes', import.meta.url)) as typeof RoutesModule;
  const table = Object.fromEntries(
    Object.entries(routes).map(([group, defs]) => [
      group,
      Object.fromEntries(
        Object.entries(defs as Record<string, RouteDef>).map(([name, def]) => [
          name,
          { method: def.method, path: def.path },
        ]),
      ),
    ]),
  );
  return `import { buildPath } from ${JSON.stringify(PATHS_MODULE)};
export { buildPath };
const SCHEMAS = ['params', 'query', 'body', 'data'];
function schemaless(entry, name) {
  for (const key of SCHEMAS) {
    Object.defineProperty(entry, key, {
      get() {
        throw new Error('The portal\\'s route table has no schemas (' + name + '.' + key + '): import the schema from its contract module.');
      },
    });
  }
  return Object.freeze(entry);
}
const table = ${JSON.stringify(table)};
for (const [group, defs] of Object.entries(table)) {
  for (const [name, entry] of Object.entries(defs)) defs[name] = schemaless(entry, group + '.' + name);
}
export const routes = table;
export function allRoutes() {
  return Object.values(routes).flatMap((group) => Object.values(group));
}
`;
}

export function routeTable(): Plugin {
  return {
    name: 'portal-route-table',
    enforce: 'pre',
    resolveId: (source) => (source === SPECIFIER ? VIRTUAL_ID : null),
    load: async (id) => (id === VIRTUAL_ID ? await clientRouteTableSource() : null),
  };
}
