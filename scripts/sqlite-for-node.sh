#!/usr/bin/env bash
# Puts in node_modules the better-sqlite3 binary built for the `node` first on PATH.
#
# better-sqlite3 is a native addon compiled against one Node ABI (process.versions.modules), so
# running the suite on Node 24 after installing with Node 20 needs another build, and going back
# to Node 20 needs the first one again. Each build is kept in .cache/better-sqlite3/<abi>/:
#
#   scripts/sqlite-for-node.sh                          # on Node 20: keeps its working build
#   PATH="$(scripts/node24.sh):$PATH" scripts/sqlite-for-node.sh   # builds for Node 24 (~2 min once)
#   scripts/sqlite-for-node.sh                          # on Node 20 again: puts its build back
#
# The build happens in a copy of the package, against the headers beside that node
# (npm_config_nodedir), never in node_modules itself: pnpm hard-links package files from a
# store that other checkouts share, so the one file we swap is always removed, then written anew.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SVC_SQLITE_CACHE:-$root/.cache/better-sqlite3}"
pkg="$(cd "$root/packages/server" && node -p 'require("node:path").dirname(require.resolve("better-sqlite3/package.json"))')"
installed="$pkg/build/Release/better_sqlite3.node"
abi="$(node -p process.versions.modules)"
kept="$cache/$abi/better_sqlite3.node"

loads() { # Does `node` load the binary in node_modules and open a database with it?
  (cd "$root/packages/server" && node -e 'new (require("better-sqlite3"))(":memory:").close()') >/dev/null 2>&1
}

if [ ! -f "$kept" ]; then
  mkdir -p "$cache/$abi"
  if [ -f "$installed" ] && loads; then
    cp "$installed" "$kept.tmp"
  else
    prefix="$(dirname "$(dirname "$(command -v node)")")"
    nodedir="${npm_config_nodedir:-$prefix}"
    if [ ! -f "$nodedir/include/node/node.h" ] && [ -f /usr/include/node/node.h ]; then nodedir=/usr; fi
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

if ! cmp -s "$kept" "$installed"; then
  rm -f "$installed"
  cp "$kept" "$installed"
fi
loads || { echo "better-sqlite3 in $pkg does not load on Node $(node --version)" >&2; exit 1; }
echo "better-sqlite3: Node $(node --version) build (ABI $abi) in place" >&2
