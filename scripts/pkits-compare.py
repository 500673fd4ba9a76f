#!/usr/bin/env python3
"""Vigil and `openssl verify` side by side on NIST's PKITS, with every CA's CRL.

Usage: scripts/pkits-compare.py PKITS_DIR [--vigil PATH] [--runs N] [--only 4.4.]

PKITS_DIR holds certs/*.crt, crls/*.crl (DER) and pkits_testcases-inl.h (the test list as
BoringSSL's pki/testdata/nist-pkits ships it; nothing of it is committed here). Each test is run
as a server with a big bundle would send it: the leaf, then every CA certificate of the PKI, with
every CRL of the PKI in one file, at 2011-04-15 (PKITS's publication date), against the trust
anchor alone:

  vigil inspect --file BUNDLE --ca-file ROOT --crl-file ALL_CRLS --at 2011-04-15T00:00:00Z --profile rfc5280
  openssl verify -auth_level 0 -crl_check_all -extended_crl -use_deltas -x509_strict -policy_check
                 -CAfile ROOT -untrusted BUNDLE -CRLfile ALL_CRLS -attime T LEAF

A test's policy inputs (initial policy set, explicit policy, mapping and any-policy inhibit)
are given to both. Prints a line per test that either gets wrong, the totals, and false accepts;
with --runs N, Vigil runs each test N times and any two differing verdicts are reported.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

POLICIES = {
    "anyPolicy": "2.5.29.32.0",
    **{f"NIST-test-policy-{n}": f"2.16.840.1.101.3.2.1.48.{n}" for n in range(1, 11)},
}
AT = "2011-04-15T00:00:00Z"
AT_SECONDS = "1302825600"


def tests(header):
    text = open(header).read()
    for number, name, body in re.findall(r"// (4\.[\d.]+) ([^\n]*)\nWRAPPED.*?\{(.*?)\n\}", text, re.S):
        certs = re.findall(r'"([^"]+)"', re.search(r"certs\[\] = \{(.*?)\};", body, re.S).group(1))
        crls = re.findall(r'"([^"]+)"', re.search(r"crls\[\] = \{(.*?)\};", body, re.S).group(1))
        valid = "should_validate = true" in body
        inputs = {}
        for call, argument in re.findall(r"info\.Set(\w+)\(([^)]*)\)", body):
            inputs[call] = argument.strip().strip('"')
        yield number, name, certs, crls, valid, inputs


def pem(kind, der):
    import base64

    body = base64.encodebytes(der).decode().replace("\n", "")
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pkits")
    parser.add_argument("--vigil", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vigil"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default="")
    arguments = parser.parse_args()
    certs_dir = os.path.join(arguments.pkits, "certs")
    crls_dir = os.path.join(arguments.pkits, "crls")
    work = tempfile.mkdtemp(prefix="vigil-pkits-")
    every_ca = sorted(f[:-4] for f in os.listdir(certs_dir) if f.endswith(".crt") and not f.endswith("EE.crt") and f != "TrustAnchorRootCertificate.crt")
    all_crls = os.path.join(work, "all-crls.pem")
    with open(all_crls, "w") as out:
        for name in sorted(os.listdir(crls_dir)):
            out.write(pem("X509 CRL", open(os.path.join(crls_dir, name), "rb").read()))
    root = os.path.join(work, "root.pem")
    with open(root, "w") as out:
        out.write(pem("CERTIFICATE", open(os.path.join(certs_dir, "TrustAnchorRootCertificate.crt"), "rb").read()))
    cas = "".join(pem("CERTIFICATE", open(os.path.join(certs_dir, f"{n}.crt"), "rb").read()) for n in every_ca)

    totals = {"vigil": 0, "openssl": 0}
    false_accepts = {"vigil": [], "openssl": []}
    unstable = []
    count = 0
    for number, name, certs, crls, valid, inputs in tests(os.path.join(arguments.pkits, "pkits_testcases-inl.h")):
        if not number.startswith(arguments.only):
            continue
        count += 1
        leaf_name = certs[-1]
        leaf = pem("CERTIFICATE", open(os.path.join(certs_dir, f"{leaf_name}.crt"), "rb").read())
        # The test's own chain first (leaf, its CAs as listed), then every other CA of the PKI.
        own = [pem("CERTIFICATE", open(os.path.join(certs_dir, f"{n}.crt"), "rb").read()) for n in reversed(certs[1:-1])]
        bundle = os.path.join(work, "bundle.pem")
        with open(bundle, "w") as out:
            out.write(leaf + "".join(own) + cas)
        leaf_file = os.path.join(work, "leaf.pem")
        with open(leaf_file, "w") as out:
            out.write(leaf)
        environment = dict(os.environ)
        openssl = ["openssl", "verify", "-crl_check_all", "-extended_crl", "-use_deltas", "-x509_strict", "-policy_check"]
        policies = [POLICIES[p.strip()] for p in inputs.get("InitialPolicySet", "anyPolicy").split(",")]
        environment["VIGIL_CONNECTION_CERTIFICATE_POLICIES"] = ",".join(policies)
        for policy in policies:
            openssl += ["-policy", policy]
        for call, setting, flag in [
            ("InitialExplicitPolicy", "REQUIRE_EXPLICIT_POLICY", "-explicit_policy"),
            ("InitialPolicyMappingInhibit", "INHIBIT_POLICY_MAPPING", "-inhibit_map"),
            ("InitialInhibitAnyPolicy", "INHIBIT_ANY_POLICY", "-inhibit_any"),
        ]:
            on = inputs.get(call) == "true"
            environment[f"VIGIL_CONNECTION_{setting}"] = "true" if on else "false"
            if on:
                openssl.append(flag)
        openssl += ["-CAfile", root, "-untrusted", bundle, "-CRLfile", all_crls, "-attime", AT_SECONDS, leaf_file]
        # -auth_level 0: PKITS has 1024-bit DSA certificates (4.1.4, 4.1.5), which OpenSSL then
        # accepts; Vigil stays at security level 2 (docs/trust.md counts the difference).
        openssl[2:2] = ["-auth_level", "0"]
        result = subprocess.run(openssl, capture_output=True, text=True)
        openssl_ok = result.returncode == 0
        vigil_runs = []
        for _ in range(arguments.runs):
            command = [arguments.vigil, "inspect", "--file", bundle, "--ca-file", root, "--crl-file", all_crls, "--at", AT, "--profile", "rfc5280"]
            run = subprocess.run(command, capture_output=True, text=True, env=environment)
            vigil_runs.append((run.returncode == 0, run.stdout + run.stderr))
        vigil_ok = vigil_runs[0][0]
        if len({ok for ok, _ in vigil_runs}) > 1:
            unstable.append(number)
        for tool, ok in [("vigil", vigil_ok), ("openssl", openssl_ok)]:
            if ok == valid:
                totals[tool] += 1
            elif ok:
                false_accepts[tool].append(number)
        if vigil_ok != valid or openssl_ok != valid:
            reason = ""
            if vigil_ok != valid:
                lines = [l.strip() for l in vigil_runs[0][1].splitlines() if l.strip().startswith(("-", "✗", "reason")) or "CRL" in l]
                reason = " | ".join(lines[:3])[:240]
            print(f"{number:8} {name[:48]:48} expected {'valid' if valid else 'invalid':7} vigil {'ok' if vigil_ok == valid else 'WRONG':5} openssl {'ok' if openssl_ok == valid else 'WRONG':5} {reason}")
            if openssl_ok != valid:
                print(f"         openssl: {(result.stdout + result.stderr).strip().splitlines()[-2:]}")
    print(f"\n{count} tests: vigil {totals['vigil']} right, openssl {totals['openssl']} right")
    print(f"false accepts: vigil {false_accepts['vigil']} openssl {false_accepts['openssl']}")
    if arguments.runs > 1:
        print(f"unstable across {arguments.runs} runs: {unstable or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
