// OCSP must-staple (RFC 7633): whether a certificate's TLS Feature extension requires a stapled
// OCSP answer.
#include "CVigilPKI.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

int vigil_must_staple(X509 *cert) {
    /* The extension is decoded by OpenSSL's own DER reader (SEQUENCE OF INTEGER, minimal
       encodings only). One Vigil cannot read, or more than one, counts as must-staple: a
       certificate that may demand a staple is never let through without one. */
    int critical = -1;
    TLS_FEATURE *features = X509_get_ext_d2i(cert, NID_tlsfeature, &critical, NULL);
    ERR_clear_error();
    if (features == NULL) return critical == -1 ? 0 : 1;
    int staple = 0;
    for (int i = 0; i < sk_ASN1_INTEGER_num(features); i++) {
        const ASN1_INTEGER *feature = sk_ASN1_INTEGER_value(features, i);
        int64_t value = 0;
        if (ASN1_INTEGER_get_int64(&value, feature) != 1 || value == 5) staple = 1;
    }
    ERR_clear_error();
    TLS_FEATURE_free(features);
    return staple;
}
