#!/usr/bin/env bash
# The main job, on loopback: real TLS servers (openssl s_server) play a healthy cloud host and
# the attacks and mistakes a client meets; `vigil inspect` reviews each certificate chain before
# any credential would leave the machine. Exits non-zero if a verdict is not the expected one.
set -uo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/debug/vigil}
CA=testcerts/ca-bundle.pem
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

serve() {  # serve CASE BIND -> prints the port
  local name=$1 bind=$2 log
  log=$(mktemp)
  local extra=()
  if [ "$(grep -c 'BEGIN CERTIFICATE' "testcerts/$name-chain.pem")" -gt 1 ]; then
    sed '1,/END CERTIFICATE/d' "testcerts/$name-chain.pem" > "$log.chain"
    extra=(-cert_chain "$log.chain")
  fi
  openssl s_server -accept "$bind:0" -www -cipher 'DEFAULT:@SECLEVEL=0' \
    -cert "testcerts/$name.pem" -key "testcerts/$name.key" "${extra[@]}" >"$log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -q ACCEPT "$log" && break; sleep 0.1; done
  grep -m1 -oE '[0-9]+$' <(grep ACCEPT "$log")
}

failures=0
check() {  # check EXPECTED-EXIT TITLE ARGS...
  local expected=$1 title=$2; shift 2
  echo
  echo "=== $title"
  echo "\$ vigil $*"
  "$VIGIL" "$@" | sed -n '1,/^Chain as verified/p' | sed '$d'
  local status=${PIPESTATUS[0]}
  if [ "$status" -eq "$expected" ]; then echo "(exit $status, as expected)"; else echo "(exit $status, EXPECTED $expected)"; failures=$((failures + 1)); fi
}

echo "Vigil demo: certificate review of live TLS hosts on loopback (CA for the test PKI: $CA)"
valid=$(serve valid-127.0.0.1 127.0.0.1)
second=$(serve valid-127.0.0.2 127.0.0.2)
selfsigned=$(serve self-signed 127.0.0.1)
forged=$(serve mitm-forged 127.0.0.1)
incomplete=$(serve incomplete-chain 127.0.0.1)
expired=$(serve expired 127.0.0.1)

check 0 "A healthy server, trusted through the test CA" inspect "https://127.0.0.1:$valid" --ca-file "$CA"
check 0 "A second host on 127.0.0.2 (several loopback addresses make several hosts)" inspect "https://127.0.0.2:$second" --ca-file "$CA"
check 1 "The same healthy server judged by the system trust store: the user must review it" inspect "https://127.0.0.1:$valid"
check 1 "A self-signed certificate" inspect "https://127.0.0.1:$selfsigned" --ca-file "$CA"
check 1 "A man in the middle: forged leaf copying the real subject and SANs, from an attacker CA" inspect "https://127.0.0.1:$forged" --ca-file "$CA"
check 1 "A server that forgets to send its intermediate" inspect "https://127.0.0.1:$incomplete" --ca-file "$CA"
check 1 "An expired certificate" inspect "https://127.0.0.1:$expired" --ca-file "$CA"

echo
echo "=== The full review of the healthy server, as JSON (first lines)"
"$VIGIL" inspect "https://127.0.0.1:$valid" --ca-file "$CA" --json | head -25

echo
echo "=== x509-limbo conformance of the same evaluator"
scripts/limbo.sh "$VIGIL" | tail -1

echo
if [ "$failures" -eq 0 ]; then echo "demo: every verdict as expected"; else echo "demo: $failures verdicts NOT as expected"; exit 1; fi
