#!/usr/bin/env bash
# The store under crashes and contention (issue 14's hardening), on the vigil binary given:
#   scripts/stress-store.sh [VIGIL] [KILLS=1000] [PROCESSES=50]
# 1. Kill -9 at a random point of `certificates approve`, KILLS times, each for its own port:
#    afterwards PRAGMA integrity_check is ok and every approval a process reported done (exit 0)
#    is present.
# 2. PROCESSES vigil processes at once approving, revoking, listing and auditing one database:
#    every one succeeds, none reports "database is locked", nothing is lost.
# Prints its figures; exits 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/debug/vigil}
KILLS=${2:-1000}
PROCESSES=${3:-50}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_STATE_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config VIGIL_MANAGED_CONFIG=$WORK/none.json
LEAF=testcerts/valid-127.0.0.1.pem
FP=$(openssl x509 -in "$LEAF" -noout -fingerprint -sha256 | cut -d= -f2)
fail() { echo "stress-store: FAILED: $*" >&2; exit 1; }

# 1. Crashes.
DB=$WORK/crash.sqlite
"$VIGIL" account list --database "$DB" >/dev/null
done_ports=()
for i in $(seq 1 "$KILLS"); do
  port=$((10000 + i))
  "$VIGIL" certificates approve --file "$LEAF" --host "127.0.0.1:$port" --fingerprint "$FP" --database "$DB" >/dev/null 2>&1 &
  pid=$!
  # A random point: from at once to after the usual end of the command (about 100 ms: the
  # system trust store is read to judge the leaf).
  sleep "0.$(printf '%03d' $((RANDOM % 150)))"
  kill -9 "$pid" 2>/dev/null || true
  if wait "$pid" 2>/dev/null; then done_ports+=("$port"); fi
done
check=$(sqlite3 "$DB" 'PRAGMA integrity_check')
[ "$check" = ok ] || fail "integrity_check after $KILLS kills: $check"
missing=0
for port in "${done_ports[@]}"; do
  n=$(sqlite3 "$DB" "SELECT count(*) FROM approved_certificate WHERE port = $port AND revokedAt IS NULL")
  [ "$n" = 1 ] || missing=$((missing + 1))
done
[ "$missing" = 0 ] || fail "$missing approvals reported done are missing"
events=$(sqlite3 "$DB" "SELECT count(*) FROM audit_event WHERE kind = 'certificate-approved'")
rows=$(sqlite3 "$DB" "SELECT count(*) FROM approved_certificate")
[ "$events" = "$rows" ] || fail "$rows approvals but $events approval events: a change without its audit entry"
echo "crashes: $KILLS runs, $((KILLS - ${#done_ports[@]})) killed before they reported, ${#done_ports[@]} reported done and all present, integrity ok, $rows approvals with $rows audit events"

# 2. Contention.
DB=$WORK/contention.sqlite
"$VIGIL" account list --database "$DB" >/dev/null
for port in $(seq 20001 20010); do
  "$VIGIL" certificates approve --file "$LEAF" --host "127.0.0.1:$port" --fingerprint "$FP" --database "$DB" >/dev/null
done
pids=()
for i in $(seq 1 "$PROCESSES"); do
  case $((i % 4)) in
    0) "$VIGIL" certificates approve --file "$LEAF" --host "127.0.0.1:$((30000 + i))" --fingerprint "$FP" --database "$DB" ;;
    1) id=$((i % 10 + 1)); "$VIGIL" certificates revoke "$id" --reason "stress $i" --database "$DB" || true ;;
    2) "$VIGIL" certificates list --all --json --database "$DB" ;;
    3) "$VIGIL" certificates audit --database "$DB" ;;
  esac >"$WORK/out.$i" 2>"$WORK/err.$i" &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  n=$((i + 1))
  if ! wait "${pids[$i]}"; then
    # A second revocation of the same approval is refused by design (exit 1, "already revoked").
    grep -q "already revoked\|no active approval" "$WORK/err.$n" 2>/dev/null || { failed=$((failed + 1)); sed 's/^/  /' "$WORK/err.$n" >&2; }
  fi
done
locked=$(cat "$WORK"/err.* | grep -ci "database is locked" || true)
[ "$locked" = 0 ] || fail "$locked processes reported 'database is locked'"
[ "$failed" = 0 ] || fail "$failed of $PROCESSES processes failed"
approved=$(sqlite3 "$DB" "SELECT count(*) FROM approved_certificate WHERE port > 30000")
expected=$((PROCESSES / 4))
[ "$approved" = "$expected" ] || fail "$approved of $expected concurrent approvals present"
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after contention"
echo "contention: $PROCESSES processes at once (approve, revoke, list, audit), none failed, no 'database is locked', $approved of $expected approvals present, integrity ok"
