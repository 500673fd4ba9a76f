#!/usr/bin/env bash
# Generates Vigil's test PKI with openssl alone. See README.md for every file.
# Usage: testcerts/generate.sh             (rewrites the files in testcerts/; keys are random each run)
#        testcerts/generate.sh --clients   (only the client half, client-* and other-client-ca: the
#                                           server certificates, and every fixture's fingerprint, stay)
set -euo pipefail
cd "$(dirname "$0")"
OUT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Valid certificates last a century so tests do not rot; expired and not-yet-valid are fixed.
VALID_FROM=20250101000000Z
VALID_UNTIL=21250101000000Z

cat > "$WORK/ca.cnf" <<'CNF'
[ ca ]
default_ca = CA_default
[ CA_default ]
dir = .
database = $ENV::VIGIL_DB
new_certs_dir = $ENV::VIGIL_NEW
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
rand_serial = yes
[ policy_any ]
countryName = optional
organizationName = optional
commonName = optional
[ root_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ intermediate_ext ]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ leaf_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = $ENV::VIGIL_SAN
authorityInfoAccess = OCSP;URI:http://127.0.0.1:8080/ocsp,caIssuers;URI:http://127.0.0.1:8080/intermediate.cer
crlDistributionPoints = URI:http://127.0.0.1:8080/intermediate.crl
certificatePolicies = 2.23.140.1.2.1
[ cn_only_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ self_signed_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyCertSign
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
subjectAltName = $ENV::VIGIL_SAN
[ ca_leaf_ext ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,digitalSignature,keyCertSign
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = $ENV::VIGIL_SAN
[ client_eku_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = $ENV::VIGIL_SAN
[ no_eku_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = $ENV::VIGIL_SAN
[ no_certsign_intermediate_ext ]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,digitalSignature,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ unknown_critical_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = $ENV::VIGIL_SAN
1.3.6.1.4.1.55555.1 = critical,ASN1:NULL
[ client_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ server_only_ext ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
CNF

export VIGIL_DB="$WORK/index.txt" VIGIL_NEW="$WORK/new" VIGIL_SAN="DNS:unused.invalid"
mkdir -p "$VIGIL_NEW"

key() {  # key NAME TYPE
  case "$2" in
    rsa1024) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out "$OUT/$1.key" ;;
    rsa2048) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$OUT/$1.key" ;;
    rsa3072) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$OUT/$1.key" ;;
    p256) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$OUT/$1.key" ;;
    p384) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$OUT/$1.key" ;;
    rsa4096) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:4096 -out "$OUT/$1.key" ;;
    ed25519) openssl genpkey -quiet -algorithm ED25519 -out "$OUT/$1.key" ;;
  esac
}

# sign NAME SUBJECT EXT ISSUER|self FROM UNTIL [MD] [KEYFILE]: a certificate for NAME.key.
sign() {
  local name=$1 subject=$2 ext=$3 issuer=$4 from=$5 until=$6 md=${7:-sha256} keyfile=${8:-$OUT/$1.key}
  : > "$VIGIL_DB"
  openssl req -new -key "$keyfile" -subj "$subject" -out "$WORK/$name.csr"
  if [ "$issuer" = self ]; then
    openssl ca -batch -config "$WORK/ca.cnf" -selfsign -keyfile "$keyfile" -in "$WORK/$name.csr" \
      -out "$OUT/$name.pem" -extensions "$ext" -startdate "$from" -enddate "$until" -md "$md" -notext -preserveDN 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
  else
    openssl ca -batch -config "$WORK/ca.cnf" -cert "$OUT/$issuer.pem" -keyfile "$OUT/$issuer.key" \
      -in "$WORK/$name.csr" -out "$OUT/$name.pem" -extensions "$ext" -startdate "$from" -enddate "$until" -md "$md" -notext -preserveDN 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
  fi
}

# leaf NAME SAN CN KEYTYPE ISSUER [FROM UNTIL] [EXT]: a server certificate and the chain a server sends.
leaf() {
  local name=$1 san=$2 cn=$3 type=$4 issuer=$5 from=${6:-$VALID_FROM} until=${7:-$VALID_UNTIL} ext=${8:-leaf_ext}
  [ "$type" = reuse ] || key "$name" "$type"
  VIGIL_SAN=$san sign "$name" "/C=DE/O=Vigil Test PKI/CN=$cn" "$ext" "$issuer" "$from" "$until"
  cat "$OUT/$name.pem" > "$OUT/$name-chain.pem"
  [ "$issuer" = root-ca ] || [ "$issuer" = untrusted-root-ca ] || [ "$issuer" = attacker-ca ] || [ "$issuer" = interception-ca ] || cat "$OUT/$issuer.pem" >> "$OUT/$name-chain.pem"
}

