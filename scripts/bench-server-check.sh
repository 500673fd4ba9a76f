#!/usr/bin/env bash
# `vigil server check` against the TLS scanners it is measured by: sslscan (Debian, C), sslyze
# (PyPI, Python) and testssl.sh (Debian, bash), each scanning the same six loopback nginx
# configurations one after another for versions and cipher suites. Release build, whole command,
# side by side in one hyperfine run (testssl.sh once: it takes minutes). Also prints, for each
# configuration, whether Vigil's versions and suites are sslscan's, and the TCP connections each
# tool opened (the kernel's ActiveOpens counter around one run of each).
# Usage: scripts/bench-server-check.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10}
scripts/build.sh release >/dev/null
VIGIL=$PWD/.build/release/vigil
CA=$PWD/testcerts/ca-bundle.pem
need() { command -v "$1" >/dev/null || { echo "bench: installing $2"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }; }
need hyperfine hyperfine
need nginx nginx-light
need sslscan sslscan
need testssl testssl.sh
SSLYZE_VENV=${SSLYZE_VENV:-/var/tmp/vigil-sslyze}
[ -x "$SSLYZE_VENV/bin/sslyze" ] || { echo "bench: installing sslyze (PyPI) in $SSLYZE_VENV"; python3 -m venv "$SSLYZE_VENV"; "$SSLYZE_VENV/bin/pip" install -q sslyze; }
SSLYZE=$SSLYZE_VENV/bin/sslyze

WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
openssl dhparam -out "$WORK/dh1024.pem" 1024 2>/dev/null
openssl dhparam -out "$WORK/dh2048.pem" 2048 2>/dev/null
HSTS='add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;'
# name | protocols | ciphers | extra
CONFIGS=(
  "modern|TLSv1.2 TLSv1.3|ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305|$HSTS"
  "intermediate-dhe|TLSv1.2 TLSv1.3|ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384|ssl_dhparam $WORK/dh2048.pem; $HSTS"
  "legacy|TLSv1 TLSv1.1 TLSv1.2|AES128-SHA:AES256-SHA:ECDHE-RSA-AES128-SHA:DHE-RSA-AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0|ssl_dhparam $WORK/dh2048.pem;"
  "dh1024|TLSv1.2|DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:@SECLEVEL=0|ssl_dhparam $WORK/dh1024.pem; $HSTS"
  "no-hsts|TLSv1.2 TLSv1.3|ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305|"
  "cbc-only|TLSv1.2|ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:ECDHE-RSA-AES128-SHA256:AES128-SHA|$HSTS"
)
PORTS=()
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for config in "${CONFIGS[@]}"; do
  IFS='|' read -r name protocols ciphers extra <<<"$config"
  port=$(free_port)
  dir=$WORK/$name
  mkdir -p "$dir/logs" "$dir/temp"
  cat >"$dir/nginx.conf" <<EOF
$([ "$(id -u)" -eq 0 ] && echo "user root;")
worker_processes 1;
error_log $dir/logs/error.log;
pid $dir/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $dir/temp/body; proxy_temp_path $dir/temp/proxy; fastcgi_temp_path $dir/temp/fastcgi;
  uwsgi_temp_path $dir/temp/uwsgi; scgi_temp_path $dir/temp/scgi;
  server {
    listen 127.0.0.1:$port ssl;
    ssl_certificate $PWD/testcerts/valid-127.0.0.1-chain.pem;
    ssl_certificate_key $PWD/testcerts/valid-127.0.0.1.key;
    ssl_protocols $protocols;
    ssl_ciphers "$ciphers";
    ssl_prefer_server_ciphers on;
    $extra
    location / { return 200 "ok"; }
  }
}
EOF
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" -g "daemon off;" &
  PIDS+=($!)
  PORTS+=("$port")
done
for p in "${PORTS[@]}"; do for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done; done

