#!/usr/bin/env bash
# Puts in node_modules the better-sqlite3 binary built for the `node` first on PATH.
#
# better-sqlite3 is a native addon compiled against one Node ABI (process.versions.modules), so
# running the suite on Node 24 after installing with Node 20 needs another build, and going back
# to Node 20 needs the first one again. Each build is kept in .cache/better-sqlite3/<key>/:
#
#   scripts/sqlite-for-node.sh                          # on Node 20: keeps its working build
#   PATH="$(scripts/node24.sh):$PATH" scripts/sqlite-for-node.sh   # builds for Node 24 (~2 min once)
#   scripts/sqlite-for-node.sh                          # on Node 20 again: puts its build back
#
# `--prepare` builds and keeps without touching node_modules (to build while tests still run).
#
# The build happens in a copy of the package, against the headers of that Node
# (npm_config_nodedir), never in node_modules itself: pnpm hard-links package files from a
# store that other checkouts share, so the one file we swap is always removed, then written anew.
#
# Node 24.19 put environment cleanup hooks into node::ObjectWrap, which is compiled into the
# addon from the headers; every 24.x runtime then aborts at exit when a Statement is collected
# after its environment is gone ("RemoveEnvironmentCleanupHook … Assertion failed: (env) !=
# nullptr", nodejs/node#65446, open; better-sqlite3 12 has no fix, 13 is not for us). So for
# Node 24 the addon is built against the headers of 24.18.1, the last release without them: the
# same ABI, run on the newest 24.x.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SVC_SQLITE_CACHE:-$root/.cache/better-sqlite3}"
pkg="$(cd "$root/packages/server" && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
installed="$pkg/build/Release/better_sqlite3.node"
abi="$(node -p process.versions.modules)"

nodedir="${npm_config_nodedir:-}"
if [ -z "$nodedir" ] && [ "$(node -p 'process.versions.node.split(".")[0]')" = 24 ]; then
  nodedir="$(dirname "$(NODE24_VERSION=24.18.1 SVC_NODE24_CACHE="$root/.cache/node24-headers" "$root/scripts/node24.sh")")"
fi
# The key says which headers a build used, so a build against other headers is never reused.
key="$abi${nodedir:+-$(sed -n 's/^#define NODE_\(MAJOR\|MINOR\|PATCH\)_VERSION \([0-9]*\).*/\2/p' "$nodedir/include/node/node_version.h" | paste -sd.)}"
kept="$cache/$key/better_sqlite3.node"

loads() { # Does `node` load the binary in node_modules and open a database with it?
  (cd "$root/packages/server" && node -e 'new (require("better-sqlite3"))(":memory:").close()') >/dev/null 2>&1
}

if [ ! -f "$kept" ]; then
  mkdir -p "$cache/$key"
  if [ -z "$nodedir" ] && [ -f "$installed" ] && loads; then
    cp "$installed" "$kept.tmp"
  else
    if [ -z "$nodedir" ]; then
      nodedir="$(dirname "$(dirname "$(command -v node)")")"
      if [ ! -f "$nodedir/include/node/node.h" ] && [ -f /usr/include/node/node.h ]; then nodedir=/usr; fi
    fi
    gyp="$(dirname "$(dirname "$(command -v npm)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"
    [ -f "$gyp" ] || gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    cp -R "$pkg/." "$work/"
    rm -rf "$work/build"
    echo "building better-sqlite3 for Node $(node --version) (ABI $abi) against $nodedir/include/node" >&2
    # The compiler's output only when it fails: a good build is one line in a CI log.
    if ! (cd "$work" && node "$gyp" rebuild --release --nodedir="$nodedir" --jobs="$(nproc 2>/dev/null || echo 2)") >"$work/build.log" 2>&1; then
      cat "$work/build.log" >&2
      exit 1
    fi
    cp "$work/build/Release/better_sqlite3.node" "$kept.tmp"
  fi
  mv "$kept.tmp" "$kept"
fi
[ "${1:-}" = --prepare ] && exit 0

if ! cmp -s "$kept" "$installed"; then
  rm -f "$installed"
  cp "$kept" "$installed"
fi
loads || { echo "better-sqlite3 in $pkg does not load on Node $(node --version)" >&2; exit 1; }
echo "better-sqlite3: Node $(node --version) build ($key) in place" >&2
