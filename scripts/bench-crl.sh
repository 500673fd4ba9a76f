#!/usr/bin/env bash
# CRLs for the whole path, whole command, release build, beside the anchor in the same run:
# `vigil inspect --crl-file` against `openssl verify -crl_check_all -extended_crl -use_deltas`
# on (1) a three-certificate path with small CRLs (scripts/crl-pki.py) and (2) the same path
# whose issuing CA's CRL lists 100,000 revoked certificates (a CRL-heavy enterprise PKI, 3 MB).
# Usage: scripts/bench-crl.sh [VIGIL]   (default .build/release/vigil). Figures: docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/release/vigil}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 scripts/crl-pki.py "$work/pki" --heavy 100000 >/dev/null
at=1768435200
for name in whole-path-good heavy-crl; do
case="$work/pki/$name"
openssl x509 -in "$case/chain.pem" -out "$work/leaf.pem"
echo "== $name: leaf, issuing CA, root; the CRLs: $(du -h "$case/crls.pem" | cut -f1)"
hyperfine -N --warmup 3 --runs 30 \
  -n "openssl verify -crl_check_all -extended_crl -use_deltas" \
  "openssl verify -crl_check_all -extended_crl -use_deltas -CAfile $case/root.pem -untrusted $case/chain.pem -CRLfile $case/crls.pem -attime $at $work/leaf.pem" \
  -n "vigil inspect --crl-file" \
  "$VIGIL inspect --file $case/chain.pem --ca-file $case/root.pem --crl-file $case/crls.pem --at 2026-01-15T00:00:00Z --host server.test"
done
