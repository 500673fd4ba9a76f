#!/usr/bin/env bash
# Runs a command with a real Secret Service of its own: GNOME Keyring, unlocked with a test
# password, its keyrings in a temporary XDG_DATA_HOME. Run it inside a private D-Bus session:
#   dbus-run-session -- scripts/keyring-session.sh swift test
# The keyring tests read KEYRING_SESSION_DIR (where the keyring files are) and run only here.
set -euo pipefail
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  echo "keyring-session: no D-Bus session; run under dbus-run-session" >&2
  exit 2
fi
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
export XDG_DATA_HOME="$DATA"
# The daemon's control socket goes under XDG_RUNTIME_DIR: a private one, not the user's session.
export XDG_RUNTIME_DIR="$DATA/run"
mkdir -m 0700 "$XDG_RUNTIME_DIR"
export KEYRING_SESSION_DIR="$DATA/keyrings"
# A non-empty unlock password: GNOME Keyring keeps a keyring with an empty one unencrypted.
printf 'vigil-test-unlock' | gnome-keyring-daemon --unlock --components=secrets >/dev/null || {
  echo "keyring-session: gnome-keyring-daemon did not start" >&2
  exit 2
}
"$@"
