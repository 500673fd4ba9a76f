#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer + AddressSanitizer) of certificate parsing, summaries and
# trust evaluation: the code that reads what a hostile server or file hands Vigil.
# Seeds: every certificate in testcerts/. Crashes land in results/fuzz/ and fail the script.
# FUZZ_SECONDS (default 120) bounds the run. Not part of `make test`: it is a search, not a check.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${FUZZ_SECONDS:-120}
FLAGS=(-c release -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address)
(cd Fuzz && swift build "${FLAGS[@]}" --product FuzzCertificates >/dev/null)
BIN=$(cd Fuzz && swift build "${FLAGS[@]}" --show-bin-path)/FuzzCertificates
CORPUS=results/fuzz/corpus
mkdir -p "$CORPUS" results/fuzz/crashes
for f in testcerts/*.pem testcerts/*.der; do [ -f "$f" ] && cp "$f" "$CORPUS/seed-$(basename "$f")"; done
for f in testcerts/*.pem; do openssl x509 -in "$f" -outform DER -out "$CORPUS/seed-$(basename "$f" .pem).der" 2>/dev/null || true; done
echo "fuzz: $(ls "$CORPUS" | wc -l) inputs in the corpus, running ${SECONDS_TO_RUN}s"
set +e
"$BIN" "$CORPUS" -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=results/fuzz/crashes/ -print_final_stats=1 2> results/fuzz/last-run.log
status=$?
set -e
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE" results/fuzz/last-run.log || true
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status); see results/fuzz/last-run.log and results/fuzz/crashes/"
  grep -E "ERROR|Fatal|SUMMARY" results/fuzz/last-run.log | head -5
  exit 1
fi
echo "fuzz: no crash, no leak, no timeout in ${SECONDS_TO_RUN}s"
