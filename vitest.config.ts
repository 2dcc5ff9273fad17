import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './apps/api/test/longest-first-sequencer.ts';

/** The libvirt tests share one private libvirtd (apps/api/test/libvirt-daemon.ts): they run one file at a time. */
const LIBVIRT_DAEMON_PGLITE = [
  'apps/api/src/providers/libvirt/libvirt.test.ts',
  'apps/api/src/providers/libvirt/reseller-ssh-host.test.ts',
  // Two libvirtd of its own (in namespaces, beside the shared one): a cold move between hosts (docs/draining.md).
  'apps/api/src/providers/libvirt/libvirt-move.test.ts',
  // Backups (decision 0022): whole qcow2 copies in a backup pool, proven at the disk level.
  'apps/api/src/providers/libvirt/libvirt-backups.test.ts',
  // Backup verification's throwaway boot on the busybox fixture (decision 0024): proven to a lease, an unbootable copy.
  'apps/api/src/providers/libvirt/libvirt-backup-verify.test.ts',
];
const LIBVIRT_DAEMON_POSTGRES = [
  'apps/api/src/providers/libvirt/libvirt-vm.test.ts',
  'apps/api/src/providers/libvirt/libvirt-console.test.ts',
];
/**
 * The real Debian 12 image through the portal (issue 23's Tests): one VM, eight TCG boots (docs/testing.md), the
 * longest file. On a libvirtd of its own (a mount namespace, the machine's network: libvirt-namespaced-daemon.ts), so
 * it runs in a Vitest process of its own beside the other libvirt files rather than before them (scripts/test.sh).
 */
const LIBVIRT_DEBIAN = ['apps/api/src/providers/libvirt/libvirt-debian.test.ts'];

/** Browser tests on a guest of the private libvirtd: the live console. */
const E2E_ON_LIBVIRTD = ['e2e/console.e2e.ts'];

/**
 * Browser tests whose portal runs on the embedded PGlite, as `npm start`'s does: a sign-in and a VM's life through the
 * screens. The others run on the PostgreSQL cluster (a copy of its template per file): the screens send no SQL the API
 * files do not (the PGlite set below covers the portal's SQL on PGlite), and a file costs ~15-25% less CPU there
 * (session 23: 96-100 core-s against 110-137 for eight files, interleaved; docs/testing.md).
 */
const E2E_EMBEDDED = ['e2e/auth.e2e.ts', 'e2e/virtual-machines.e2e.ts'];

/** The browser projects' settings: Chromium against the running portal. */
const BROWSER_TESTS = {
  // One worker runs file after file without importing the portal again for each (12 files: 133 s against 146 s).
  isolate: false,
  testTimeout: 90_000,
  // Screens update asynchronously; give polled assertions time on a loaded 2-core machine.
  expect: { poll: { timeout: 10_000, interval: 50 } },
  // One browser-driven file at a time (each with its portal and Chromium: about a core's worth), unless
  // IRONTECH_E2E_PARALLEL=1: scripts/test.sh runs the browser tests three at a time (--maxWorkers=3) in one process
  // beside the libvirt lanes, so that whichever lane ends first leaves no core idle (docs/testing.md, sessions 22-25).
  fileParallelism: process.env.IRONTECH_E2E_PARALLEL === '1',
};

/**
 * API files that the PostgreSQL run covers alone (issue 22 item 7; docs/testing.md). Every SQL statement the portal's
 * code sends in them, reduced to its shape (tables, clauses, functions, operators and casts; not column lists or
 * values), is also sent by a file that still runs on PGlite: measured by scripts/pglite-set/run.sh (PostgreSQL's
 * statement log of a whole api-postgres run, one database per file; a test's own fixtures and checks are told apart
 * and left out: apps/api/test/test-side-db.ts; run it again when the suite changes much). None of them branches on the
 * engine (the in-process VM event stream does, so vm-events.test stays on both). The embedded engine's smoke path
 * stays on PGlite: server-start (a real first start), vm.test (sign-in, create, lifecycle) and vm-events.test (the
 * live stream).
 */
