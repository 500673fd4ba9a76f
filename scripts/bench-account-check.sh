#!/usr/bin/env bash
# `vigil account check` of a Basic account against curl making the same requests (a TLS
# handshake with the test CA, then a PROPFIND of the user's files root with the password), on a
# release build, side by side in one hyperfine run. The whole command counts: start-up,
# settings, database, keyring, the handshake Vigil judges and the request. Runs itself inside a
# private D-Bus session with an unlocked GNOME Keyring. Prints hyperfine's Markdown table.
# MTLS=1: the server demands a client certificate (the simulator's mtls-required); the account
# has one (PKCS#12, its key in the keyring) and curl presents the same one with --cert/--key.
# PROXY=1: both go through Debian's Squid on loopback asking for Basic (basic_ncsa_auth): Vigil
# with the password kept by `vigil proxy login --allow-clear-text`, curl with --proxy-anyauth
# and the same user and password.
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
SQUID=
trap 'status=$?; kill $SIMULATOR 2>/dev/null; wait $SIMULATOR 2>/dev/null; [ -n "$SQUID" ] && { kill $SQUID 2>/dev/null; wait $SQUID 2>/dev/null; }; rm -rf "$WORK"; exit $status' EXIT
CURL_PROXY=()
if [ -n "${PROXY:-}" ]; then
  SQUID_PORT=$((PORT + 10))
  mkdir -p "$WORK/squid"
  htpasswd -bc "$WORK/squid/passwd" alice proxy-bench-password >/dev/null 2>&1
  printf '%s\n' "http_port 127.0.0.1:$SQUID_PORT" "pid_filename $WORK/squid/squid.pid" "cache_log $WORK/squid/cache.log" "access_log none" \
    "cache deny all" "dns_nameservers 127.0.0.1" "pinger_enable off" "shutdown_lifetime 0 seconds" \
    "auth_param basic program /usr/lib/squid/basic_ncsa_auth $WORK/squid/passwd" "auth_param basic realm Bench" \
    "acl authed proxy_auth REQUIRED" "acl loopback src 127.0.0.0/8" "http_access allow loopback authed" "http_access deny all" > "$WORK/squid/squid.conf"
  if [ "$(id -u)" -eq 0 ]; then chown -R proxy:proxy "$WORK/squid"; chmod 0711 "$WORK"; fi
  /usr/sbin/squid -N -f "$WORK/squid/squid.conf" >/dev/null 2>&1 &
  SQUID=$!
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$SQUID_PORT") 2>/dev/null && break; sleep 0.1; done
  printf proxy-bench-password | "$VIGIL" proxy login "http://127.0.0.1:$SQUID_PORT" --user alice --password-stdin --allow-clear-text >/dev/null
  export https_proxy=http://127.0.0.1:$SQUID_PORT
  CURL_PROXY=(--proxy-anyauth --proxy-user alice:proxy-bench-password)
fi
for _ in $(seq 50); do env -u https_proxy curl -s --cacert "$CA" "${CURL_CERT[@]}" "https://127.0.0.1:$PORT/status.php" >/dev/null && break; sleep 0.1; done
echo alice-test-password | "$VIGIL" account add "https://127.0.0.1:$PORT" --user alice --password-stdin --ca-file "$CA" "${ADD_CERT[@]}" --database "$WORK/vigil.sqlite" >/dev/null
ID=$("$VIGIL" account list --json --database "$WORK/vigil.sqlite" | sed -n 's/.*"id" : "\([^"]*\)".*/\1/p' | head -1)
"$VIGIL" account check "$ID" --ca-file "$CA" --database "$WORK/vigil.sqlite"
hyperfine --warmup 3 --runs "${RUNS:-30}" --export-markdown "$WORK/table.md" -N \
  "$VIGIL account check $ID --ca-file $CA --database $WORK/vigil.sqlite" \
  "curl -s -o /dev/null --cacert $CA ${CURL_CERT[*]} ${CURL_PROXY[*]} -u alice:alice-test-password -X PROPFIND -H Depth:0 https://127.0.0.1:$PORT/remote.php/dav/files/alice/" >&2
sed -e "s#$WORK#WORK#g" -e "s#$VIGIL#vigil#g" -e "s#$CA#CA#g" -e "s#$PWD/##g" "$WORK/table.md"
