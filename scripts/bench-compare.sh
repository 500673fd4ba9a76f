#!/usr/bin/env bash
# Every row of the speed table, Vigil beside its anchor, in one hyperfine run on a release build
# (the whole command counts: start-up included), written into docs/performance.md between the
# bench-compare markers. RUNS (default 20) runs per command.
#   vigil --version                     | curl --version
#   vigil inspect https://127.0.0.1:P   | curl, one request, same CA
#   vigil certificates list (100,000)   | sqlite3, the same rows
#   vigil certificates list --json      | sqlite3 -json
#   vigil certificates audit (100,000)  | sqlite3, the same rows
#   vigil account check ID (Basic)      | curl making the same requests in one process (PROPFIND, then
#                                         a GET of the first file, one connection)
#   the installed vigil, stripped       | 40 MB (a Swift CLI with a static runtime: 10-30 MB)
# Runs itself inside a private D-Bus session with an unlocked GNOME Keyring (the account's password).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BENCH_INNER:-}" ]; then
  scripts/build.sh release >/dev/null
  command -v hyperfine >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
  command -v sqlite3 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null
  exec env BENCH_INNER=1 dbus-run-session -- scripts/keyring-session.sh "$0" "$@"
fi
VIGIL=$PWD/.build/release/vigil
CA=$PWD/testcerts/ca-bundle.pem
WORK=$(mktemp -d)
PORT=${PORT:-47444}
export XDG_STATE_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config VIGIL_MANAGED_CONFIG=$WORK/none.json
"$VIGIL" simulator serve --scenario valid --port "$PORT" > "$WORK/simulator.log" 2>&1 &
SIMULATOR=$!
trap 'status=$?; kill $SIMULATOR 2>/dev/null; wait $SIMULATOR 2>/dev/null; rm -rf "$WORK"; exit $status' EXIT
for _ in $(seq 50); do curl -s --cacert "$CA" "https://127.0.0.1:$PORT/status.php" >/dev/null && break; sleep 0.1; done
DB=$WORK/vigil.sqlite
# A Basic account on the valid scenario (alice), and the first file its root lists, for curl.
echo alice-test-password | "$VIGIL" account add "https://127.0.0.1:$PORT" --user alice --password-stdin --ca-file "$CA" --method basic \
  --database "$WORK/account.sqlite" >/dev/null
ID=$("$VIGIL" account list --json --database "$WORK/account.sqlite" | sed -n 's/.*"id" : "\([^"]*\)".*/\1/p' | head -1)
ROOT="https://127.0.0.1:$PORT/remote.php/dav/files/alice/"
FIRST=$(curl -s --cacert "$CA" -u alice:alice-test-password -X PROPFIND -H Depth:1 "$ROOT" | grep -o '<d:href>[^<]*</d:href>' \
  | sed 's#<[^>]*>##g' | grep -v '/$' | head -1)
strip -o "$WORK/vigil-stripped" "$VIGIL"
SIZE=$(stat -c %s "$WORK/vigil-stripped")
"$VIGIL" account list --database "$DB" >/dev/null
sqlite3 "$DB" <<'SQL'
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO approved_certificate (host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt, note)
SELECT 'host' || i || '.example.test', 443, lower(hex(randomblob(32))), lower(hex(randomblob(32))), 'CN=host' || i || '.example.test',
       'CN=Example CA,O=Example', '2027-01-01T00:00:00Z', strftime('%Y-%m-%d %H:%M:%f', 1790000000 + i * 37, 'unixepoch'), 'approved after review' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO audit_event (time, kind, target, detail, actor)
SELECT strftime('%Y-%m-%d %H:%M:%f', 1790000000 + i * 37, 'unixepoch'), 'certificate-approved', 'host' || i || '.example.test:443',
       lower(hex(randomblob(32))), 'alice (uid 1000)' FROM n;
