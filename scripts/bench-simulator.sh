#!/usr/bin/env bash
# Simulator throughput: status.php over TLS with keep-alive, measured with wrk, against nginx
# serving the same JSON with the same certificate on this machine. Figures: docs/performance.md.
# Needs wrk and nginx (installed here when missing) and a release build of vigil.
set -euo pipefail
cd "$(dirname "$0")/.."
for p in wrk nginx-light; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || { echo "bench: installing $p"; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >/dev/null; }
done
scripts/build.sh release >/dev/null
VIGIL=$(swift build -c release --show-bin-path)/vigil
DURATION=${DURATION:-15s}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
WORK=$(mktemp -d)
trap 'kill $SIM_PID 2>/dev/null || true; nginx -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$WORK"' EXIT
mkdir -p results

# nginx: same certificate, same JSON, two workers (one per core).
JSON='{"installed":true,"maintenance":false,"needsDbUpgrade":false,"version":"10.15.0.2","versionstring":"10.15.0","edition":"Community","productname":"ownCloud","product":"ownCloud"}'
NGINX_PORT=18443
cat > "$WORK/nginx.conf" <<CONF
worker_processes 2;
error_log $WORK/error.log;
pid $WORK/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK; proxy_temp_path $WORK; fastcgi_temp_path $WORK; uwsgi_temp_path $WORK; scgi_temp_path $WORK;
  server {
    listen 127.0.0.1:$NGINX_PORT ssl;
    ssl_certificate $PWD/testcerts/valid-127.0.0.1-chain.pem;
    ssl_certificate_key $PWD/testcerts/valid-127.0.0.1.key;
    keepalive_requests 1000000;
    location = /status.php { default_type application/json; return 200 '$JSON'; }
  }
}
CONF
nginx -p "$WORK" -c "$WORK/nginx.conf"
sleep 0.5
curl -sf --cacert testcerts/ca-bundle.pem "https://127.0.0.1:$NGINX_PORT/status.php" >/dev/null

# The simulator, scenario valid.
"$VIGIL" simulator serve --scenario valid ${SIM_THREADS:+--threads $SIM_THREADS} > "$WORK/sim.out" 2>&1 &
SIM_PID=$!
for _ in $(seq 100); do grep -q "^host 1" "$WORK/sim.out" 2>/dev/null && break; sleep 0.1; done
SIM_URL=$(grep "^host 1" "$WORK/sim.out" | awk '{print $3}')
curl -sf --cacert testcerts/ca-bundle.pem "$SIM_URL/status.php" >/dev/null

echo "== nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'): wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "https://127.0.0.1:$NGINX_PORT/status.php" | tee results/bench-nginx.txt
echo "== vigil simulator: wrk -t$THREADS -c$CONNECTIONS -d$DURATION"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "$SIM_URL/status.php" | tee results/bench-simulator.txt
echo "== simulator peak memory: $(grep VmHWM /proc/$SIM_PID/status)"
