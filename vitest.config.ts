import { defineConfig } from 'vitest/config';

/**
 * Three depths (ARCHITECTURE.md habit 9): unit tests; API tests through the real server on PGlite and
 * again on a real PostgreSQL cluster; screens in Chromium against the running server.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'packages/contract/src/**/*.test.ts',
            'apps/api/src/**/*.unit.test.ts',
            'apps/web/src/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'api-pglite',
          include: ['apps/api/src/**/*.test.ts'],
          // What only PostgreSQL has (a network to cut, LISTEN connections) is tested in api-postgres alone. The
          // console's sockets through a real guest (a boot of its own) do not depend on the engine: PostgreSQL runs
          // them, where the token's single use also holds across instances; tokens are tested on both engines.
          exclude: [
            'apps/api/src/**/*.unit.test.ts',
            'apps/api/src/lib/pg-listener.test.ts',
            'apps/api/src/plugins/database-outage.test.ts',
            'apps/api/src/providers/libvirt/libvirt-console.test.ts',
          ],
          provide: { pgUrl: null },
        },
      },
      {
        extends: true,
        test: {
          name: 'api-postgres',
          include: ['apps/api/src/**/*.test.ts'],
          // The libvirt driver test uses no database, and server-start tests the embedded PGlite start: once is enough.
          exclude: [
            'apps/api/src/**/*.unit.test.ts',
            'apps/api/src/providers/libvirt/libvirt.test.ts',
            'apps/api/src/server-start.test.ts',
          ],
          globalSetup: ['apps/api/test/global-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          provide: { pgUrl: null },
          testTimeout: 90_000,
          // Screens update asynchronously; give polled assertions time on a loaded 2-core machine.
          expect: { poll: { timeout: 10_000, interval: 50 } },
          // One browser-driven file at a time: two cores, one server.
          fileParallelism: false,
        },
      },
    ],
  },
});
