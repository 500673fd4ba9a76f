#!/usr/bin/env bash
# Every row of the speed table, Vigil beside its anchor, in one hyperfine run on a release build
# (the whole command counts: start-up included), written into docs/performance.md between the
# bench-compare markers. RUNS (default 20) runs per command.
#   vigil --version                     | curl --version
#   vigil inspect https://127.0.0.1:P   | curl, one request, same CA
#   vigil certificates list (100,000)   | sqlite3, the same rows
#   vigil certificates list --json      | sqlite3 -json
#   vigil certificates audit (100,000)  | sqlite3, the same rows
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release >/dev/null
command -v hyperfine >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq hyperfine >/dev/null
command -v sqlite3 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sqlite3 >/dev/null
VIGIL=$PWD/.build/release/vigil
CA=$PWD/testcerts/ca-bundle.pem
WORK=$(mktemp -d)
PORT=${PORT:-47444}
export XDG_STATE_HOME=$WORK/state XDG_CONFIG_HOME=$WORK/config VIGIL_MANAGED_CONFIG=$WORK/none.json
"$VIGIL" simulator serve --scenario valid --port "$PORT" > "$WORK/simulator.log" 2>&1 &
SIMULATOR=$!
trap 'kill $SIMULATOR 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do curl -s --cacert "$CA" "https://127.0.0.1:$PORT/status.php" >/dev/null && break; sleep 0.1; done
DB=$WORK/vigil.sqlite
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
  -n "sqlite3 audit" "sqlite3 $DB 'SELECT time, kind, target, detail, actor FROM audit_event ORDER BY id'" >&2
python3 - "$WORK/bench.json" docs/performance.md <<'PY'
import json, sys, datetime, re
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
rows = [("`vigil --version` start-up", "vigil --version", "`curl --version`", "curl --version", 1.5),
        ("`vigil inspect https://127.0.0.1:PORT --ca-file`", "vigil inspect", "curl, one request", "curl one request", 1.2),
        ("`vigil certificates list`, 100,000 approvals", "vigil certificates list", "`sqlite3`, same rows", "sqlite3 list", 1.5),
        ("`vigil certificates list --json`, 100,000", "vigil certificates list --json", "`sqlite3 -json`", "sqlite3 -json", 1.5),
        ("`vigil certificates audit`, 100,000 events", "vigil certificates audit", "`sqlite3`, same rows", "sqlite3 audit", 1.5)]
def ms(r): return r["median"] * 1000
lines = ["<!-- bench-compare:start (scripts/bench-compare.sh writes this table) -->",
         "Measured %s on this machine (2 cores), release build with the Swift runtime linked statically, hyperfine medians:" % datetime.date.today().isoformat(), "",
         "| what | Vigil | anchor | ratio | goal | met |", "|---|---|---|---|---|---|"]
for what, v, anchor, a, goal in rows:
    ratio = ms(results[v]) / ms(results[a])
    lines.append("| %s | %.1f ms | %s %.1f ms | %.2fx | <= %.1fx | %s |" % (what, ms(results[v]), anchor, ms(results[a]), ratio, goal, "yes" if ratio <= goal else "no"))
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
