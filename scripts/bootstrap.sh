#!/usr/bin/env bash
# Installs the Debian packages Vigil builds and tests with, when they are missing.
# Says what it does; does nothing when everything is there.
set -euo pipefail
# chromium and libnss3-tools: the real browser of the end-to-end OAuth2 and OpenID Connect tests.
# nginx-light: the real mutual-TLS reverse proxy of the client certificate tests; softhsm2 and
# libengine-pkcs11-openssl: a key on a token (PKCS#11) for them.
# libpacparser1: pactester, which evaluates proxy auto-config files (PAC) for Vigil itself;
# bubblewrap: the cell pactester and every `vigil simulate --client` client run in;
# libglib2.0-bin and gsettings-desktop-schemas: gsettings and GNOME's proxy schema (the desktop's proxy).
# squid-openssl and apache2-utils (htpasswd): the real forward proxy of the proxy tests (auth, ssl_bump).
# systemd: systemd-analyze verifies the vigil-check units. dpkg-dev (dpkg-shlibdeps), lintian and
# debootstrap: make deb and make deb-check (a Debian root without Swift). zsh and fish: the
# completion scripts are tried in the shells they are for. krb5-kdc, krb5-admin-server
# (kadmin.local) and krb5-user (kinit, klist): a Kerberos realm of the tests' own on loopback, for
# Squid's negotiate_kerberos_auth (klist also tells a user whose ticket is missing or expired).
# sslscan: the anchor `vigil server check`'s scan is compared with on the same nginx.
packages=(libssl-dev libcurl4-openssl-dev libsqlite3-dev libsecret-1-0 libsecret-1-dev gnome-keyring dbus dbus-daemon openssl publicsuffix python3 pkg-config curl bsdutils chromium libnss3-tools sqlite3 zlib1g-dev nginx-light softhsm2 libengine-pkcs11-openssl libpacparser1 bubblewrap libglib2.0-bin gsettings-desktop-schemas squid-openssl apache2-utils python3-cryptography iproute2 nftables systemd dpkg-dev lintian debootstrap zsh fish krb5-kdc krb5-admin-server krb5-user sslscan)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all Debian packages present (${packages[*]})"
else
  echo "bootstrap: installing missing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "bootstrap: installed ${missing[*]}"
fi
command -v swift >/dev/null || { echo "bootstrap: swift is not on PATH (Swift 6.1 or later is required; see README)" >&2; exit 1; }
