#!/usr/bin/env bash
# make deb-check: the package proved on a machine without Swift. A Debian 12 root is made with
# debootstrap (minbase) from this machine's own apt sources; `apt-get install ./vigil_*.deb`
# there pulls only Debian packages; then, inside it: vigil --version, vigil inspect of a loopback
# server (the packaged simulator) with its CA, vigil account add against it in a private D-Bus
# session with a GNOME Keyring, vigil simulate on two scenarios, and apt-get purge vigil, after
# which no file of the package is left. The base root is cached between runs
# ($VIGIL_DEB_CHECK_CACHE, default ~/.cache/vigil-deb-check). Needs root (chroot, mounts).
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "deb-check: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mounts)"
# In a mount namespace of its own, private: the root's mounts never reach the host's (a shared /
# would carry /dev/pts over), and they end with this process however it ends. Proved by what the
# kernel says, never by a variable: this process's mount namespace is not its parent's (unshare
# executes this script in place, so the parent is whoever started it) and / propagates nothing.
# Not proved after one unshare: stop, nothing mounted.
private_mounts() {
  local own parent
  own=$(readlink /proc/self/ns/mnt 2>/dev/null) || return 1
  parent=$(readlink "/proc/$PPID/ns/mnt" 2>/dev/null) || return 1
  [ -n "$own" ] && [ -n "$parent" ] && [ "$own" != "$parent" ] && [ "$(findmnt -no PROPAGATION /)" = private ]
}
if ! private_mounts; then
  [ "${1:-}" != --in-private-mounts ] || fail "not in a private mount namespace of its own after unshare (the kernel says otherwise); nothing was mounted"
  exec unshare --mount --propagation private "$0" --in-private-mounts "$@"
fi
[ "${1:-}" != --in-private-mounts ] || shift
command -v debootstrap >/dev/null || fail "debootstrap is missing (make bootstrap installs it)"
DEB=$(ls -t results/vigil_*_"$(dpkg --print-architecture)".deb 2>/dev/null | head -1)
[ -n "$DEB" ] || fail "no package in results/ (make deb)"