LOOP_VIGIL="for p in ${PORTS[*]}; do $VIGIL server check https://127.0.0.1:\$p --ca-file $CA --fail-on error >/dev/null 2>>$WORK/vigil-errors || test \$? -eq 1; done"
LOOP_SSLSCAN="for p in ${PORTS[*]}; do sslscan --no-colour 127.0.0.1:\$p >/dev/null; done"
LOOP_SSLSCAN_SUITES="for p in ${PORTS[*]}; do sslscan --no-colour --no-fallback --no-renegotiation --no-compression --no-heartbleed --no-groups 127.0.0.1:\$p >/dev/null; done"
# The same check without the pacing's spacing (1000 a second: never the bound here).
LOOP_VIGIL_UNPACED="export VIGIL_SERVER_CHECK_CONNECTIONS_PER_SECOND=1000; $LOOP_VIGIL"
LOOP_SSLYZE="for p in ${PORTS[*]}; do $SSLYZE --quiet --mozilla_config disable --sslv2 --sslv3 --tlsv1 --tlsv1_1 --tlsv1_2 --tlsv1_3 127.0.0.1:\$p >/dev/null; done"
LOOP_TESTSSL="for p in ${PORTS[*]}; do testssl --quiet --color 0 --warnings off -p -E 127.0.0.1:\$p >/dev/null 2>&1; done"

echo "## The same answers (versions and suites), per configuration"
for i in "${!CONFIGS[@]}"; do
  name=${CONFIGS[$i]%%|*}
  p=${PORTS[$i]}
  theirs=$(sslscan --no-colour --xml=- "127.0.0.1:$p" | sed -n 's/.*<cipher status="[a-z]*" sslversion="\([^"]*\)".*cipher="\([^"]*\)".*/\1 \2/p' | sort -u)
  json=$("$VIGIL" server check "https://127.0.0.1:$p" --ca-file "$CA" --json 2>/dev/null || true)
  ours=$(echo "$json" | python3 -c '
import json, sys
report = json.load(sys.stdin)
for version in report["versions"]:
    name = version["version"].replace("TLS ", "TLSv").replace("SSL 3.0", "SSLv3")
    for suite in version["suites"]:
        print(name, suite["openSSLName"])' | sort -u)
  # sslscan names a suite its OpenSSL lacks by the IANA name; none of these configurations has one.
  if [ "$ours" = "$theirs" ]; then same=same; else same="DIFFERENT"; fi
  grade=$(echo "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["rating"]["grade"], r["connections"])')
  echo "- $name: $same as sslscan ($(echo "$theirs" | grep -c . ) pairs); vigil grade and TLS connections: $grade"
done

echo
echo "## TCP connections opened for the six configurations (kernel ActiveOpens)"
opens() { awk '/^Tcp:/ { if (++n == 2) print $6 }' /proc/net/snmp; }
for tool in VIGIL SSLSCAN SSLSCAN_SUITES SSLYZE TESTSSL; do
  loop=LOOP_$tool
  before=$(opens)
  bash -c "${!loop}" || true
  echo "- $tool: $(( $(opens) - before ))"
done

for p in "${PORTS[@]}"; do
  status=0
  "$VIGIL" server check "https://127.0.0.1:$p" --ca-file "$CA" --fail-on error >/dev/null 2>"$WORK/error" || status=$?
  [ "$status" -le 1 ] || { echo "bench: vigil server check of port $p: exit $status: $(cat "$WORK/error")" >&2; exit 1; }
done
echo
echo "## Wall time for the six configurations, one after another (hyperfine, release build)"
hyperfine ${HYPERFINE_DEBUG:-} --warmup 1 --runs "$RUNS" --export-markdown "$WORK/table.md" \
  -n "vigil server check" "$LOOP_VIGIL" -n "vigil server check, 1000/s" "$LOOP_VIGIL_UNPACED" -n sslscan "$LOOP_SSLSCAN" \
  -n "sslscan, suites only" "$LOOP_SSLSCAN_SUITES" -n sslyze "$LOOP_SSLYZE" >&2 || {
  echo "bench: a run failed; vigil said: $(cat "$WORK/vigil-errors" 2>/dev/null)" >&2
  exit 1
}
cat "$WORK/table.md"
hyperfine --runs 1 --export-markdown "$WORK/testssl.md" -n testssl.sh "$LOOP_TESTSSL" >&2
tail -n 1 "$WORK/testssl.md"
