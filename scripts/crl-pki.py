#!/usr/bin/python3
"""Test PKIs for CRL revocation, one per rule of RFC 5280 section 6.3 that Vigil covers.

Usage: scripts/crl-pki.py OUTPUT_DIR [--heavy N]

Writes OUTPUT_DIR/cases.json and, per case, OUTPUT_DIR/CASE/{chain.pem,root.pem,crls.pem} plus
each CRL as DER under OUTPUT_DIR/CASE/crl/NAME.crl (what a distribution point
http://crl.test/NAME.crl serves). Every case is judged at 2026-01-15T00:00:00Z. cases.json
lists, per case, the verdict expected offline (`--crl-file`) and online (the CRLs fetched from
the distribution points the certificates name), and each certificate's expected status
("good", "revoked" or "none": no usable CRL). Built with Debian's python3-cryptography: the
keys are new on every run, so nothing here is tuned to one set of bytes. With --heavy N, one more
case, heavy-crl: the issuing CA's CRL lists N other certificates (a CRL-heavy enterprise PKI, for
scripts/bench-crl.sh).
"""

import datetime
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

T = datetime.datetime(2026, 1, 15)
THIS = datetime.datetime(2026, 1, 1)
NEXT = datetime.datetime(2026, 2, 1)
BASE = "http://crl.test/"


def name(common):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Vigil CRL tests"), x509.NameAttribute(NameOID.COMMON_NAME, common)])


def key():
    return ec.generate_private_key(ec.SECP256R1())


def points(urls, crl_issuer=None):
    return x509.CRLDistributionPoints(
        [x509.DistributionPoint([x509.UniformResourceIdentifier(BASE + u) for u in urls], None, None, [x509.DirectoryName(crl_issuer)] if crl_issuer else None)]
    )


class Entity:
    def __init__(self, subject, signing_key, certificate):
        self.name = subject
        self.key = signing_key
        self.cert = certificate


serials = iter(range(100, 100000))


def issue(subject, issuer, ca, cdp=None, crl_sign=True, public_key=None, signing_key=None, leaf_name="server.test"):
    own = signing_key or key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(name(subject))
        .issuer_name(issuer.name if issuer else name(subject))
        .public_key(public_key or own.public_key())
        .serial_number(next(serials))
        .not_valid_before(datetime.datetime(2025, 1, 1))
        .not_valid_after(datetime.datetime(2030, 1, 1))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key or own.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key((issuer.key if issuer else own).public_key()), False)
    )
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(True, None), True).add_extension(
            x509.KeyUsage(True, False, False, False, False, True, crl_sign, False, False), True
        )
    else:
        builder = (
            builder.add_extension(x509.BasicConstraints(False, None), True)
            .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(leaf_name)]), False)
        )
    if cdp is not None:
        builder = builder.add_extension(cdp, False)
    certificate = builder.sign((issuer.key if issuer else own), hashes.SHA256())
    return Entity(name(subject), own, certificate)


def crl(issuer, number, revoked=(), this=THIS, next_update=NEXT, idp=None, delta_of=None, freshest=None, signer_key=None):
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer.name)
        .last_update(this)
        .next_update(next_update)
        .add_extension(x509.CRLNumber(number), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key((signer_key or issuer.key).public_key()), False)
    )
    if idp is not None:
        builder = builder.add_extension(idp, True)
    if delta_of is not None:
        builder = builder.add_extension(x509.DeltaCRLIndicator(delta_of), True)
    if freshest is not None:
        builder = builder.add_extension(x509.FreshestCRL([x509.DistributionPoint([x509.UniformResourceIdentifier(BASE + freshest)], None, None, None)]), False)
    for entry in revoked:
        serial, reason = entry[0], entry[1]
        revoked_builder = x509.RevokedCertificateBuilder().serial_number(serial).revocation_date(datetime.datetime(2025, 12, 1))
        if reason is not None:
            revoked_builder = revoked_builder.add_extension(x509.CRLReason(reason), False)
        if len(entry) > 2:
            revoked_builder = revoked_builder.add_extension(x509.CertificateIssuer([x509.DirectoryName(entry[2])]), True)
        builder = builder.add_revoked_certificate(revoked_builder.build())
    return builder.sign(signer_key or issuer.key, hashes.SHA256())


