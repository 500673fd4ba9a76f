#!/usr/bin/env bash
# `vigil account check` of a Basic account against curl making the same requests (a TLS
# handshake with the test CA, then a PROPFIND of the user's files root with the password), on a
# release build, side by side in one hyperfine run. The whole command counts: start-up,
# settings, database, keyring, the handshake Vigil judges and the request. Runs itself inside a
# private D-Bus session with an unlocked GNOME Keyring. Prints hyperfine's Markdown table.
# MTLS=1: the server demands a client certificate (the simulator's mtls-required); the account
# has one (PKCS#12, its key in the keyring) and curl presents the same one with --cert/--key.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BENCH_INNER:-}" ]; then
  scripts/build.sh release >/dev/null
  command -v hyperfine >/dev/null || { echo "bench: installing hyperfine"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null; }
  exec env BENCH_INNER=1 dbus-run-session -- scripts/keyring-session.sh "$0" "$@"
fi
VIGIL=$PWD/.build/release/vigil
CA=$PWD/testcerts/ca-bundle.pem
WORK=$(mktemp -d)
PORT=${PORT:-47443}
export XDG_STATE_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config VIGIL_MANAGED_CONFIG=$WORK/none.json
SCENARIO=basic-only
ADD_CERT=()
CURL_CERT=()
if [ -n "${MTLS:-}" ]; then
  SCENARIO=mtls-required
  echo client-test-passphrase > "$WORK/passphrase"
  ADD_CERT=(--method basic --client-certificate "$PWD/testcerts/client-alice.p12" --client-certificate-passphrase-file "$WORK/passphrase")
  CURL_CERT=(--cert "$PWD/testcerts/client-alice.pem" --key "$PWD/testcerts/client-alice.key")
fi
"$VIGIL" simulator serve --scenario "$SCENARIO" --port "$PORT" > "$WORK/simulator.log" 2>&1 &
SIMULATOR=$!
trap 'status=$?; kill $SIMULATOR 2>/dev/null; wait $SIMULATOR 2>/dev/null; rm -rf "$WORK"; exit $status' EXIT
for _ in $(seq 50); do curl -s --cacert "$CA" "${CURL_CERT[@]}" "https://127.0.0.1:$PORT/status.php" >/dev/null && break; sleep 0.1; done
echo alice-test-password | "$VIGIL" account add "https://127.0.0.1:$PORT" --user alice --password-stdin --ca-file "$CA" "${ADD_CERT[@]}" --database "$WORK/vigil.sqlite" >/dev/null
ID=$("$VIGIL" account list --json --database "$WORK/vigil.sqlite" | sed -n 's/.*"id" : "\([^"]*\)".*/\1/p' | head -1)
"$VIGIL" account check "$ID" --ca-file "$CA" --database "$WORK/vigil.sqlite"
hyperfine --warmup 3 --runs "${RUNS:-30}" --export-markdown "$WORK/table.md" -N \
  "$VIGIL account check $ID --ca-file $CA --database $WORK/vigil.sqlite" \
  "curl -s -o /dev/null --cacert $CA ${CURL_CERT[*]} -u alice:alice-test-password -X PROPFIND -H Depth:0 https://127.0.0.1:$PORT/remote.php/dav/files/alice/" >&2
sed -e "s#$WORK#WORK#g" -e "s#$VIGIL#vigil#g" -e "s#$CA#CA#g" -e "s#$PWD/##g" "$WORK/table.md"
