#!/usr/bin/env bash
# The simulator under load: wrk for DURATION (default 60s) with CONNECTIONS (default 100) keep-alive
# connections on status.php over TLS, its resident memory sampled every 5 s. Passes with no socket
# error, no non-2xx answer, and memory flat: the last sample within 25% of the one after warm-up.
#   scripts/soak-simulator.sh [VIGIL]   (default: a release build, made when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
dpkg-query -W -f='${Status}' wrk 2>/dev/null | grep -q "install ok installed" || { echo "soak: installing wrk"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
if [ $# -ge 1 ]; then VIGIL=$1; else
  scripts/build.sh release >/dev/null
  VIGIL=$(swift build -c release --show-bin-path)/vigil
fi
DURATION=${DURATION:-60}
CONNECTIONS=${CONNECTIONS:-100}
WORK=$(mktemp -d)
trap 'kill $SIM_PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$VIGIL" simulator serve --scenario valid > "$WORK/sim.out" 2>&1 &
SIM_PID=$!
for _ in $(seq 100); do grep -q "^host 1" "$WORK/sim.out" 2>/dev/null && break; sleep 0.1; done
URL=$(grep "^host 1" "$WORK/sim.out" | awk '{print $3}')/status.php
curl -sf --cacert testcerts/ca-bundle.pem "$URL" >/dev/null
rss() { awk '/VmRSS/ {print $2}' "/proc/$SIM_PID/status"; }
echo "soak: wrk -t2 -c$CONNECTIONS -d${DURATION}s $URL (simulator at $(rss) kB before)"
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$URL" > "$WORK/wrk.txt" &
WRK_PID=$!
samples=()
while kill -0 "$WRK_PID" 2>/dev/null; do sleep 5; kill -0 "$WRK_PID" 2>/dev/null && samples+=("$(rss)"); done
wait "$WRK_PID"
cat "$WORK/wrk.txt"
echo "soak: resident memory every 5 s (kB): ${samples[*]}"
errors=$(grep -E "Socket errors" "$WORK/wrk.txt" || true)
non2xx=$(grep -E "Non-2xx" "$WORK/wrk.txt" || true)
warm=${samples[1]:-${samples[0]}}
last=${samples[${#samples[@]}-1]}
growth=$(( (last - warm) * 100 / warm ))
echo "soak: after warm-up ${warm} kB, at the end ${last} kB (${growth}%), peak $(awk '/VmHWM/ {print $2}' "/proc/$SIM_PID/status") kB"
status=0
[ -z "$errors" ] || { echo "soak: FAILED: $errors"; status=1; }
[ -z "$non2xx" ] || { echo "soak: FAILED: $non2xx"; status=1; }
[ "$growth" -le 25 ] || { echo "soak: FAILED: memory grew ${growth}% under steady load"; status=1; }
kill -0 "$SIM_PID" || { echo "soak: FAILED: the simulator died"; status=1; }
[ "$status" = 0 ] && echo "soak: passed: 0 errors, memory flat"
exit "$status"