SQL
hyperfine -N --warmup 3 --runs "${RUNS:-20}" --export-json "$WORK/bench.json" \
  -n "vigil --version" "$VIGIL --version" \
  -n "curl --version" "curl --version" \
  -n "vigil inspect" "$VIGIL inspect https://127.0.0.1:$PORT --ca-file $CA" \
  -n "curl one request" "curl -s -o /dev/null --cacert $CA https://127.0.0.1:$PORT/status.php" \
  -n "vigil certificates list" "$VIGIL certificates list --database $DB" \
  -n "sqlite3 list" "sqlite3 $DB 'SELECT id, host, port, sha256, subject, approvedAt, revokedAt FROM approved_certificate WHERE revokedAt IS NULL ORDER BY id'" \
  -n "vigil certificates list --json" "$VIGIL certificates list --json --database $DB" \
  -n "sqlite3 -json" "sqlite3 -json $DB 'SELECT id, host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt, note FROM approved_certificate WHERE revokedAt IS NULL ORDER BY id'" \
  -n "vigil certificates audit" "$VIGIL certificates audit --database $DB" \
  -n "sqlite3 audit" "sqlite3 $DB 'SELECT time, kind, target, detail, actor FROM audit_event ORDER BY id'" \
  -n "vigil account check" "$VIGIL account check $ID --ca-file $CA --database $WORK/account.sqlite" \
  -n "curl PROPFIND, GET" "curl -s -o /dev/null --cacert $CA -u alice:alice-test-password -X PROPFIND -H Depth:1 $ROOT --next -s -o /dev/null --cacert $CA -u alice:alice-test-password -r 0-0 https://127.0.0.1:$PORT$FIRST" >&2
python3 - "$WORK/bench.json" docs/performance.md "$SIZE" <<'PY'
import json, sys, datetime, re
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
size = int(sys.argv[3])
rows = [("`vigil --version` start-up", "vigil --version", "`curl --version`", "curl --version", 1.5),
        ("`vigil inspect https://127.0.0.1:PORT --ca-file`", "vigil inspect", "curl, one request", "curl one request", 1.2),
        ("`vigil certificates list`, 100,000 approvals", "vigil certificates list", "`sqlite3`, same rows", "sqlite3 list", 1.5),
        ("`vigil certificates list --json`, 100,000", "vigil certificates list --json", "`sqlite3 -json`", "sqlite3 -json", 1.5),
        ("`vigil certificates audit`, 100,000 events", "vigil certificates audit", "`sqlite3`, same rows", "sqlite3 audit", 1.5),
        ("`vigil account check ID` (Basic: handshake, PROPFIND, GET)", "vigil account check", "curl, the same requests in one process", "curl PROPFIND, GET", 2.0)]
def ms(r): return r["median"] * 1000
lines = ["<!-- bench-compare:start (scripts/bench-compare.sh writes this table) -->",
         "Measured %s on this machine (2 cores), release build with the Swift runtime linked statically, hyperfine medians:" % datetime.date.today().isoformat(), "",
         "| what | Vigil | anchor | ratio | goal | met |", "|---|---|---|---|---|---|"]
for what, v, anchor, a, goal in rows:
    ratio = ms(results[v]) / ms(results[a])
    lines.append("| %s | %.1f ms | %s %.1f ms | %.2fx | <= %.1fx | %s |" % (what, ms(results[v]), anchor, ms(results[a]), ratio, goal, "yes" if ratio <= goal else "no"))
mb = size / 1e6
lines.append("| the installed `vigil` (stripped) | %.1f MB | a Swift CLI with a static runtime, 10-30 MB | - | <= 40 MB | %s |" % (mb, "yes" if mb <= 40 else "no"))
lines.append("<!-- bench-compare:end -->")
text = open(sys.argv[2]).read()
block = "\n".join(lines)
if "<!-- bench-compare:start" in text:
    text = re.sub(r"<!-- bench-compare:start.*?<!-- bench-compare:end -->", lambda _: block, text, flags=re.S)
else:
    text = text.rstrip("\n") + "\n\n## Every command beside its anchor (issue: speed of every command)\n\n" + block + "\n"
open(sys.argv[2], "w").write(text)
print(block)
PY