# This machine's Debian mirror, from its apt sources (deb822 or one-line): the stanza signed with
# Debian's archive key, not a third party's.
MIRROR=$(python3 - /etc/apt/sources.list.d/*.sources <<'PY' 2>/dev/null || true
import sys
for path in sys.argv[1:]:
    for stanza in open(path).read().split("\n\n"):
        fields = dict(line.split(":", 1) for line in stanza.splitlines() if ":" in line and not line.startswith(("#", " ")))
        if "debian-archive-keyring" in fields.get("Signed-By", "") and "security" not in fields.get("URIs", ""):
            print(fields["URIs"].split()[0]); sys.exit()
PY
)
[ -n "$MIRROR" ] || MIRROR=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$MIRROR" ] || fail "no Debian mirror in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
SUITE=bookworm
CACHE=${VIGIL_DEB_CHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vigil-deb-check}
BASE="$CACHE/$SUITE-minbase.tar"
mkdir -p "$CACHE"
if [ ! -s "$BASE" ]; then
  echo "deb-check: making a Debian $SUITE root (debootstrap minbase from $MIRROR), cached as $BASE"
  made=$(mktemp -d)
  debootstrap --keyring=/usr/share/keyrings/debian-archive-keyring.gpg --variant=minbase "$SUITE" "$made" "$MIRROR" > "$CACHE/debootstrap.log" 2>&1 || {
    tail -20 "$CACHE/debootstrap.log" >&2
    rm -rf --one-file-system "$made"
    fail "debootstrap could not make the root (log: $CACHE/debootstrap.log)"
  }
  tar -C "$made" -cf "$BASE.part" . && mv "$BASE.part" "$BASE"
  rm -rf --one-file-system "$made"
fi

ROOT=$(mktemp -d)
chmod 0755 "$ROOT"  # apt's _apt user reads its downloads there
WORKLIST=$(mktemp)
mounted=()
unmount_all() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  mounted=()
}
# The root is removed only on its own file system (--one-file-system): should an unmount fail, a
# bind mount of the host's /dev is left alone, never descended into.
remove_root() {
  if grep -qF " $ROOT/" /proc/mounts; then
    echo "deb-check: $ROOT still has mounts; not removed" >&2
    return 1
  fi
  rm -rf --one-file-system "$ROOT"
}
# Every process still running in the root (the simulator, a keyring daemon) is ended first.
stop_root_processes() {
  for process in /proc/[0-9]*; do
    [ "$(readlink "$process/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "${process#/proc/}" 2>/dev/null || true
  done
}
cleanup() {
  stop_root_processes
  unmount_all
  remove_root || true
  rm -f "$WORKLIST"
}
trap cleanup EXIT
tar -C "$ROOT" -xf "$BASE"
for m in proc sys dev dev/pts; do
  case $m in
    proc) mount -t proc proc "$ROOT/proc" ;;
    sys) mount -t sysfs sysfs "$ROOT/sys" ;;
    *) mount --bind "/$m" "$ROOT/$m" ;;
  esac
  mounted+=("$ROOT/$m")
done
mount -t tmpfs tmpfs "$ROOT/run" && mounted+=("$ROOT/run")
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp "$DEB" "$ROOT/tmp/"
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

in_root sh -c 'command -v swift swiftc >/dev/null' && fail "the root has Swift"
[ ! -e "$ROOT/opt/swift" ] || fail "the root has /opt/swift"
before=$(in_root dpkg-query -W -f='${Package}\n' | sort)
echo "deb-check: apt-get install ./$(basename "$DEB") in a Debian $SUITE root without Swift"
in_root apt-get update -qq > /dev/null
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/tmp/$(basename "$DEB")" > "$CACHE/install.log" 2>&1 || {
  tail -20 "$CACHE/install.log" >&2
  fail "apt-get install failed"
}
added=$(comm -13 <(echo "$before") <(in_root dpkg-query -W -f='${Package}\n' | sort) | tr '\n' ' ')
echo "deb-check: installed with: $added"
# Every package but vigil came from Debian's archive: the installed version (apt's `***` line) is
# the mirror's.
for package in $added; do
  [ "$package" = vigil ] && continue
  source=$(in_root apt-cache policy "$package" | awk '/^ \*\*\* / { found = 1; next } found && /^ +[0-9]+ / { print; exit }')
  case "$source" in *"$MIRROR"*) ;; *) fail "$package $source: not from $MIRROR" ;; esac
done
in_root sh -c 'command -v swift' && fail "installing vigil brought Swift"

version=$(in_root vigil --version)
echo "deb-check: vigil --version: $version"
dpkg-deb -f "$DEB" Version | grep -qxF "$version" || fail "vigil --version ($version) is not the package's version"

# A loopback server: the packaged simulator, on the valid scenario; its CA from the package.
CA=/usr/share/vigil/testcerts/ca-bundle.pem
in_root sh -c 'vigil simulator serve --scenario valid > /tmp/serve.out 2>&1 & echo $! > /tmp/serve.pid'
for _ in $(seq 1 50); do grep -q "host 1" "$ROOT/tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^host 1 *\(https:[^ ]*\).*/\1/p' "$ROOT/tmp/serve.out")
[ -n "$URL" ] || { cat "$ROOT/tmp/serve.out" >&2; fail "the packaged simulator did not start"; }
in_root vigil inspect "$URL" --ca-file "$CA" > "$ROOT/tmp/inspect.out" || { cat "$ROOT/tmp/inspect.out" >&2; fail "vigil inspect $URL"; }
grep -q "TRUSTED\|trusted" "$ROOT/tmp/inspect.out" || fail "vigil inspect did not trust the test CA's server"
echo "deb-check: vigil inspect $URL: trusted"

# account add in a private D-Bus session with an unlocked GNOME Keyring (the package's Recommends).
in_root dbus-run-session -- sh -c '
  export XDG_DATA_HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d)
  printf vigil-deb-check | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  printf "alice-test-password\n" | vigil account add "$1" --user alice --password-stdin --ca-file "$2"
  vigil account check alice@127.0.0.1 --ca-file "$2"' sh "$URL" "$CA" > "$ROOT/tmp/account.out" 2>&1 || { cat "$ROOT/tmp/account.out" >&2; fail "vigil account add or check"; }
grep -q "added account" "$ROOT/tmp/account.out" || { cat "$ROOT/tmp/account.out" >&2; fail "vigil account add did not add"; }
grep -q ": OK: " "$ROOT/tmp/account.out" || { cat "$ROOT/tmp/account.out" >&2; fail "vigil account check did not open the files with the kept password"; }
echo "deb-check: vigil account add: added; account check opened the files with the password from the root's GNOME Keyring"
kill "$(cat "$ROOT/tmp/serve.pid")" 2>/dev/null || true

in_root vigil simulate --scenario valid --scenario mitm-forged > "$ROOT/tmp/simulate.out" 2>&1 || { cat "$ROOT/tmp/simulate.out" >&2; fail "vigil simulate"; }
echo "deb-check: $(tail -1 "$ROOT/tmp/simulate.out")"

