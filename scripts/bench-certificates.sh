#!/usr/bin/env bash
# Certificate summary benchmark: Vigil (package-benchmark, Benchmarks/) against the C anchor
# (Benchmarks/baseline/summary_loop.c: d2i_X509 + X509_print_ex + X509_digest) on the same
# certificates: the Mozilla bundle in /etc/ssl/certs plus testcerts/. Figures: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Benchmarks/bin results
gcc -O2 -o Benchmarks/bin/summary_loop Benchmarks/baseline/summary_loop.c -lcrypto
files=(/etc/ssl/certs/ca-certificates.crt)
for f in testcerts/*.pem; do
  case "$f" in *-chain.pem|*/ca-bundle.pem) ;; *) files+=("$f") ;; esac
done
echo "== C anchor: 10,000 certificates, 3 runs"
for _ in 1 2 3; do Benchmarks/bin/summary_loop 10000 "${files[@]}"; done | tee results/bench-c.txt
echo "== Vigil: package-benchmark (one iteration = one pass over the corpus; 10,000 certificates)"
(cd Benchmarks && swift package --disable-sandbox benchmark) | tee results/bench-swift.txt | grep -E "│ (Metric|Malloc|Memory|Time)"
