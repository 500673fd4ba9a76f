#!/usr/bin/env bash
# Runs the x509-limbo suite through `vigil conformance limbo` and scores it with the suite's own
# scorer. Fails on any false accept or fewer than 199 passed, and on any difference between two
# runs in separate processes (each with its own hash seed): a verdict is a function of its inputs.
# Without ../shared/ it says it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/debug/vigil}
SUITE=${VIGIL_LIMBO_DIR:-../shared/conformance/x509-limbo}
MIN_PASSED=199
if [ ! -f "$SUITE/limbo.json" ] || [ ! -f "$SUITE/score.py" ]; then
  echo "x509-limbo: SKIPPED this suite: $SUITE/limbo.json not found (CI provides ../shared/ beside the clone)."
  exit 0
fi
mkdir -p results
"$VIGIL" conformance limbo < "$SUITE/limbo.json" > results/limbo-results.json
"$VIGIL" conformance limbo < "$SUITE/limbo.json" > results/limbo-results-again.json
if ! cmp -s results/limbo-results.json results/limbo-results-again.json; then
  echo "x509-limbo: FAIL, two runs in separate processes gave different results:"
  diff <(tr '{' '\n' < results/limbo-results.json) <(tr '{' '\n' < results/limbo-results-again.json) | head -20
  exit 1
fi
rm -f results/limbo-results-again.json
python3 "$SUITE/score.py" "$SUITE/limbo.json" results/limbo-results.json --list > results/limbo-score.txt
sed -n '1,12p' results/limbo-score.txt
line=$(grep -m1 '^total=' results/limbo-score.txt)
passed=$(sed -E 's/.*passed=([0-9]+).*/\1/' <<<"$line")
accepts=$(sed -E 's/.*false-accepts=([0-9]+).*/\1/' <<<"$line")
if [ "$accepts" -ne 0 ]; then
  echo "x509-limbo: FAIL, $accepts false accepts (must be 0):"
  sed -n '/^false_accept:/,/^$/p' results/limbo-score.txt
  exit 1
fi
if [ "$passed" -lt "$MIN_PASSED" ]; then
  echo "x509-limbo: FAIL, passed=$passed is below the goal of $MIN_PASSED"
  exit 1
fi
echo "x509-limbo: OK (passed=$passed, false-accepts=0; goal >= $MIN_PASSED passed and no false accept)"