# The README's quick start, as written, as a newcomer runs it on this fresh machine: in a desktop
# session (here a private D-Bus session with an unlocked GNOME Keyring), from the home directory;
# its `account check --all` is the one without flags a cron job would run, and must say OK.
quick=$(python3 - README.md <<'PY'
import sys
text = open(sys.argv[1]).read()
print(text.split("<!-- quick-start:", 1)[1].split("```sh", 1)[1].split("```", 1)[0].strip())
PY
)
[ -n "$quick" ] || fail "no quick start block in README.md"
printf '%s\n' "$quick" > "$ROOT/tmp/quick-start.sh"
in_root dbus-run-session -- sh -c '
  export XDG_DATA_HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d) XDG_STATE_HOME=$(mktemp -d)
  printf vigil-deb-check | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  cd /root && bash -e /tmp/quick-start.sh' > "$ROOT/tmp/quick.out" 2>&1 || { cat "$ROOT/tmp/quick.out" >&2; fail "the README's quick start, as written"; }
grep -q ": OK: " "$ROOT/tmp/quick.out" || { cat "$ROOT/tmp/quick.out" >&2; fail "the quick start's account check --all did not say OK"; }
echo "deb-check: the README's quick start, as written, on a fresh Debian 12 root: the account checked OK by account check --all without flags"

# Purged, nothing of the package is left (the files dpkg listed; directories others share stay).
in_root dpkg -L vigil > "$WORKLIST"
count=$(while IFS= read -r f; do if [ -f "$ROOT$f" ]; then echo "$f"; fi; done < "$WORKLIST" | wc -l)
[ "$count" -gt 0 ] || fail "dpkg -L vigil lists no file"
in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq vigil > /dev/null
# No file, no directory of its own (/usr/share/vigil, /usr/share/doc/vigil), no dpkg record.
left=$(while IFS= read -r f; do
  case "$f" in /usr/share/vigil* | /usr/share/doc/vigil*) [ -e "$ROOT$f" ] && echo "$f" ;; *) [ -f "$ROOT$f" ] && echo "$f" ;; esac || true
done < "$WORKLIST"; ls "$ROOT"/var/lib/dpkg/info/vigil.* 2>/dev/null || true)
[ -z "$left" ] || fail "apt-get purge left: $(echo "$left" | head -5)"
echo "deb-check: apt-get purge vigil: $count files gone, none left (nor its directories, nor dpkg's record)"

# docs/ci.md's GitLab recipe, as written, in a fresh root (debian:12 as the recipe's image), the
# package at a file:// URL; shard 1 of 3, timed.
stop_root_processes
unmount_all
remove_root || fail "the first root could not be removed"
ROOT=$(mktemp -d)
chmod 0755 "$ROOT"
tar -C "$ROOT" -xf "$BASE"
for m in proc dev dev/pts; do
  if [ $m = proc ]; then mount -t proc proc "$ROOT/proc"; else mount --bind "/$m" "$ROOT/$m"; fi
  mounted+=("$ROOT/$m")
done
mount -t tmpfs tmpfs "$ROOT/run" && mounted+=("$ROOT/run")
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp "$DEB" "$ROOT/tmp/"
recipe=$(python3 - docs/ci.md <<'PY'
import sys
text = open(sys.argv[1]).read()
block = text.split("### GitLab CI", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
lines, part = [], None
for line in block.split("\n"):
    if line.strip() in ("before_script:", "script:"):
        part = line.strip()
    elif part and line.startswith("    - "):
        lines.append(line[6:])
    elif line and not line.startswith("    "):
        part = None
print("\n".join(lines))
PY
)
[ -n "$recipe" ] || fail "no GitLab recipe found in docs/ci.md"
start=$(date +%s.%N)
in_root env VIGIL_DEB_URL="file:///tmp/$(basename "$DEB")" VIGIL_DEB_SHA256="$(sha256sum "$DEB" | cut -d' ' -f1)" CI_NODE_INDEX=1 CI_NODE_TOTAL=3 DEBIAN_FRONTEND=noninteractive \
  sh -ec "cd /root && $(echo "$recipe" | sed 's/.*/{ & ; } >> \/tmp\/recipe.log 2>\&1/')" || { tail -20 "$ROOT/tmp/recipe.log" >&2; fail "docs/ci.md's GitLab recipe failed"; }
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
[ -s "$ROOT/root/simulate.xml" ] || fail "the GitLab recipe wrote no simulate.xml"
echo "deb-check: docs/ci.md's GitLab recipe, as written, in a fresh Debian 12 root: ${took} s ($(grep -c '<testcase' "$ROOT/root/simulate.xml") scenarios of shard 1/3; $(grep 'scenarios, ' "$ROOT/tmp/recipe.log" | tail -1))"
echo "deb-check: OK ($(basename "$DEB") on Debian $SUITE without Swift)"
