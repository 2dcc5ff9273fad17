#!/usr/bin/env bash
# The one test command: type-check, build the portal, then unit, API (PGlite and PostgreSQL) and
# browser tests. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run typecheck
npm run build
npx vitest run "$@"