# The client half (mutual TLS). client NAME CN KEYTYPE ISSUER [FROM UNTIL] [EXT]: a client
# certificate, its key, and a PKCS#12 of both with its CA (passphrase below, public test material).
P12_PASSPHRASE=client-test-passphrase
client() {
  local name=$1 cn=$2 type=$3 issuer=$4 from=${5:-$VALID_FROM} until=${6:-$VALID_UNTIL} ext=${7:-client_ext}
  key "$name" "$type"
  sign "$name" "/C=DE/O=Vigil Test PKI/CN=$cn" "$ext" "$issuer" "$from" "$until"
  openssl pkcs12 -export -in "$OUT/$name.pem" -inkey "$OUT/$name.key" -certfile "$OUT/$issuer.pem" \
    -passout "pass:$P12_PASSPHRASE" -name "$cn" -out "$OUT/$name.p12"
}
clients() {
  echo "testcerts: client certificates"
  key client-ca p256
  sign client-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Client CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
  key other-client-ca p256
  sign other-client-ca "/C=DE/O=Another PKI/CN=Another Client CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
  client client-alice alice p256 client-ca
  client client-rsa rsa-user rsa2048 client-ca
  client client-expired alice p256 client-ca 20000101000000Z 20010101000000Z
  client client-unknown-ca alice p256 other-client-ca
  client client-server-eku alice p256 client-ca "$VALID_FROM" "$VALID_UNTIL" server_only_ext
  client client-rsa-1024 alice rsa1024 client-ca
}
if [ "${1:-}" = --clients ]; then
  clients
  echo "testcerts: client certificates done"
  exit 0
fi

echo "testcerts: certificate authorities"
key root-ca rsa3072
sign root-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Root CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
key intermediate-ca p384
sign intermediate-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Intermediate CA" intermediate_ext root-ca "$VALID_FROM" "$VALID_UNTIL"
key sha1-intermediate-ca rsa2048
sign sha1-intermediate-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test SHA-1 Intermediate CA" intermediate_ext root-ca "$VALID_FROM" "$VALID_UNTIL" sha1
# An old root that expired in 2001, and a cross-certificate in which it signed the test root's
# key: a server that still sends it offers a path that fails (through the old root) and one
# that works (the test root, trusted) - as Let's Encrypt's DST Root X3 cross-sign did in 2021.
key old-root-ca rsa2048
sign old-root-ca "/C=DE/O=Vigil Old PKI/CN=Vigil Old Root CA" root_ext self 20000101000000Z 20010101000000Z
sign root-ca-cross "/C=DE/O=Vigil Test PKI/CN=Vigil Test Root CA" root_ext old-root-ca 20000101000000Z 20010101000000Z sha256 "$OUT/root-ca.key"
# An intermediate that expired in 2001 (its leaves are otherwise valid).
key expired-intermediate-ca p256
sign expired-intermediate-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Expired Intermediate CA" intermediate_ext root-ca 20000101000000Z 20010101000000Z
key untrusted-root-ca rsa2048
sign untrusted-root-ca "/C=DE/O=Vigil Untrusted PKI/CN=Vigil Untrusted Root CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
# The attacker's CA copies the real intermediate's name, so name-based path building is fooled.
key attacker-ca p256
sign attacker-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Intermediate CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
# A corporate interception CA: a root the client of mitm-trusted-ca trusts besides the test root
# (installed by an administrator), that never issued the genuine servers' certificates.
key interception-ca p256
sign interception-ca "/C=DE/O=Vigil Corporate Proxy/CN=Vigil Interception CA" root_ext self "$VALID_FROM" "$VALID_UNTIL"
cp "$OUT/root-ca.pem" "$OUT/ca-bundle.pem"

