// Helpers shared by CVigilPKI's .c files; not part of the module's interface.
#ifndef VIGIL_CVIGILPKI_INTERNAL_H
#define VIGIL_CVIGILPKI_INTERNAL_H

#include <openssl/asn1.h>
#include <openssl/x509.h>
#include <stddef.h>

/// ASN1_TIME as seconds since 1970 (UTC); -1 when absent or unreadable.
long long vigil_pki_time_or_absent(const ASN1_TIME *t);
/// The name in RFC 2253 form (without escaping UTF-8), cut to `size` bytes; "" when it cannot.
void vigil_pki_print_name(const X509_NAME *name, char *out, size_t size);

#endif
