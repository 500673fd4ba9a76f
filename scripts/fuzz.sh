#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer of what a hostile server, file or user hands Vigil:
# certificates (parsing, summaries, trust; with AddressSanitizer), and the parsers of ParserTarget: the rule
# language, status.php, WWW-Authenticate, Location, OpenID discovery, JWKS, id_tokens, fixtures,
# settings files. Each target runs FUZZ_SECONDS (default 30) from its committed seeds
# (Fuzz/corpus/TARGET/, testcerts/ for certificates). A crash fails the script; its input lands in
# results/fuzz/crashes/ and, copied to Fuzz/corpus/TARGET/crash-NAME, becomes a regression test
# (Tests/VigilFuzzTests replays the corpus in make test). FUZZ_TARGETS picks targets (space-separated).
# Not part of `make test`: it is a search, not a check.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${FUZZ_SECONDS:-30}
PARSERS="rules status www-authenticate location openid-discovery jwks id-token fixture settings"
TARGETS=${FUZZ_TARGETS:-"certificates $PARSERS"}
# Certificates: release with AddressSanitizer (the OpenSSL calls are C). The parsers: a debug build
# with libFuzzer's coverage only (Swift checks its own memory; an ASan release build of everything
# they reach, two BoringSSL copies among it, takes most of an hour on 2 cores), where @testable
# import reaches the internal parsers.
CERT_FLAGS=(-c release -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address)
PARSER_FLAGS=(-c debug -Xswiftc -sanitize=fuzzer -Xcc -fsanitize=fuzzer-no-link --scratch-path .build-parsers)
mkdir -p results/fuzz/crashes
echo "fuzz: building the fuzz binaries (the first build takes a while)"
build() { (cd Fuzz && swift build "$@" >> ../results/fuzz/build.log 2>&1) || { tail -20 results/fuzz/build.log; echo "fuzz: the build failed (results/fuzz/build.log)"; exit 1; }; }
: > results/fuzz/build.log
case " $TARGETS " in *" certificates "*) build "${CERT_FLAGS[@]}" --product FuzzCertificates ;; esac
[ "$TARGETS" = certificates ] || build "${PARSER_FLAGS[@]}" --product FuzzParsers
CERT_BIN=$(cd Fuzz && swift build "${CERT_FLAGS[@]}" --show-bin-path)
PARSER_BIN=$(cd Fuzz && swift build "${PARSER_FLAGS[@]}" --show-bin-path)

failed=()
for target in $TARGETS; do
  corpus=results/fuzz/corpus/$target
  mkdir -p "$corpus"
  if [ "$target" = certificates ]; then
    binary=$CERT_BIN/FuzzCertificates
    for f in testcerts/*.pem testcerts/*.der; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(basename "$f")"; done
    for f in testcerts/*.pem; do openssl x509 -in "$f" -outform DER -out "$corpus/seed-$(basename "$f" .pem).der" 2>/dev/null || true; done
  else
    binary=$PARSER_BIN/FuzzParsers
    cp Fuzz/corpus/"$target"/* "$corpus"/
  fi
  log=results/fuzz/$target.log
  set +e
  VIGIL_FUZZ_TARGET=$target "$binary" "$corpus" -max_total_time="$SECONDS_TO_RUN" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="results/fuzz/crashes/$target-" -print_final_stats=1 2> "$log"
  status=$?
  set -e
  runs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}')
  rss=$(grep -E "^stat::peak_rss_mb" "$log" | awk '{print $2}')
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status) after ${runs:-?} runs; see $log and results/fuzz/crashes/$target-*"
    grep -E "ERROR|Fatal|SUMMARY|precondition" "$log" | head -5
    failed+=("$target")
  else
    echo "fuzz: $target: ${runs:-?} runs in ${SECONDS_TO_RUN}s, $(ls "$corpus" | wc -l) inputs, peak ${rss:-?} MB: no crash, no leak, no timeout"
  fi
done
if [ ${#failed[@]} -ne 0 ]; then echo "fuzz: FAILED: ${failed[*]}"; exit 1; fi
echo "fuzz: all targets passed (${SECONDS_TO_RUN}s each)"