echo "testcerts: server certificates"
leaf valid-127.0.0.1 "IP:127.0.0.1" 127.0.0.1 rsa2048 intermediate-ca
leaf valid-127.0.0.2 "IP:127.0.0.2" 127.0.0.2 rsa2048 intermediate-ca
leaf valid-127.0.0.3 "IP:127.0.0.3" 127.0.0.3 rsa2048 intermediate-ca
leaf valid-ipv6 "IP:::1" ::1 p256 intermediate-ca
leaf valid-localhost "DNS:localhost" localhost p256 intermediate-ca
leaf expired "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca 20000101000000Z 20010101000000Z
leaf not-yet-valid "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca 21000101000000Z 22000101000000Z
leaf wrong-host "DNS:wrong.example.test" wrong.example.test p256 intermediate-ca
leaf untrusted-root "IP:127.0.0.1" 127.0.0.1 p256 untrusted-root-ca
leaf incomplete-chain "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca
cp "$OUT/incomplete-chain.pem" "$OUT/incomplete-chain-chain.pem"   # the intermediate is not sent
leaf rsa-1024 "IP:127.0.0.1" 127.0.0.1 rsa1024 intermediate-ca
leaf sha1-intermediate "IP:127.0.0.1" 127.0.0.1 p256 sha1-intermediate-ca
leaf renewed-a1 "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca
cp "$OUT/renewed-a1.key" "$OUT/renewed-a2.key"                      # A2: same key, renewed
leaf renewed-a2 "IP:127.0.0.1" 127.0.0.1 reuse intermediate-ca 20260101000000Z 21260101000000Z
leaf rekeyed-b1 "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca      # B1: same names, new key
# The forged leaf copies the real subject and SANs; only its issuer's key differs.
leaf mitm-forged "IP:127.0.0.1" 127.0.0.1 p256 attacker-ca
cat "$OUT/attacker-ca.pem" >> "$OUT/mitm-forged-chain.pem"
# The interception proxy's leaf for 127.0.0.1: same name, issued by the interception CA.
leaf intercepted-127.0.0.1 "IP:127.0.0.1" 127.0.0.1 p256 interception-ca
leaf cn-only "" 127.0.0.1 p256 intermediate-ca "$VALID_FROM" "$VALID_UNTIL" cn_only_ext
# DNS-named hosts (pinned to loopback addresses with --resolve): one name, and a wildcard.
leaf cloud-example "DNS:cloud.example.test" cloud.example.test p256 intermediate-ca
leaf wildcard-example "DNS:*.example.test" "*.example.test" p256 intermediate-ca
leaf ca-as-leaf "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca "$VALID_FROM" "$VALID_UNTIL" ca_leaf_ext
leaf wrong-eku "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca "$VALID_FROM" "$VALID_UNTIL" client_eku_ext
leaf no-eku "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca "$VALID_FROM" "$VALID_UNTIL" no_eku_ext
leaf unknown-critical "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca "$VALID_FROM" "$VALID_UNTIL" unknown_critical_ext
leaf expired-intermediate "IP:127.0.0.1" 127.0.0.1 p256 expired-intermediate-ca
leaf ed25519 "IP:127.0.0.1" 127.0.0.1 ed25519 intermediate-ca
leaf rsa-4096 "IP:127.0.0.1" 127.0.0.1 rsa4096 intermediate-ca
leaf cross-signed "IP:127.0.0.1" 127.0.0.1 p256 intermediate-ca
cat "$OUT/root-ca-cross.pem" >> "$OUT/cross-signed-chain.pem"   # leaf, intermediate, the expired cross-sign
# What client-auditing tools (certmitm, qsslcaudit) try first: a server certificate signed by a
# leaf (valid-127.0.0.2, CA:FALSE), and one signed by an intermediate without keyCertSign.
leaf signed-by-leaf "IP:127.0.0.1" 127.0.0.1 p256 valid-127.0.0.2
cat "$OUT/intermediate-ca.pem" >> "$OUT/signed-by-leaf-chain.pem"
key no-certsign-intermediate-ca p256
sign no-certsign-intermediate-ca "/C=DE/O=Vigil Test PKI/CN=Vigil Test Intermediate Without keyCertSign" no_certsign_intermediate_ext root-ca "$VALID_FROM" "$VALID_UNTIL"
leaf no-certsign-intermediate "IP:127.0.0.1" 127.0.0.1 p256 no-certsign-intermediate-ca
key self-signed p256
VIGIL_SAN="IP:127.0.0.1" sign self-signed "/C=DE/O=Vigil Test PKI/CN=127.0.0.1" self_signed_ext self "$VALID_FROM" "$VALID_UNTIL"
cp "$OUT/self-signed.pem" "$OUT/self-signed-chain.pem"

# DER copy for the DER code path.
openssl x509 -in "$OUT/valid-127.0.0.1.pem" -outform DER -out "$OUT/valid-127.0.0.1.der"
clients
echo "testcerts: done ($(ls "$OUT"/*.pem | wc -l) PEM files)"
