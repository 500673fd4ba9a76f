#!/usr/bin/env python3
"""Writes the seed corpus of the parser fuzz targets (Fuzz/corpus/TARGET/). Seeds named ok-* must
be accepted and bad-* refused (Tests/VigilFuzzTests replays them); crash-* files are inputs a fuzz
run once crashed on, kept as regressions. Run again to regenerate; the id_token seeds use a fresh
key each time, so they differ byte for byte but not in outcome."""
import base64, hashlib, hmac, json, os, sys
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
server = "https://cloud.example.com"

def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def write(target, name, content):
    os.makedirs(os.path.join(root, target), exist_ok=True)
    with open(os.path.join(root, target, name), "wb") as f:
        f.write(content.encode() if isinstance(content, str) else content)

def seeds():
    renewal = ("(bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData) OR ((check.parentCertificatesHaveIdenticalPublicKeys == true)"
               " AND (serverCertificate.passedValidationOrIsUserAccepted == true))")
    write("rules", "ok-seeds-renewal", renewal)
    write("rules", "ok-not", 'NOT (bookmarkCertificate == serverCertificate) AND serverCertificate.parentCertificate.commonName == "CA"')
    write("rules", "ok-fingerprint", 'serverCertificate.sha256Fingerprint.asFingerPrintString == "AB CD" OR never')
    write("rules", "bad-unclosed", "(true")
    write("rules", "bad-member", "serverCertificate.publicKey == true")
    write("rules", "bad-deep", "(" * 100 + "true" + ")" * 100)

    status = {"installed": True, "maintenance": False, "needsDbUpgrade": False, "version": "10.15.0.2", "versionstring": "10.15.0",
              "edition": "Community", "productname": "ownCloud", "product": "ownCloud"}
    write("status", "ok-owncloud", json.dumps(status))
    write("status", "bad-maintenance", json.dumps(dict(status, maintenance=True)))
    write("status", "bad-old-version", json.dumps(dict(status, version="8.2.11")))
    write("status", "bad-not-installed", json.dumps(dict(status, installed=False)))
    write("status", "bad-html", "<html><body>Login</body></html>")

    write("www-authenticate", "ok-basic-bearer", 'Basic realm="ownCloud", charset="UTF-8"\nBearer realm="ownCloud"')
    write("www-authenticate", "ok-quoted-commas", 'Newauth realm="apps, \\"more\\"", type=1, title="Login to \\"apps\\"", Basic realm="simple"')
    write("www-authenticate", "bad-parameters-only", 'realm="x", charset=UTF-8')

    write("location", "ok-relative", "../../index.php/login?redirect_url=%2F")
    write("location", "ok-other-host", "https://sso.example.com:8443/auth?x=1#frag")
    write("location", "ok-downgrade", "http://cloud.example.com/status.php")
    write("location", "ok-userinfo", "https://alice:secret@cloud.example.com/")
    write("location", "ok-scheme-relative", "//evil.example.net/x")
    write("location", "bad-javascript", "javascript:alert(1)")
    write("location", "bad-ftp", "ftp://cloud.example.com/")

    discovery = {"issuer": server, "authorization_endpoint": server + "/authorize", "token_endpoint": server + "/token",
                 "jwks_uri": server + "/jwks", "registration_endpoint": server + "/register", "userinfo_endpoint": server + "/userinfo",
                 "code_challenge_methods_supported": ["S256"], "scopes_supported": ["openid", "profile", "email", "offline_access"]}
    write("openid-discovery", "ok-discovery", json.dumps(discovery))
    write("openid-discovery", "bad-mix-up", json.dumps(dict(discovery, issuer="https://evil.example.net")))
    write("openid-discovery", "bad-plain-token-endpoint", json.dumps(dict(discovery, token_endpoint="http://cloud.example.com/token")))

    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
           "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
    jwks = json.dumps({"keys": [jwk, {"kty": "oct", "kid": "hmac", "k": b64(b"shared-secret")}]})
    write("jwks", "ok-ec-and-oct", jwks)
    write("jwks", "bad-oct-only", json.dumps({"keys": [{"kty": "oct", "kid": "hmac", "k": b64(b"shared-secret")}]}))
    write("jwks", "bad-not-object", "[1,2,3]")

    def token(header, claims, sign="ec"):
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        signature = b""
        if sign == "ec":
            r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
            signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
        elif sign == "hmac":
            signature = hmac.new(b"shared-secret", signing_input.encode(), hashlib.sha256).digest()
        return signing_input + "." + b64(signature)
    claims = {"iss": server, "sub": "alice", "aud": "vigil", "exp": 1_800_000_600, "iat": 1_800_000_000, "nonce": "n-0S6_WzA2Mj"}
    # The harness's clock is 1,800,000,000 and its nonce n-0S6_WzA2Mj: the first token is genuine
    # (signed by the JWKS's EC key); each other breaks one rule, and only that rule.
    write("id-token", "ok-signed", token({"alg": "ES256", "kid": "k1"}, claims) + "\n" + jwks)
    write("id-token", "bad-signed-wrong-audience", token({"alg": "ES256", "kid": "k1"}, dict(claims, aud="someone-else")) + "\n" + jwks)
    write("id-token", "bad-signed-wrong-nonce", token({"alg": "ES256", "kid": "k1"}, dict(claims, nonce="replayed")) + "\n" + jwks)
    write("id-token", "bad-signed-expired", token({"alg": "ES256", "kid": "k1"}, dict(claims, exp=1_799_990_000)) + "\n" + jwks)
    write("id-token", "bad-alg-none", token({"alg": "none"}, claims, sign=None) + "\n" + jwks)
    write("id-token", "bad-hmac-with-oct-key", token({"alg": "HS256", "kid": "hmac"}, claims, sign="hmac") + "\n" + jwks)
    write("id-token", "bad-es256-naming-oct-key", token({"alg": "ES256", "kid": "hmac"}, claims) + "\n" + jwks)
    write("id-token", "bad-unknown-kid", token({"alg": "ES256", "kid": "k9"}, claims) + "\n" + jwks)
    write("id-token", "bad-two-parts", "eyJhbGciOiJFUzI1NiJ9.e30\n" + jwks)

    fixtures = os.path.join(os.path.dirname(root), "..", "mitm-fixtures")
    for name in ["valid", "mitm-forged", "redirect-chain-30", "simple-apm", "oidc-mix-up"]:
        with open(os.path.join(fixtures, name + ".json"), "rb") as f:
            write("fixture", "ok-" + name, f.read())
    with open(os.path.join(fixtures, "valid.json")) as f:
        valid = json.load(f)
    write("fixture", "bad-unknown-outcome", json.dumps(dict(valid, outcome="maybe"), indent=2))
    write("fixture", "bad-empty", "")

    write("settings", "ok-nested", json.dumps({"log": {"level": "debug", "privacy-mask": True}, "connection": {"plain-http-policy": "warn"}}))
    write("settings", "ok-flat", json.dumps({"http.user-agent": "Vigil/{app.version} ({os.name})", "core.cookie-support-enabled": False}))
    write("settings", "ok-whitespace", " \n\t")
    write("settings", "bad-wrong-type", json.dumps({"log": {"level": 3}}))
    write("settings", "bad-unknown-level", json.dumps({"log.level": "loud"}))
    write("settings", "bad-array", "[1]")
    write("settings", "bad-syntax", '{"log": {"level": "debug",}')

if __name__ == "__main__":
    seeds()
    print("seeds written under", root)
