#!/usr/bin/env bash
# Measures which API files the PGlite run needs (shapes.ts says how): one api-postgres run on a cluster of its own that
# logs every statement, the harness noting which file each database belongs to, then the cover. Prints the lists for
# vitest.config.ts (POSTGRES_COVERS_ALONE). Takes as long as the api-postgres project (~4-7 min on 2 cores).
#
# Usage: bash scripts/pglite-set/run.sh   (from the repository's root; as root, the server runs as `postgres`)
set -euo pipefail
cd "$(dirname "$0")/../.."
work="$(mktemp -d /tmp/pglite-set.XXXXXX)"
chmod 777 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
bin=/usr/lib/postgresql/15/bin
for v in 17 16; do [ -x "/usr/lib/postgresql/$v/bin/initdb" ] && bin="/usr/lib/postgresql/$v/bin" && break; done
port=$((56432 + RANDOM % 1000))
as_pg "$bin/initdb" -D "$work/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
cat >> "$work/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = '127.0.0.1'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
log_statement = 'all'
log_line_prefix = '@%d@%a@ '
CONF
as_pg "$bin/pg_ctl" -D "$work/data" -l "$work/statements.log" -w start >/dev/null
trap 'as_pg "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true' EXIT
DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres" TEST_DATABASE_LOG="$work/databases.tsv" \
  npx vitest run --project api-postgres --reporter=dot --reporter=json --outputFile.json="$work/report.json" ||
  echo "(some files failed: their statements count all the same)" >&2
# Kept on PGlite whatever they send: the embedded engine's smoke path, and files that test a path the product takes
# differently without a listening connection (the in-process live stream, the session cache's own invalidation and
# what one instance alone does where two share PostgreSQL).
keep=(
  apps/api/src/modules/virtual-machines/vm.test.ts
  apps/api/src/modules/virtual-machines/vm-events.test.ts
  apps/api/src/modules/auth/session-cache.test.ts
  apps/api/src/modules/auth/account.test.ts
  apps/api/src/modules/api-tokens/api-tokens.test.ts
  apps/api/src/modules/virtual-machines/multi-instance.test.ts
  apps/api/src/modules/virtual-machines/backup-schedules.test.ts
)
args=()
for f in "${keep[@]}"; do args+=(--keep "$f"); done
node --import tsx scripts/pglite-set/shapes.ts "$work/statements.log" "$work/databases.tsv" "$work/report.json" "${args[@]}"
echo "(logs kept in $work)" >&2
