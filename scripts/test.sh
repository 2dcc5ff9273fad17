#!/usr/bin/env bash
# The one test command: type-check, lint (ESLint + Prettier) and build the portal (side by side), then unit, API (PGlite
# and PostgreSQL) and browser tests. Exits non-zero when anything fails.
#
# With arguments (a file filter, --project …) it is one `vitest run` with them. Without, the projects run in three
# lanes (docs/testing.md): the tests on the private libvirtd (guests under TCG, and the one browser test on a guest:
# e2e-libvirt) in one Vitest process, the real Debian guest's file in a second, beside a third that runs the unit and
# API files two at a time and then the browser tests three at a time: each leaves a core idle much of the time, so
# side by side they fill both.
set -euo pipefail
cd "$(dirname "$0")/.."

# The whole suite as root (the libvirt tests run): the Debian guest image (1.5-5 min when its cache is cold) builds
# beside the type-check, lint and build. build-debian.sh takes a lock, so the test that
# needs the image waits for this build rather than making a second; if this one fails (its log:
# test-results/guest-image-build.log), that test builds it again and says why. Not niced: the Debian guest's lane
# waits for it (at nice 10 beside three busy lanes it took 912 s instead of ~100-270 s).
# It runs in a process group of its own, so that a failed type-check, lint or build (or an interrupted run) stops it
# with everything it started (mmdebstrap, apt, dpkg in the chroot) instead of leaving them running.
build_group=
if [ $# -eq 0 ] && [ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null; then
  mkdir -p test-results
  setsid bash scripts/guest-image/build-debian.sh > test-results/guest-image-build.log 2>&1 &
  build_group=$!
fi
stop_build() { if [ -n "$build_group" ]; then kill -TERM -- "-$build_group" 2>/dev/null || true; fi; }
trap stop_build EXIT

# Type-check, lint and build side by side: each is one process on about one core (together ~100 s one after another,
# on a machine whose other core only waits on the image build's downloads). Each one's output is printed whole, in
# this order, once all three are done; the run stops if one failed.
checks="$(mktemp -d)"
for step in typecheck lint build; do
  npm run "$step" > "$checks/$step.log" 2>&1 &
  echo $! > "$checks/$step.pid"
done
checks_failed=0
for step in typecheck lint build; do
  if wait "$(cat "$checks/$step.pid")"; then result=passed; else result=FAILED; checks_failed=1; fi
  echo "── npm run $step: $result"
  cat "$checks/$step.log"
done
rm -rf "$checks"
[ "$checks_failed" = 0 ] || exit 1
echo "── type-check, lint and build: ${SECONDS} s"
if [ $# -gt 0 ]; then
  exec npx vitest run "$@"
fi

# Three lanes side by side (docs/testing.md, "Three lanes" and session 22): the real Debian guest's file on a libvirtd
# of its own; the other tests on the private libvirtd (TCG guests, one file at a time); the unit and API files (two at
# a time), then every browser test, three files at a time. None fills two cores alone; the browser tests, the longest
# chain, start as soon as the API files are done and take up whatever the libvirt lanes leave, to the end.
start=$SECONDS
pids=()
# The PGlite snapshots every file's database starts from, made once for the three lanes' Vitest processes
# (apps/api/test/global-pglite.ts) instead of once in each.
IRONTECH_TEST_TEMPLATES_DIR="$(mktemp -d /tmp/irontech-test-templates.XXXXXX)"
export IRONTECH_TEST_TEMPLATES_DIR
# Each Vitest process notes how long its files took (apps/api/test/file-durations-reporter.ts): what
# scripts/file-durations/merge.ts makes the next runs' order from (longest first).
export IRONTECH_FILE_DURATIONS_DIR=test-results/file-durations
rm -rf "$IRONTECH_FILE_DURATIONS_DIR"
trap 'kill "${pids[@]}" 2>/dev/null || true; stop_build; rm -rf "$IRONTECH_TEST_TEMPLATES_DIR"' EXIT INT TERM
# A lane's end: its wall time and the CPU its own processes have used (Vitest, its workers, the portals, Chromium; not
# the guests, the libvirt daemons or the PostgreSQL cluster, which run apart): the children's line of bash's `times`,
# taken in the lane's shell itself (a command substitution would be a child without children).
lane_done() {
  local note="$IRONTECH_TEST_TEMPLATES_DIR/times.$BASHPID"
  times > "$note"
  echo "$1: $((SECONDS - start)) s ($(tail -1 "$note" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%.0f", t }') core-s of CPU so far)"
}
(
  failed=0
  npx vitest run --project libvirt-debian || failed=1
  lane_done "The Debian guest's tests"
  exit $failed
) &
pids+=($!)
(
  failed=0
  npx vitest run --project libvirt --project libvirt-postgres --project e2e-libvirt || failed=1
  lane_done "The other libvirt tests"
  exit $failed
) &
pids+=($!)
(
  # The browser tests run even when an API file failed: one run reports every failure.
  failed=0
  npx vitest run --project unit --project api-pglite --project api-postgres || failed=1
  lane_done "Unit and API tests"
  # Three browser files at a time: two left 15-45% of the machine idle once the libvirt lanes were done (ci18); four
  # (session 24) left less idle but cost more CPU for the same work (ci22: 3,311 busy core-s against ci21's 2,919 with
  # three) and starved the guests on CI (stop 39: restores of 409-500 s, a busybox start past 120 s; docs/testing.md,
  # session 25).
  IRONTECH_E2E_PARALLEL=1 npx vitest run --project e2e --project e2e-embedded --maxWorkers=3 || failed=1
  lane_done "Unit, API and browser tests"
  exit $failed
) &
pids+=($!)
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
trap - EXIT INT TERM
rm -rf "$IRONTECH_TEST_TEMPLATES_DIR"
echo "All tests (three lanes side by side): $((SECONDS - start)) s"
exit $status
