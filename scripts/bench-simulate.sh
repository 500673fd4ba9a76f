#!/usr/bin/env bash
# The security suite's wall time and peak memory on a release build, whole command, RUNS times
# each (default 3), interleaved so that the machine's drift hits every row alike:
#   - Vigil's own client over every scenario, --jobs 1 and --jobs 2;
#   - `--client curl` over every scenario, --jobs 2, in its network namespace (names, the
#     recorder, nftables) and with --no-network-namespace;
#   - the namespace's cost: the one-time set-up (re-executed under unshare, loopback, route,
#     nftables, the run's name server), hyperfine on `--scenario valid` with and without it; and
#     per scenario (a name server, a resolver file bound in a mount namespace of the client's own),
#     the two curl runs' difference per scenario played, --jobs 1.
# Prints Markdown tables for docs/performance.md. Goals (issue 35): Vigil's client under 30 s with
# 2 jobs; curl under 60 s, namespace included.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
scripts/build.sh release >/dev/null
VIGIL=.build/release/vigil
scenarios=$("$VIGIL" simulate --list | wc -l)
row() {  # label jobs args...
  local label=$1 jobs=$2
  shift 2
  local out
  out=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$out.time" "$VIGIL" simulate --jobs "$jobs" "$@" > "$out" || true
  read -r wall rss < <(tail -1 "$out.time")
  local own played
  own=$(tail -1 "$out" | sed -n 's/.*(\([0-9.]*\) s, .*/\1/p')
  played=$(tail -1 "$out" | sed -n 's/.*safe in [0-9]* of \([0-9]*\) played.*/\1/p')
  echo "| $label | $jobs | $scenarios | ${played:-?} | ${wall} s | ${own} s | $((rss / 1024)) MB |"
  rm -f "$out" "$out.time"
}
echo "| client | --jobs | scenarios | played | wall time (whole command) | suite's own time | peak RSS |"
echo "|---|---|---|---|---|---|---|"
for run in $(seq 1 "$RUNS"); do
  row "vigil (run $run)" 1
  row "vigil (run $run)" 2
  row "curl, network namespace (run $run)" 2 --client curl
  row "curl, --no-network-namespace (run $run)" 2 --client curl --no-network-namespace
  row "curl, network namespace (run $run)" 1 --client curl
  row "curl, --no-network-namespace (run $run)" 1 --client curl --no-network-namespace
done
echo
echo "The namespace's one-time set-up (one scenario, valid, curl):"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hyperfine -N --warmup 2 --runs 15 --export-markdown "$work/hyperfine.md" \
  -n "network namespace" "$VIGIL simulate --client curl --scenario valid" \
  -n "without (--no-network-namespace)" "$VIGIL simulate --client curl --no-network-namespace --scenario valid" >/dev/null 2>&1
cat "$work/hyperfine.md"
