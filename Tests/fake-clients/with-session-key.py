#!/usr/bin/env python3
"""Puts a key named NAME (value "session-secret") in a new session keyring of this process, then
executes COMMAND in its place, which inherits that session keyring: what a user's Kerberos
KEYRING: cache or fscrypt key looks like to the programs they start.

Usage: with-session-key.py NAME COMMAND [ARGUMENT...]
       with-session-key.py --find NAME   (exit 0 and "found" when the session keyring holds it)
"""
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
# x86_64 and aarch64 numbers of add_key and keyctl.
ADD_KEY, KEYCTL = (248, 250) if os.uname().machine == "x86_64" else (217, 219)
SESSION = ctypes.c_int(-3)  # KEY_SPEC_SESSION_KEYRING
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_SEARCH = 1, 10

if sys.argv[1] == "--find":
    found = libc.syscall(KEYCTL, KEYCTL_SEARCH, SESSION, b"user", sys.argv[2].encode(), 0)
    print("found" if found > 0 else "absent")
    sys.exit(0 if found > 0 else 1)
if libc.syscall(KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
    sys.exit("cannot join a session keyring: errno %d" % ctypes.get_errno())
if libc.syscall(ADD_KEY, b"user", sys.argv[1].encode(), b"session-secret", 14, SESSION) < 0:
    sys.exit("cannot add the key: errno %d" % ctypes.get_errno())
os.execvp(sys.argv[2], sys.argv[2:])
