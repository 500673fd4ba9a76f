#!/usr/bin/env bash
# The security suite's wall time and peak memory on a release build: vigil simulate over every
# scenario with --jobs 1 and --jobs 2, RUNS times each (default 3), interleaved so that the
# machine's drift hits both alike. Prints a Markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
scripts/build.sh release >/dev/null
VIGIL=.build/release/vigil
scenarios=$("$VIGIL" simulate --list | wc -l)
echo "| run | --jobs | scenarios | wall time (whole command) | suite's own time | peak RSS |"
echo "|---|---|---|---|---|---|"
for run in $(seq 1 "$RUNS"); do
  for jobs in 1 2; do
    out=$(mktemp)
    /usr/bin/time -f "%e %M" -o "$out.time" "$VIGIL" simulate --jobs "$jobs" > "$out" || true
    read -r wall rss < "$out.time"
    own=$(tail -1 "$out" | sed -n 's/.*(\([0-9.]*\) s, .*/\1/p')
    echo "| $run | $jobs | $scenarios | ${wall} s | ${own} s | $((rss / 1024)) MB |"
    rm -f "$out" "$out.time"
  done
done
