#!/usr/bin/env bash
# make test's security suite: vigil simulate over every scenario, then its JUnit report checked
# (one testcase per scenario, no failure, skipped = known gaps). Usage: scripts/simulate-check.sh VIGIL
set -euo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/debug/vigil}
mkdir -p results
REPORT=results/simulate.xml
rm -f "$REPORT"
status=0
"$VIGIL" simulate --junit "$REPORT" || status=$?
if [ ! -s "$REPORT" ]; then
  echo "simulate-check: no JUnit report was written (exit $status)" >&2
  exit 1
fi
scenarios=$("$VIGIL" simulate --list | wc -l)
testcases=$(grep -c '<testcase ' "$REPORT" || true)
failures=$(grep -c '<failure ' "$REPORT" || true)
skipped=$(grep -c '<skipped ' "$REPORT" || true)
gaps=$(grep -c '"outcome"' mitm-fixtures/known-gaps.json || true)
echo "simulate-check: $testcases testcases for $scenarios scenarios, $failures failures, $skipped known gaps ($gaps listed)"
if [ "$status" -ne 0 ] || [ "$testcases" -ne "$scenarios" ] || [ "$failures" -ne 0 ] || [ "$skipped" -ne "$gaps" ]; then
  echo "simulate-check: FAILED (exit $status)" >&2
  exit 1
fi
