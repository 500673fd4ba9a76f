#!/bin/sh
# A hostile sync client: before it logs in honestly (curl, the scenario's CA), it tries to leave
# the cell `vigil simulate --client` runs it in, each way a client built from a branch could.
# Usage: escaping-client.sh URL USER PASSWORD CA_FILE
# Its last line says what worked ("ESCAPED: ...") or how many attempts the cell held.
URL=$1 USER=$2 PASSWORD=$3 CA_FILE=$4
ESCAPED="" HELD=0
tried() { if [ "$1" = 0 ]; then ESCAPED="$ESCAPED; $2"; else HELD=$((HELD + 1)); fi; }

umount /run 2>/dev/null; tried $? "umount /run"
umount -l /tmp 2>/dev/null; tried $? "umount -l /tmp"
mount -t tmpfs none /mnt 2>/dev/null; tried $? "mount a tmpfs"
unshare -rm sh -c 'umount -l /run && ls /run/dbus' >/dev/null 2>&1; tried $? "umount /run in a user namespace of its own"
unshare -rm sh -c 'mount --bind / /mnt && ls /mnt/run/dbus' >/dev/null 2>&1; tried $? "a new bind mount of / in a user namespace of its own"
nsenter -t 1 -m -n true 2>/dev/null; tried $? "nsenter into PID 1's namespaces"
# The invoker's session keyring (a Kerberos KEYRING: cache): the judge's test puts a key there.
python3 "$(dirname "$0")/with-session-key.py" --find vigil-invoker-key >/dev/null 2>&1; tried $? "a key of the invoker's session keyring"
grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status; tried $(( $? == 0 )) "a capability"
# /run is the cell's own (empty, but for the tripwires' folders, the filter's socket and what mount(8) wrote).
[ -z "$(ls -A /run 2>/dev/null | grep -v -x -e user -e dbus -e systemd -e mount -e vigil-cell)" ]; tried $(( $? == 0 )) "something of the machine's in /run"
[ -z "$(ls -A /root 2>/dev/null)$(ls -A /home 2>/dev/null)" ]; tried $(( $? == 0 )) "a home folder of the machine's"
touch /etc/vigil-escaped 2>/dev/null; tried $? "write /etc"
# Beside its scratch folder is the cell's own tmpfs: the judge's test looks for this file outside.
touch "$(dirname "$CA_FILE")/../vigil-escaped" 2>/dev/null
for socket in /run/dbus/system_bus_socket /run/systemd/private "/run/user/$(id -u)/bus" /tmp/.X11-unix/X0; do
  # A connection made is recorded by the judge; an answer would be an escape.
  answered=$(python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(sys.argv[1]); s.sendall(b"\0AUTH EXTERNAL\r\n"); sys.stdout.write(s.recv(64).decode(errors="replace"))' "$socket" 2>/dev/null)
  [ -n "$answered" ]; tried $? "an answer from $socket"
done
if [ -n "$ESCAPED" ]; then echo "ESCAPED$ESCAPED"; else echo "the cell held all $HELD attempts"; fi
curl -s -f -o /dev/null --cacert "$CA_FILE" -u "$USER:$PASSWORD" -X PROPFIND -H 'Depth: 0' "$URL/remote.php/dav/files/$USER/"
