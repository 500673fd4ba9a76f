#!/usr/bin/env bash
# The release build, installed as a user would (make install into a scratch DESTDIR), used from /
# with no source tree in reach, then uninstalled: nothing of it may remain. CI runs it after
# make test (a debug-only check once let a release-only compile error through).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
make --no-print-directory release >/dev/null
make --no-print-directory install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
VIGIL="$ROOT/usr/bin/vigil"
fail() { echo "install-check: $*" >&2; exit 1; }
for f in share/man/man1/vigil.1 share/bash-completion/completions/vigil share/zsh/site-functions/_vigil \
         share/fish/vendor_completions.d/vigil.fish share/vigil/mitm-fixtures/valid.json share/vigil/testcerts/ca-bundle.pem \
         share/vigil/server-data/tls-profiles.json share/vigil/server-data/advisories.json; do
  [ -s "$ROOT/usr/$f" ] || fail "missing $f"
done
[ -x "$ROOT/usr/bin/vigil-simulator" ] || fail "missing bin/vigil-simulator"
# The user units, their ExecStart naming the installed binary (PREFIX/bin/vigil).
for unit in vigil-check.service vigil-check.timer; do
  [ -s "$ROOT/usr/lib/systemd/user/$unit" ] || fail "missing lib/systemd/user/$unit"
done
# Another PREFIX: the unit names the binary installed there, never /usr/bin's.
OTHER=$(mktemp -d)
make --no-print-directory install DESTDIR="$OTHER" PREFIX=/opt/vigil-check >/dev/null
grep -q "^ExecStart=.*'/opt/vigil-check/bin/vigil account check --all --tolerate-unreachable;" "$OTHER/opt/vigil-check/lib/systemd/user/vigil-check.service" \
  || fail "vigil-check.service does not run PREFIX/bin/vigil"
! grep -q "/usr/bin/vigil" "$OTHER/opt/vigil-check/lib/systemd/user/vigil-check.service" || fail "vigil-check.service names /usr/bin/vigil under another PREFIX"
rm -rf "$OTHER"
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify --man=no "$ROOT/usr/lib/systemd/user/vigil-check.service" "$ROOT/usr/lib/systemd/user/vigil-check.timer" \
    || fail "systemd-analyze verify finds fault with the user units"
fi
# The client carries no server code (the simulator is vigil-simulator), no Foundation (ICU's
# data: 34 MB; it links FoundationEssentials only, docs/architecture.md) and is stripped: at most
# 40 MiB (issue 23's goal; 28 MB when it was set).
size=$(stat -c %s "$VIGIL")
[ "$size" -le $((40 * 1024 * 1024)) ] || fail "bin/vigil is $((size / 1024 / 1024)) MiB, over 40 MiB"
! grep -q -a "HummingbirdCore" "$VIGIL" || fail "bin/vigil carries the simulator's server code"
! grep -q -a "icudt" "$VIGIL" || fail "bin/vigil carries ICU's data (a module it links imports Foundation)"
grep -q -- "--proxy-ca-file" "$ROOT/usr/share/bash-completion/completions/vigil" || fail "bash completion lacks options"
bash -n "$ROOT/usr/share/bash-completion/completions/vigil" || fail "bash completion does not parse"
# From /, with the data dir the installed binary finds beside it (VIGIL_DATA_DIR unset).
(cd / && env -u VIGIL_DATA_DIR "$VIGIL" --version >/dev/null) || fail "vigil --version"
(cd / && env -u VIGIL_DATA_DIR XDG_STATE_HOME="$ROOT/state" XDG_CONFIG_HOME="$ROOT/config" "$VIGIL" simulate --scenario valid --scenario mitm-forged) \
  || fail "vigil simulate from /"
# server check reads its dated data from the installed share/vigil/server-data (VIGIL_DATA_DIR
# names it first, so the source tree's copy cannot stand in): a closed port is then "unreachable",
# never "bad-data".
status=0
(cd / && VIGIL_DATA_DIR="$ROOT/usr/share/vigil" "$VIGIL" server check https://127.0.0.1:1 --timeout 1 >/dev/null 2>"$ROOT/server-check.err") || status=$?
[ "$status" -eq 2 ] && grep -q "ServerCheckError unreachable" "$ROOT/server-check.err" || fail "server check with the installed data: $(cat "$ROOT/server-check.err")"
make --no-print-directory uninstall DESTDIR="$ROOT" PREFIX=/usr >/dev/null
left=$(cd "$ROOT/usr" && find . -type f | head -5)
[ -z "$left" ] || fail "uninstall left: $left"
echo "install-check: release build installed, used from /, uninstalled cleanly"
