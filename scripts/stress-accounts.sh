#!/usr/bin/env bash
# Accounts under kill -9, against the simulator with a real keyring of its own:
#   scripts/stress-accounts.sh [VIGIL] [KILLS=1000]
# 1. `vigil account add` (Basic) killed at a random point, KILLS times: after each, no listed
#    account lacks its password, and a setup's leftovers are cleared by the next one.
# 2. `vigil account check` of an OpenID Connect account whose token is always due (every check
#    refreshes, the provider rotates refresh tokens) killed at a random point, KILLS times: the
#    next check works, or says the account needs a new login (then `account login` restores it);
#    never another error, never "database is locked".
# Runs itself inside a private D-Bus session and GNOME Keyring. Prints its figures; exits 1 on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${KEYRING_SESSION_DIR:-}" ]; then exec dbus-run-session -- scripts/keyring-session.sh "$0" "$@"; fi
VIGIL=$(realpath "${1:-.build/debug/vigil}")
KILLS=${2:-1000}
WORK=$(mktemp -d)
trap 'kill $SIM 2>/dev/null || true; rm -rf "$WORK"' EXIT
export XDG_STATE_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config VIGIL_MANAGED_CONFIG=$WORK/none.json
CA=$PWD/testcerts/ca-bundle.pem
fail() { echo "stress-accounts: FAILED: $*" >&2; exit 1; }
serve() {
  "$VIGIL" simulator serve --scenario "$1" > "$WORK/sim.out" 2>&1 &
  SIM=$!
  for _ in $(seq 100); do grep -q "^host 1" "$WORK/sim.out" 2>/dev/null && break; sleep 0.1; done
  URL=$(grep "^host 1" "$WORK/sim.out" | awk '{print $3}')
}
pause() { sleep "0.$(printf '%03d' $((RANDOM % $1)))"; }

# 1. account add.
serve basic-only
DB=$WORK/add.sqlite
listed=0
for i in $(seq 1 "$KILLS"); do
  printf 'alice-test-password\n' | "$VIGIL" account add "$URL" --user alice --password-stdin --method basic --ca-file "$CA" --database "$DB" >/dev/null 2>&1 &
  pid=$!
  pause 400
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for id in $("$VIGIL" account list --json --database "$DB" | python3 -c 'import json,sys; print(" ".join(a["id"] for a in json.load(sys.stdin)))'); do
    # A listed account has its password: it logs in.
    "$VIGIL" account check "$id" --ca-file "$CA" --database "$DB" >/dev/null 2>&1 || fail "a listed account does not log in after kill $i"
    "$VIGIL" account remove "$id" --yes --database "$DB" >/dev/null || fail "account remove $id after kill $i"
    listed=$((listed + 1))
  done
done
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after $KILLS kills of account add"
pending=$(sqlite3 "$DB" "SELECT count(*) FROM account")
echo "account add: $KILLS kills, $listed setups completed before their kill (each logged in with its stored password, then removed), $pending rows left pending (cleared by the next setup a minute on), integrity ok"
kill $SIM; wait $SIM 2>/dev/null || true

# 2. token refresh.
serve oidc
DB=$WORK/refresh.sqlite
export BROWSER="/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert $CA" VIGIL_AUTHENTICATION_OAUTH2_OA2_EXPIRATION_OVERRIDE_SECONDS=60
"$VIGIL" account add "$URL" --user alice --ca-file "$CA" --database "$DB" >/dev/null || fail "setting up the OpenID Connect account"
ID=$("$VIGIL" account list --json --database "$DB" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
working=0; relogins=0
for i in $(seq 1 "$KILLS"); do
  "$VIGIL" account check "$ID" --ca-file "$CA" --database "$DB" >/dev/null 2>&1 &
  pid=$!
  pause 300
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  set +e
  out=$("$VIGIL" account check "$ID" --ca-file "$CA" --database "$DB" 2>&1)
  status=$?
  set -e
  case $status in
    0) working=$((working + 1)) ;;
    1) echo "$out" | grep -q "NEEDS-LOGIN" || fail "check after kill $i: $out"
       relogins=$((relogins + 1))
       "$VIGIL" account login "$ID" --ca-file "$CA" --database "$DB" >/dev/null 2>&1 || fail "account login after kill $i" ;;
    *) fail "check after kill $i exited $status: $out" ;;
  esac
  echo "$out" | grep -qi "database is locked" && fail "database is locked after kill $i"
done
[ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ] || fail "integrity_check after $KILLS kills of a refresh"
echo "token refresh: $KILLS kills, the next check worked $working times and needed a new login $relogins times (restored with account login), no other error, integrity ok"