def der_length(n):
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def der(tag, content):
    return bytes([tag]) + der_length(len(content)) + content


def crl_without_next_update(issuer, number, this):
    """A CRL with no nextUpdate (RFC 5280 requires one; Python's builder always writes it), DER
    written here, signed by the issuer's key."""
    from cryptography.hazmat.primitives.asymmetric import ec as ec_module

    ecdsa_sha256 = der(0x30, der(0x06, bytes.fromhex("2a8648ce3d040302")))
    number_ext = der(0x30, der(0x06, bytes.fromhex("551d14")) + der(0x04, der(0x02, bytes([number]))))
    aki = x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()).key_identifier
    aki_ext = der(0x30, der(0x06, bytes.fromhex("551d23")) + der(0x04, der(0x30, der(0x80, aki))))
    tbs = der(
        0x30,
        der(0x02, b"\x01")
        + ecdsa_sha256
        + issuer.name.public_bytes()
        + der(0x17, this.strftime("%y%m%d%H%M%SZ").encode())
        + der(0xA0, der(0x30, number_ext + aki_ext)),
    )
    signature = issuer.key.sign(tbs, ec_module.ECDSA(hashes.SHA256()))
    return x509.load_der_x509_crl(der(0x30, tbs + ecdsa_sha256 + der(0x03, b"\x00" + signature)))


def idp(url=None, user=False, ca=False, attr=False, reasons=None, indirect=False):
    return x509.IssuingDistributionPoint(
        [x509.UniformResourceIdentifier(BASE + url)] if url else None, None, user, ca, frozenset(reasons) if reasons else None, indirect, attr
    )


def pem(obj):
    return obj.public_bytes(serialization.Encoding.PEM).decode()


R = x509.ReasonFlags
cases = {}


def write(out, case, chain, root, crls, expect_offline, statuses, expect_online=None, online_statuses=None, rule=""):
    directory = os.path.join(out, case)
    os.makedirs(os.path.join(directory, "crl"), exist_ok=True)
    with open(os.path.join(directory, "chain.pem"), "w") as f:
        f.write("".join(pem(e.cert) for e in chain))
    with open(os.path.join(directory, "root.pem"), "w") as f:
        f.write(pem(root.cert))
    with open(os.path.join(directory, "crls.pem"), "w") as f:
        f.write("".join(pem(c) for _, c in crls))
    for crl_name, c in crls:
        with open(os.path.join(directory, "crl", crl_name + ".crl"), "wb") as f:
            f.write(c.public_bytes(serialization.Encoding.DER))
    cases[case] = {
        "rule": rule,
        "offline": expect_offline,
        "statuses": statuses,
        "online": expect_online if expect_online is not None else expect_offline,
        "onlineStatuses": online_statuses if online_statuses is not None else statuses,
    }


