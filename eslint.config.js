// @ts-check
/**
 * Lint: typescript-eslint (type-aware where it pays), react-hooks, and the import boundaries of
 * docs/architecture.md, written as `no-restricted-imports` patterns per layer so a wrong arrow fails
 * `npm test`. Formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
 */
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The API's modules (modules/<area>/); `access` is the shared permission layer every module may use. */
const apiModules = readdirSync(new URL('./apps/api/src/modules', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const webFeatures = readdirSync(new URL('./apps/web/src/features', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** @param {string[]} group @param {string} message */
const forbid = (group, message) => ['error', { patterns: [{ group, message }] }];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'apps/api/src/db/migrations/**',
      'bench/results/**',
      'docs/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  // `any` is for tests only (ARCHITECTURE.md).
  {
    files: ['**/*.test.ts', '**/*.e2e.ts', 'apps/api/test/**', 'e2e/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  // ---- layers of the API: lib and plugins sit below the modules ----
  {
    files: [
      'apps/api/src/lib/**',
      'apps/api/src/plugins/**',
      'apps/api/src/db/**',
      'apps/api/src/providers/**',
      'apps/api/src/mail/**',
    ],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/modules/**', '**/engine/**'],
        'lib/, plugins/, db/, providers/ and mail/ sit below the engine and modules/: pass what they need in instead.',
      ),
    },
  },
  // The engine (engine/) drives the machines for every module and imports none of them (tests included: their
  // fixtures from other modules come through apps/api/test/).
  {
    files: ['apps/api/src/engine/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/modules/**'],
        'engine/ imports nothing of modules/: a module asks the engine through ModuleDeps `engine`.',
      ),
    },
  },
  // A module imports modules/module.ts, modules/access/, its own folder, engine/, lib/, db/, providers/, mail/ and
  // plugins/ - never another module. What two modules share is a ModuleDeps service (built in app.ts), the engine,
  // or SQL in db/; tests take other modules' parts through apps/api/test/module-parts.ts.
  ...apiModules
    .filter((m) => m !== 'access')
    .map((mod) => ({
      files: [`apps/api/src/modules/${mod}/**`],
      rules: {
        'no-restricted-imports': forbid(
          apiModules
            .filter((m) => m !== mod && m !== 'access')
            .flatMap((m) => [`**/modules/${m}/**`, `../${m}/**`, `../../${m}/**`]),
          `A module imports no other module (docs/architecture.md): use ModuleDeps, the engine or db/.`,
        ),
      },
    })),
  // modules/access/ is below every module: it imports none of them.
  {
    files: ['apps/api/src/modules/access/**'],
    rules: {
      'no-restricted-imports': forbid(
        apiModules.filter((m) => m !== 'access').flatMap((m) => [`**/modules/${m}/**`, `../${m}/**`]),
        'modules/access/ is shared by every module and imports none of them.',
      ),
    },
  },
  // The contract is shared by server and portal: it imports neither.
  {
    files: ['packages/contract/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/apps/**', '@portal/api*', 'react', 'fastify'],
        'The contract depends on nothing of the apps.',
      ),
    },
  },
  // The SDK and the CLI are clients of the API: the contract (and the SDK) only; their tests start the real server.
  {
    files: ['packages/sdk/**', 'packages/cli/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/apps/**', '@portal/api*', '@portal/web*', 'react', 'fastify'],
        'The SDK and the CLI talk to the API over HTTP: they import the contract, never the apps (docs/cli.md).',
      ),
    },
  },
  // ---- the portal: components and lib below features, features independent of each other and of app/ ----
  {
    files: ['apps/web/src/components/**', 'apps/web/src/lib/**'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/features/**', '**/app/**'],
        'components/ and lib/ are shared: they import no feature and not app/.',
      ),
    },
  },
  ...webFeatures.map((feature) => ({
    files: [`apps/web/src/features/${feature}/**`],
    rules: {
      'no-restricted-imports': forbid(
        [
          ...webFeatures
            .filter((f) => f !== feature)
            .flatMap((f) => [`**/features/${f}/**`, `../${f}/**`, `../../${f}/**`]),
          '**/app/**',
        ],
        `A feature imports neither another feature nor app/: move shared pieces to components/ or lib/.`,
      ),
    },
  })),
  prettier,
);
