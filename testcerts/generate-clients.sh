#!/usr/bin/env bash
# Generates the client half of Vigil's test PKI (mutual TLS): a client CA that the simulator's
# hosts (and the nginx test) accept, client certificates under it, one under a CA nobody
# accepts, and PKCS#12 bundles. Called by generate.sh; runs alone too (it touches only client-*).
# See README.md for every file.
set -euo pipefail
cd "$(dirname "$0")"
OUT=$PWD
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
VALID_FROM=20250101000000Z
VALID_UNTIL=21250101000000Z
# The passphrase of the PKCS#12 files (public: test material).
P12_PASSPHRASE=client-test-passphrase

cat > "$WORK/ca.cnf" <<'CNF'
[ ca ]
default_ca = CA_default
[ CA_default ]
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
export VIGIL_DB="$WORK/index.txt" VIGIL_NEW="$WORK/new"
mkdir -p "$VIGIL_NEW"

key() {  # key NAME TYPE
  case "$2" in
    rsa1024) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out "$OUT/$1.key" ;;
    rsa2048) openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$OUT/$1.key" ;;
    p256) openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$OUT/$1.key" ;;
  esac
}

# sign NAME SUBJECT EXT ISSUER|self FROM UNTIL
sign() {
  local name=$1 subject=$2 ext=$3 issuer=$4 from=$5 until=$6
  : > "$VIGIL_DB"
  openssl req -new -key "$OUT/$name.key" -subj "$subject" -out "$WORK/$name.csr"
  if [ "$issuer" = self ]; then
    openssl ca -batch -config "$WORK/ca.cnf" -selfsign -keyfile "$OUT/$name.key" -in "$WORK/$name.csr" \
      -out "$OUT/$name.pem" -extensions "$ext" -startdate "$from" -enddate "$until" -notext -preserveDN 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
  else
    openssl ca -batch -config "$WORK/ca.cnf" -cert "$OUT/$issuer.pem" -keyfile "$OUT/$issuer.key" \
      -in "$WORK/$name.csr" -out "$OUT/$name.pem" -extensions "$ext" -startdate "$from" -enddate "$until" -notext -preserveDN 2>"$WORK/ca.log" || { cat "$WORK/ca.log" >&2; exit 1; }
  fi
}

# client NAME CN KEYTYPE ISSUER [FROM UNTIL] [EXT]: a client certificate, its key, and a PKCS#12 of both.
client() {
  local name=$1 cn=$2 type=$3 issuer=$4 from=${5:-$VALID_FROM} until=${6:-$VALID_UNTIL} ext=${7:-client_ext}
  key "$name" "$type"
  sign "$name" "/C=DE/O=Vigil Test PKI/CN=$cn" "$ext" "$issuer" "$from" "$until"
  openssl pkcs12 -export -in "$OUT/$name.pem" -inkey "$OUT/$name.key" -certfile "$OUT/$issuer.pem" \
    -passout "pass:$P12_PASSPHRASE" -name "$cn" -out "$OUT/$name.p12"
}

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
echo "testcerts: client certificates done"
