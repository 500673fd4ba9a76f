#!/usr/bin/env bash
# Code health, checked by make test: swift-format's lint with the committed .swift-format (fix with
# `make format`), tests that assert, one error shape (scripts/code-health.py).
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests Fuzz/Package.swift Fuzz/Sources Benchmarks/Package.swift Benchmarks/Benchmarks)
if ! swift format lint --strict -r "${paths[@]}"; then
  echo "code-health: swift-format found lines to change; run 'make format' and commit" >&2
  exit 1
fi
echo "code-health: swift-format lint clean (${paths[*]})"
python3 scripts/code-health.py .
# docs/architecture.md's module map is Package.swift's; imports and dependencies agree; no public
# outside the library products (scripts/architecture-map.py).
python3 scripts/architecture-map.py --check
