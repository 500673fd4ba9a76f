#!/usr/bin/env bash
# Builds both executables: vigil (the client) and vigil-simulator (the host simulator and the
# security suite, which vigil runs from beside itself). $1: debug (default) or release, the release
# build linking the Swift runtime statically, as `make install` ships it.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-debug}
FLAGS=(-c "$CONFIG")
[ "$CONFIG" = release ] && FLAGS+=(--static-swift-stdlib)
for product in vigil vigil-simulator; do
  ${SWIFT:-swift} build "${FLAGS[@]}" --product "$product"
done
