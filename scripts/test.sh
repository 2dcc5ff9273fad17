#!/usr/bin/env bash
# The one test command: type-check, lint (ESLint + Prettier), build the portal, then unit, API (PGlite and PostgreSQL) and
# browser tests. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run typecheck
npm run lint
npm run build
npx vitest run "$@"
