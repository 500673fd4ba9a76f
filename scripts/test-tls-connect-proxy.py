#!/usr/bin/env python3
"""A TLS CONNECT proxy for tests: `test-tls-connect-proxy.py PORT CERT KEY [LOG]`. Writes (to LOG,
or standard output) its port and what each client sent before the tunnel (the CONNECT line and its headers, Proxy-Authorization included), so
that a test can prove whether a proxy password reached it. Test helper only."""
import socket, ssl, threading, sys
if len(sys.argv) > 4:
    sys.stdout = open(sys.argv[4], 'w', buffering=1)
port = int(sys.argv[1])
cert, key = sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); srv.bind(('127.0.0.1', port)); srv.listen(5)
print(f'LISTENING {srv.getsockname()[1]}', flush=True)
def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d: break
            b.sendall(d)
    except Exception: pass
def handle(c):
    try:
        s = ctx.wrap_socket(c, server_side=True)
    except Exception as e:
        print("TLS failed:", e, flush=True); return
    data = b''
    while b'\r\n\r\n' not in data:
        d = s.recv(4096)
        if not d: return
        data += d
    head = data.split(b'\r\n\r\n')[0].decode()
    print("PROXY GOT:", head.replace('\r\n', ' | '), flush=True)
    target = head.split()[1]
    h, p = target.rsplit(':', 1)
    up = socket.create_connection((h, int(p)))
    s.sendall(b'HTTP/1.1 200 Connection established\r\n\r\n')
    threading.Thread(target=pipe, args=(s, up), daemon=True).start()
    pipe(up, s)
while True:
    c, _ = srv.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