def main(out, heavy=0):
    os.makedirs(out, exist_ok=True)

    def pki():
        root = issue("Root", None, True)
        ca = issue("Issuing CA", root, True, cdp=points(["root.crl"]))
        leaf = issue("server.test", ca, False, cdp=points(["ca.crl"]))
        return root, ca, leaf

    root, ca, leaf = pki()
    write(out, "whole-path-good", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(ca, 1))], "trusted", ["good", "good"], rule="every certificate of the path is covered")

    root, ca, leaf = pki()
    write(
        out, "revoked-leaf", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(ca, 1, [(leaf.cert.serial_number, R.key_compromise)]))],
        "revoked", ["revoked", "good"], rule="a revoked server certificate, with its reason",
    )

    root, ca, leaf = pki()
    write(
        out, "revoked-intermediate", [leaf, ca], root, [("root", crl(root, 1, [(ca.cert.serial_number, R.ca_compromise)])), ("ca", crl(ca, 1))],
        "revoked", ["good", "revoked"], rule="a revoked intermediate (the root's CRL)",
    )

    root, ca, leaf = pki()
    write(
        out, "intermediate-uncovered", [leaf, ca], root, [("ca", crl(ca, 1))], "none", ["good", "none"],
        rule="no CRL for the intermediate: the whole path must be covered",
    )

    root, ca, leaf = pki()
    write(
        out, "certificate-hold", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(ca, 1, [(leaf.cert.serial_number, R.certificate_hold)]))],
        "revoked", ["revoked", "good"], rule="certificateHold is revoked",
    )

    root, ca, leaf = pki()
    write(
        out, "expired-crl", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(ca, 1, next_update=datetime.datetime(2026, 1, 10)))],
        "none", ["none", "good"], rule="a CRL past its nextUpdate is no answer",
    )

    root, ca, leaf = pki()
    impostor = Entity(ca.name, key(), None)
    write(
        out, "crl-wrong-key", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(impostor, 1))], "none", ["none", "good"],
        rule="a CRL in the issuer's name signed by another key",
    )

    # A CRL without nextUpdate: a week after its thisUpdate it says nothing (an old one replayed).
    for variant, this in (("fresh", datetime.datetime(2026, 1, 10)), ("old", datetime.datetime(2025, 11, 1))):
        root, ca, leaf = pki()
        write(
            out, "no-next-update-" + variant, [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl_without_next_update(ca, 1, this))],
            "trusted" if variant == "fresh" else "none", ["good" if variant == "fresh" else "none", "good"],
            rule="a CRL without nextUpdate counts for a week after its thisUpdate",
        )

    # Key rollover: the CA's old and new keys, each certified by the root under the same name;
    # the server's certificate is signed by the old key, the CRL by the new one.
    for revoked in (False, True):
        root = issue("Root", None, True)
        old = issue("Rolling CA", root, True, cdp=points(["root.crl"]))
        new = issue("Rolling CA", root, True, cdp=points(["root.crl"]))
        leaf = issue("server.test", old, False, cdp=points(["ca.crl"]))
        entries = [(leaf.cert.serial_number, R.superseded)] if revoked else []
        write(
            out, "key-rollover" + ("-revoked" if revoked else ""), [leaf, old, new], root,
            [("root", crl(root, 1)), ("ca", crl(new, 1, entries))], "revoked" if revoked else "trusted",
            ["revoked" if revoked else "good", "good"], rule="a CA's CRL signed by its new key, the certificate by its old one",
        )

    # Indirect CRLs: the server certificate's distribution point names a CRL issuer of its own.
    for variant in ("good", "revoked", "issuer-missing", "not-indirect"):
        root = issue("Root", None, True)
        ca = issue("Issuing CA", root, True, cdp=points(["root.crl"]))
        crl_issuer = issue("CRL Issuer", root, True, cdp=points(["root.crl"]))
        leaf = issue("server.test", ca, False, cdp=points(["indirect.crl"], crl_issuer.name))
        entries = [(leaf.cert.serial_number, R.key_compromise, ca.name)] if variant == "revoked" else [(424242, R.key_compromise, ca.name)]
        indirect = crl(crl_issuer, 1, entries, idp=idp("indirect.crl", indirect=variant != "not-indirect"))
        chain = [leaf, ca] + ([] if variant == "issuer-missing" else [crl_issuer])
        status = {"good": "good", "revoked": "revoked"}.get(variant, "none")
        write(
            out, "indirect-crl-" + variant, chain, root, [("root", crl(root, 1)), ("indirect", indirect)],
            {"good": "trusted", "revoked": "revoked"}.get(variant, "none"), [status, "good"],
            rule="an indirect CRL (cRLIssuer), its issuer's own path validated",
        )

    # Issuing distribution point scopes: the root's CRL about the intermediate.
    for scope, covers in (("only-ca", True), ("only-user", False), ("only-attribute", False)):
        root, ca, leaf = pki()
        scoped = crl(root, 1, idp=idp(user=scope == "only-user", ca=scope == "only-ca", attr=scope == "only-attribute"))
        write(
            out, "idp-" + scope, [leaf, ca], root, [("root", scoped), ("ca", crl(ca, 1))], "trusted" if covers else "none",
            ["good", "good" if covers else "none"], rule="onlyContainsCACerts / onlyContainsUserCerts / onlyContainsAttributeCerts",
        )

    # onlySomeReasons: two CRLs that together cover every reason, or one that does not.
    half = {R.key_compromise, R.ca_compromise}
    rest = {R.affiliation_changed, R.superseded, R.cessation_of_operation, R.certificate_hold, R.privilege_withdrawn, R.aa_compromise}
    for both in (True, False):
        root = issue("Root", None, True)
        ca = issue("Issuing CA", root, True, cdp=points(["root.crl"]))
        leaf = issue("server.test", ca, False, cdp=points(["ca.crl", "ca-rest.crl"]))
        crls = [("root", crl(root, 1)), ("ca", crl(ca, 1, idp=idp(reasons=half)))]
        if both:
            crls.append(("ca-rest", crl(ca, 2, idp=idp(reasons=rest))))
        write(
            out, "some-reasons-" + ("complete" if both else "partial"), [leaf, ca], root, crls, "trusted" if both else "none",
            ["good" if both else "none", "good"], rule="onlySomeReasons: every reason must be covered",
        )

    # A partitioned CRL: the server certificate's distribution point is shard-1.
    for shard, revoked in (("shard-2", False), ("shard-1", True)):
        root = issue("Root", None, True)
        ca = issue("Issuing CA", root, True, cdp=points(["root.crl"]))
        leaf = issue("server.test", ca, False, cdp=points(["shard-1.crl"]))
        entries = [(leaf.cert.serial_number, R.key_compromise)] if revoked else []
        write(
            out, "partition-" + shard, [leaf, ca], root, [("root", crl(root, 1)), (shard, crl(ca, 1, entries, idp=idp(shard + ".crl")))],
            "revoked" if revoked else "none", ["revoked" if revoked else "none", "good"],
            rule="a partitioned CRL counts only for the certificates whose distribution point it names",
        )

    # Delta CRLs: the base names its delta (freshestCRL); the delta revokes, or removes a hold.
    for variant in ("revokes", "removes-hold", "wrong-base"):
        root, ca, leaf = pki()
        base_entries = [(leaf.cert.serial_number, R.certificate_hold)] if variant == "removes-hold" else []
        base = crl(ca, 10, base_entries, freshest="ca-delta.crl")
        if variant == "revokes":
            delta = crl(ca, 11, [(leaf.cert.serial_number, R.key_compromise)], delta_of=10)
        elif variant == "removes-hold":
            delta = crl(ca, 11, [(leaf.cert.serial_number, R.remove_from_crl)], delta_of=10)
        else:
            delta = crl(ca, 11, [(leaf.cert.serial_number, R.key_compromise)], delta_of=12)
        offline = {"revokes": "revoked", "removes-hold": "trusted", "wrong-base": "trusted"}[variant]
        status = {"revokes": "revoked", "removes-hold": "good", "wrong-base": "good"}[variant]
        # Online, the base's freshestCRL names the delta, which is fetched too.
        write(
            out, "delta-" + variant, [leaf, ca], root, [("root", crl(root, 1)), ("ca", base), ("ca-delta", delta)], offline, [status, "good"],
            rule="delta CRLs with their base (deltaCRLIndicator, freshestCRL, removeFromCRL)",
        )

    if heavy:
        root, ca, leaf = pki()
        many = [(10**6 + i, R.key_compromise) for i in range(heavy)]
        write(out, "heavy-crl", [leaf, ca], root, [("root", crl(root, 1)), ("ca", crl(ca, 1, many))], "trusted", ["good", "good"], rule="a CRL of many entries")

    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"at": "2026-01-15T00:00:00Z", "cases": cases}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--heavy" else 0)
