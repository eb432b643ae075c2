#!/usr/bin/env bash
# Runs the tests that read the real wall clock at chosen instants, so a test that only passes at
# some times of day (or on some dates) fails here instead of in the CI run that happens to start
# at 21:00 or cross midnight. Most tests cannot: their servers run on a ManualClock pinned to
# 2026-01-05 09:00 UTC (test/helpers/start.ts). These can, so they are what it runs by default:
#   - files that start the built bin (`svc-server start`), whose sandbox clock is the real time
#     plus the offset the test moves it by (three instances behind nginx, crash recovery, ...);
#   - files that make a ManualClock from the real time (they talk to platform fakes that check
#     token expiry against the real clock);
#   - the examples' tests that run on the real time: a server on `systemClock` (commerce checkout,
#     live UCP, the webhook receiver, which checks signature timestamps against its own clock), or
#     the built bin the quick starts' harness starts. The examples on a ManualClock (the weekly
#     plan, the MCP agent, live-local) are pinned like the server's tests and are left out.
#
# Usage: scripts/clock-sweep.sh [INSTANT...] [-- vitest arguments]
#   INSTANT is a UTC date and time `date -d` reads; default: just before midnight UTC and 21:30
#   UTC today (a test that moves a clock 3 hours from there lands on the next day).
#   SVC_TEST_DATABASE=postgres runs the PostgreSQL pass (then the `*.postgres.test.ts` files too).
#   Example: scripts/clock-sweep.sh '2026-12-31 23:58:30' '2026-03-08 06:58' -- --project server
#
# It needs Debian's faketime (`apt-get install faketime`). Every process (vitest, its workers,
# the servers they start, nginx) is moved by ONE offset from the real time: faketime's `@instant`
# form would start each process's clock at the instant when that process starts, so a server
# restarted by a test would go back in time (crash recovery then finds nothing "older" than its
# start) and the run reports failures no real clock can produce. Timers and performance.now stay
# real (FAKETIME_DONT_FAKE_MONOTONIC=1). nginx (the 3-instance test's load balancer) keeps the
# real time: it only proxies, and under any forward offset (+10 minutes was enough) it never sent
# a request to an instance again once it had marked it failed, so the tests after a kill -9 saw
# two instances of three. PostgreSQL's own now() is not moved; svc never compares it with the
# process's clock (every time it stores comes from the injected clock).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v faketime >/dev/null 2>&1; then
  echo "clock-sweep: faketime is missing: sudo apt-get install faketime" >&2
  exit 1
fi

instants=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  instants+=("$1")
  shift
done
[ "${1:-}" = "--" ] && shift
if [ ${#instants[@]} -eq 0 ]; then
  today="$(date -u +%F)"
  instants=("$today 23:58:30" "$today 21:30:00")
fi

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  engine="${SVC_TEST_DATABASE:-sqlite}"
  other=postgres
  [ "$engine" = postgres ] && other=sqlite
  mapfile -t files < <(
    grep -rlE --exclude-dir=node_modules \
      "helpers/(cli|scale-out)\.js|dist/cli\.js|ManualClock\((new Date\(\)|Date\.now\(\))\)|systemClock|from '\./harness\.js'" \
      packages/server/test examples --include='*.test.ts' | grep -v "\.$other\.test\.ts$" | sort
  )
fi

failed=0
for instant in "${instants[@]}"; do
  offset=$(($(date -u -d "$instant" +%s) - $(date -u +%s)))
  sign=+
  [ "$offset" -lt 0 ] && sign=
  printf '\n=== clock-sweep at %s UTC (offset %ss): %s\n' "$instant" "$offset" "${files[*]}"
  if ! FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_SKIP_CMDS=nginx faketime -f "$sign${offset}s" node_modules/.bin/vitest run "${files[@]}"; then
    failed=1
    echo "clock-sweep: FAILED at $instant UTC" >&2
  fi
done
exit "$failed"
