#!/usr/bin/env bash
# make deb: vigil_VERSION_amd64.deb from the release build, with Debian's own tools only
# (dpkg-shlibdeps for what the binaries link, dpkg-deb to build, lintian to check).
#
# One package holds both executables: `vigil simulate` runs vigil-simulator from beside itself
# (/usr/bin), and the simulator's data (/usr/share/vigil) serves both; a second package would
# only add a dependency to keep in step. Layout: `make install PREFIX=/usr` (the one definition of
# what is installed), plus the gzipped man pages, the systemd user units, the copyright file and
# the changelog Debian policy asks for.
#
# The version is the one `vigil --version` prints (UserAgent.appVersion, one place).
# Output: results/vigil_VERSION_ARCH.deb, and its lintian report beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=results
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOT="$WORK/root"
make --no-print-directory release >/dev/null
make --no-print-directory install DESTDIR="$ROOT" PREFIX=/usr >/dev/null
VERSION=$("$ROOT/usr/bin/vigil" --version)
ARCH=$(dpkg --print-architecture)
# The maintainer: whoever made the commit built (DEBFULLNAME/DEBEMAIL override it).
MAINTAINER="${DEBFULLNAME:-$(git log -1 --format=%an 2>/dev/null || echo 'Vigil developers')} <${DEBEMAIL:-$(git log -1 --format=%ae 2>/dev/null || echo vigil@localhost)}>"
[[ "$VERSION" =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "deb: vigil --version printed '$VERSION', not a Debian version" >&2; exit 1; }

# Man pages gzipped (policy 12.1); bash completions are sourced, not run (no #! line); the
# systemd user units (never enabled by the package).
gzip -9n "$ROOT"/usr/share/man/man1/*.1
sed -i '1{/^#!/d}' "$ROOT/usr/share/bash-completion/completions/vigil"
install -d "$ROOT/usr/lib/systemd/user"
install -m 0644 packaging/systemd/vigil-check.service packaging/systemd/vigil-check.timer "$ROOT/usr/lib/systemd/user/"

# /usr/share/doc/vigil: copyright (machine-readable, with what is statically linked) and changelog.
DOC="$ROOT/usr/share/doc/vigil"
install -d "$DOC"
scripts/deb-copyright.sh > "$DOC/copyright"
{
  echo "vigil ($VERSION) unstable; urgency=medium"
  echo
  echo "  * Built from $(git rev-parse --short HEAD 2>/dev/null || echo 'a source tree') with Swift's runtime linked statically."
  echo "    The changes are in the source's git log and docs/."
  echo
  echo " -- $MAINTAINER  $(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")"
} | gzip -9n > "$DOC/changelog.gz"  # a native package (no Debian revision): changelog.gz
install -d "$ROOT/usr/share/lintian/overrides"
install -m 0644 packaging/debian/lintian-overrides "$ROOT/usr/share/lintian/overrides/vigil"

# Depends: what the binaries link (dpkg-shlibdeps), and by hand what Vigil loads at run time.
mkdir -p "$WORK/src/debian"
printf 'Source: vigil\n\nPackage: vigil\nArchitecture: any\n' > "$WORK/src/debian/control"
shlibs=$(cd "$WORK/src" && dpkg-shlibdeps -O -e "$ROOT/usr/bin/vigil" -e "$ROOT/usr/bin/vigil-simulator" 2> "$WORK/shlibdeps.log" | sed -n 's/^shlibs:Depends=//p') || {
  cat "$WORK/shlibdeps.log" >&2
  echo "deb: dpkg-shlibdeps failed (above)" >&2
  exit 1
}
[ -n "$shlibs" ] || { echo "deb: dpkg-shlibdeps found no dependency" >&2; exit 1; }
size=$(du -sk "$ROOT" | cut -f1)
install -d "$ROOT/DEBIAN"
# Depends, by hand and why (dlopen: the linker does not see them):
#   libcurl4: every HTTP request and TLS handshake (CCurl loads libcurl.so.4 at first use);
#   libsecret-1-0: the Secret Service keyring, where every secret goes (libsecret-1.so.0).
# Recommends: gnome-keyring and dbus-user-session (a Secret Service to talk to; another one, such
#   as KeePassXC's, does as well); libpacparser1 (pactester, for PAC files) and bubblewrap (the
#   cell pactester and simulate --client's client run in: without it neither runs); openssl (the
#   simulate --client judge's entitlement check); curl (vigil simulate's scripted browser: without
#   it the suite says so and stops).
# Suggests: libengine-pkcs11-openssl (client keys on a token), nftables (simulate --client in a
#   network namespace of its own).
cat > "$ROOT/DEBIAN/control" <<EOF
Package: vigil
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $size
Depends: $shlibs, libcurl4, libsecret-1-0
Recommends: gnome-keyring, dbus-user-session, libpacparser1, bubblewrap, openssl, curl
Suggests: libengine-pkcs11-openssl, nftables
Section: net
Priority: optional
Description: certificate review and security suite for file-sync cloud clients
 Vigil adds ownCloud, OpenCloud and Nextcloud accounts with a review of the
 server's certificate chain before any credential leaves the machine, keeps
 secrets in the Secret Service keyring, and audits the certificates users
 approved.
 .
 It also ships a host simulator and a security suite (vigil simulate) that
 holds Vigil's own client, or any sync client, to man-in-the-middle,
 certificate, revocation and identity scenarios, judged from what reached the
 wire. The systemd user units vigil-check.service and vigil-check.timer run a
 daily check when the user enables them.
 .
 The simulator's test PKI in /usr/share/vigil/testcerts is public test
 material: its private keys are no secret, and nothing it signs may ever be
 trusted outside Vigil's tests.
EOF
(cd "$ROOT" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"
DEB="$OUT/vigil_${VERSION}_${ARCH}.deb"
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >/dev/null
echo "deb: $DEB ($(du -h "$DEB" | cut -f1)); Depends: $shlibs, libcurl4, libsecret-1-0"
# lintian: no error; every warning fixed or overridden with its reason (packaging/debian/lintian-overrides).
if command -v lintian >/dev/null; then
  lintian --fail-on error,warning --display-info "$DEB" > "$DEB.lintian" 2>&1 || {
    cat "$DEB.lintian" >&2
    echo "deb: lintian reports errors or warnings (above)" >&2
    exit 1
  }
  echo "deb: lintian: no error, no warning ($(grep -c '^I:' "$DEB.lintian" || true) notes in $DEB.lintian)"
else
  echo "deb: lintian is not installed (make bootstrap installs it)" >&2
  exit 1
fi