const POSTGRES_COVERS_ALONE = [
  'apps/api/src/cli/provider-settings-live.test.ts',
  'apps/api/src/engine/operations/runner.test.ts',
  'apps/api/src/engine/placement.test.ts',
  'apps/api/src/mail/mailer.test.ts',
  'apps/api/src/modules/auth/auth-input.test.ts',
  'apps/api/src/modules/auth/auth.test.ts',
  'apps/api/src/modules/auth/sign-in-hardening.test.ts',
  'apps/api/src/modules/auth/suspended-reset.test.ts',
  'apps/api/src/modules/billing/backup-storage-exact.test.ts',
  'apps/api/src/modules/billing/billing.test.ts',
  'apps/api/src/modules/billing/webhook-safety.test.ts',
  'apps/api/src/modules/branding/domain-races.test.ts',
  'apps/api/src/modules/catalog/catalog-input.test.ts',
  'apps/api/src/modules/catalog/host-uri-attacks.test.ts',
  'apps/api/src/modules/catalog/provider-settings.test.ts',
  'apps/api/src/modules/health/health.test.ts',
  'apps/api/src/modules/operator/first-admin.test.ts',
  'apps/api/src/modules/platform/branding-urls.test.ts',
  'apps/api/src/modules/teams/team-integrity.test.ts',
  'apps/api/src/modules/virtual-machines/backup-concurrency.test.ts',
  'apps/api/src/modules/virtual-machines/backups.test.ts',
  'apps/api/src/modules/virtual-machines/console-socket.test.ts',
  'apps/api/src/modules/virtual-machines/console-tokens.test.ts',
  'apps/api/src/modules/virtual-machines/create-form-sizes.test.ts',
  'apps/api/src/modules/virtual-machines/month-boundary.test.ts',
  'apps/api/src/modules/virtual-machines/quotas.test.ts',
  'apps/api/src/modules/virtual-machines/rebuild.test.ts',
  'apps/api/src/modules/virtual-machines/snapshots.test.ts',
  'apps/api/src/plugins/errors.test.ts',
  'apps/api/src/plugins/fast-serializer.test.ts',
  'apps/api/src/plugins/forwarded-host.test.ts',
  'apps/api/src/plugins/input-hardening.test.ts',
  'apps/api/src/plugins/no-store.test.ts',
  'apps/api/src/seed/seed.test.ts',
  'packages/cli/src/cli.test.ts',
  'packages/sdk/src/sdk.test.ts',
];

/** API files that open an in-memory PGlite of their own whatever the project: once, in api-pglite, is enough. */
const ENGINE_OF_THEIR_OWN = [
  'apps/api/src/db/data-dir.test.ts',
  'apps/api/src/engine/host-monitor.test.ts',
  'apps/api/src/lib/log-redaction.test.ts',
  'apps/api/src/lib/request-logging.test.ts',
  'apps/api/src/plugins/security-headers.test.ts',
  'apps/api/src/plugins/server-shell.test.ts',
  // The embedded database's one-process lock: a server on an on-disk PGlite and the operator CLI beside it.
  'apps/api/src/cli/operator-running-server.test.ts',
];

