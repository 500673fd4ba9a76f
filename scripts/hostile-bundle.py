#!/usr/bin/python3
"""Chains sent with hundreds of certificates, for path building's tests.

Usage: scripts/hostile-bundle.py OUTPUT_DIR

Writes, each as leaf first then the bundle:
- big-bundle.pem: a server certificate under "Issuing CA", sent with 300 unrelated CA
  certificates before its own issuer (a server that sends its whole bundle), and root.pem;
- cross-signed-bundle.pem: the same, with the issuing CA also cross-signed by a root nobody
  trusts and sent first (the path that verifies is the last certificate of 302);
- mesh.pem: a leaf whose issuer name is carried by 200 CA certificates that all share one name
  and sign each other in a ring and across (a deep mesh with cycles), none of them chaining to
  root.pem: a path builder must stop by a bound on its work, not by luck.
Built with Debian's python3-cryptography, new keys on every run.
"""

import datetime
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOT_BEFORE = datetime.datetime(2025, 1, 1)
NOT_AFTER = datetime.datetime(2035, 1, 1)
serial = iter(range(1000, 10**6))


def name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def certificate(subject, subject_key, issuer, issuer_key, ca):
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(subject_key.public_key())
        .serial_number(next(serial))
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False)
    )
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(True, None), True).add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), True
        )
    else:
        builder = (
            builder.add_extension(x509.BasicConstraints(False, None), True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("server.test")]), False)
        )
    return builder.sign(issuer_key, hashes.SHA256())


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def main(out):
    os.makedirs(out, exist_ok=True)
    key = lambda: ec.generate_private_key(ec.SECP256R1())
    root_key = key()
    root = certificate(name("Bundle Root"), root_key, name("Bundle Root"), root_key, True)
    ca_key = key()
    ca = certificate(name("Issuing CA"), ca_key, name("Bundle Root"), root_key, True)
    leaf = certificate(name("server.test"), key(), name("Issuing CA"), ca_key, False)
    other_root_key = key()
    unrelated = [certificate(name(f"Unrelated CA {i}"), key(), name("Other Root"), other_root_key, True) for i in range(300)]
    with open(os.path.join(out, "root.pem"), "w") as f:
        f.write(pem(root))
    with open(os.path.join(out, "big-bundle.pem"), "w") as f:
        f.write(pem(leaf) + "".join(pem(c) for c in unrelated) + pem(ca))
    # The same CA cross-signed by a root nobody trusts, sent first: OpenSSL takes it and stops.
    cross = certificate(name("Issuing CA"), ca_key, name("Other Root"), other_root_key, True)
    with open(os.path.join(out, "cross-signed-bundle.pem"), "w") as f:
        f.write(pem(leaf) + pem(cross) + "".join(pem(c) for c in unrelated) + pem(ca))

    mesh_keys = [key() for _ in range(200)]
    mesh = []
    for i, subject_key in enumerate(mesh_keys):
        for step in (1, 7):
            mesh.append(certificate(name("Mesh CA"), subject_key, name("Mesh CA"), mesh_keys[(i + step) % len(mesh_keys)], True))
    mesh_leaf = certificate(name("server.test"), key(), name("Mesh CA"), mesh_keys[0], False)
    with open(os.path.join(out, "mesh.pem"), "w") as f:
        f.write(pem(mesh_leaf) + "".join(pem(c) for c in mesh))


if __name__ == "__main__":
    main(sys.argv[1])
