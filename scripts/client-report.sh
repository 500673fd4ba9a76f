#!/usr/bin/env bash
# Holds the sync clients Debian packages (curl, owncloudcmd, nextcloudcmd, rclone) and Vigil
# itself to every scenario and writes docs/clients.md and docs/clients.html:
#   scripts/client-report.sh [VIGIL_BINARY]
# Installs the clients it can (apt-get, as root); a client that cannot be installed is left out
# and said so. The verdicts come from the simulator's journal (vigil simulate --client).
set -euo pipefail
cd "$(dirname "$0")/.."
VIGIL=${1:-.build/debug/vigil}
[ -x "$VIGIL" ] && [ -x "$(dirname "$VIGIL")/vigil-simulator" ] || scripts/build.sh
VIGIL=$(cd "$(dirname "$VIGIL")" && pwd)/$(basename "$VIGIL")
declare -A PACKAGE=([curl]=curl [owncloudcmd]="owncloud-client-cmd owncloud-client-data" [nextcloudcmd]=nextcloud-desktop-cmd [rclone]=rclone)
missing=()
for client in curl owncloudcmd nextcloudcmd rclone; do command -v "$client" >/dev/null || missing+=(${PACKAGE[$client]}); done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
  echo "client-report: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || echo "client-report: apt-get could not install all of ${missing[*]}" >&2
fi
# Each client in a network namespace of its own; where none can be made, in this machine's
# network, and the report says so (vigil simulate --no-network-namespace).
network=()
if ! unshare --user --map-root-user --net --mount --propagation private -- sh -c 'ip link set lo up && ip route add local 0.0.0.0/0 dev lo && nft add table inet probe' 2>/dev/null; then
  echo "client-report: network namespaces cannot be made here; clients judged with --no-network-namespace" >&2
  network=(--no-network-namespace)
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
specs=()
# Vigil itself first, for comparison: the same scenarios an external client plays.
"$VIGIL" simulate --json > "$WORK/vigil.json" || true
specs+=("vigil=$WORK/vigil.json=$("$VIGIL" --version)")
for client in curl owncloudcmd nextcloudcmd rclone; do
  if ! command -v "$client" >/dev/null; then
    echo "client-report: $client is not installed; left out" >&2
    continue
  fi
  case $client in
    rclone) version=$(rclone version 2>/dev/null | head -1) ;;
    curl) version=$(curl --version | head -1 | cut -d' ' -f1-2) ;;
    *) version=$("$client" --version 2>/dev/null | grep -m1 -iE "[0-9]+\.[0-9]+" || echo unknown) ;;
  esac
  echo "client-report: $client ($version)" >&2
  "$VIGIL" simulate --client "$client" --json "${network[@]}" > "$WORK/$client.json" || true
  specs+=("$client=$WORK/$client.json=$version")
done
python3 scripts/client-report.py docs/clients.md docs/clients.html "${specs[@]}"
echo "client-report: wrote docs/clients.md and docs/clients.html (${#specs[@]} clients)" >&2