/**
 * Three depths (ARCHITECTURE.md habit 9): unit tests; API tests through the real server on PGlite and
 * again on a real PostgreSQL cluster; screens in Chromium against the running server.
 *
 * Two files at a time (Vitest's default outside watch mode is one less than the cores: one, on the two-core CI
 * machine), except in the projects that say `fileParallelism: false` — the browser tests (two cores, one server
 * each) and the tests that share the private libvirtd. Vitest runs those after the others, one file at a time.
 *
 * The unit and API projects say `isolate: false`: a worker imports the app once and runs file after file in it,
 * instead of importing it again for each file (251 s of the API phase's 569 s went to imports; docs/testing.md,
 * session 19). Each file still builds its own app, database and mail peer (apps/api/test/harness.ts); what the
 * modules keep between files is caches, listed in docs/testing.md, and a file that changes globals restores them.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    // Each project's files together, the longest first (longest-first-sequencer.ts); each Vitest process notes how
    // long its files took when scripts/test.sh asks (file-durations-reporter.ts).
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default', './apps/api/test/file-durations-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          isolate: false,
          include: [
            'packages/contract/src/**/*.test.ts',
            'apps/api/src/**/*.unit.test.ts',
            'apps/api/test/**/*.unit.test.ts',
            'apps/web/src/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'api-pglite',
          isolate: false,
          include: ['apps/api/src/**/*.test.ts'],
          // What only PostgreSQL has (a network to cut, LISTEN connections, a second connection to race) is tested
          // in api-postgres alone. Real guests through the portal (libvirt-vm: three boots, ~2 min; the console's
          // sockets: a boot of its own) do not depend on the engine: PostgreSQL runs them, where the console token's
          // single use also holds across instances. What they store goes through the repositories every simulator
          // test runs on both engines, console tokens are tested on both, and server-start starts
          // VM_PROVIDER=libvirt on the embedded PGlite.
          exclude: [
            'apps/api/src/**/*.unit.test.ts',
            'apps/api/src/lib/pg-listener.test.ts',
            'apps/api/src/plugins/database-outage.test.ts',
            'apps/api/src/modules/catalog/catalog-races.test.ts',
            'apps/api/src/modules/reseller-companies/reseller-races.test.ts',
            'apps/api/src/modules/branding/domain-races.test.ts',
            ...POSTGRES_COVERS_ALONE,
            ...LIBVIRT_DAEMON_PGLITE,
            ...LIBVIRT_DAEMON_POSTGRES,
            ...LIBVIRT_DEBIAN,
          ],
          provide: { pgUrl: null },
          globalSetup: ['apps/api/test/global-pglite.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'api-postgres',
          isolate: false,
          // The SDK and the CLI against the real server (docs/cli.md): what they send is every other API file's SQL,
          // so PostgreSQL alone runs them.
          include: ['apps/api/src/**/*.test.ts', 'packages/sdk/src/**/*.test.ts', 'packages/cli/src/**/*.test.ts'],
          // The libvirt driver test uses no database, and server-start tests the embedded PGlite start: once is enough.
          exclude: [
            'apps/api/src/**/*.unit.test.ts',
            'apps/api/src/server-start.test.ts',
            ...ENGINE_OF_THEIR_OWN,
            ...LIBVIRT_DAEMON_PGLITE,
            ...LIBVIRT_DAEMON_POSTGRES,
            ...LIBVIRT_DEBIAN,
          ],
          globalSetup: ['apps/api/test/global-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'libvirt',
          include: LIBVIRT_DAEMON_PGLITE,
          sequence: { groupOrder: 2 },
          provide: { pgUrl: null },
          globalSetup: ['apps/api/test/global-pglite.ts'],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'libvirt-postgres',
          include: LIBVIRT_DAEMON_POSTGRES,
          // First in its Vitest process (scripts/test.sh). Not 0: Vitest runs a one-at-a-time project of group 0 in a
          // group of its own after all the others.
          sequence: { groupOrder: 1 },
          globalSetup: ['apps/api/test/global-postgres.ts'],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'libvirt-debian',
          include: LIBVIRT_DEBIAN,
          globalSetup: ['apps/api/test/global-postgres.ts'],
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.ts'],
          exclude: [...E2E_ON_LIBVIRTD, ...E2E_EMBEDDED],
          ...BROWSER_TESTS,
          // The libvirt tests' guests weigh less while these run (guest-weight.ts).
          globalSetup: ['apps/api/test/global-postgres.ts', 'apps/api/test/global-browser.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e-embedded',
          include: E2E_EMBEDDED,
          ...BROWSER_TESTS,
          provide: { pgUrl: null },
          globalSetup: ['apps/api/test/global-pglite.ts', 'apps/api/test/global-browser.ts'],
        },
      },
      {
        extends: true,
        // The browser tests on the private libvirtd: they run with the libvirt projects (scripts/test.sh).
        test: {
          name: 'e2e-libvirt',
          include: E2E_ON_LIBVIRTD,
          ...BROWSER_TESTS,
          provide: { pgUrl: null },
          globalSetup: ['apps/api/test/global-pglite.ts'],
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
