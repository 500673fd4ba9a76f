// OCSP must-staple (RFC 7633): whether a certificate's TLS Feature extension requires a stapled
// OCSP answer.
#include "CVigilPKI.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

int vigil_must_staple(X509 *cert) {
    /* The extension's value is decoded by OpenSSL's own DER reader for it (SEQUENCE OF INTEGER,
       minimal encodings only), and must be that and nothing more: OpenSSL's X509_get_ext_d2i
       would ignore bytes after the SEQUENCE. One Vigil cannot read wholly, or more than one,
       counts as must-staple: a certificate that may demand a staple is never let through
       without one. */
    int index = X509_get_ext_by_NID(cert, NID_tlsfeature, -1);
    if (index < 0) return 0;
    if (X509_get_ext_by_NID(cert, NID_tlsfeature, index) >= 0) return 1;
    const X509V3_EXT_METHOD *method = X509V3_EXT_get_nid(NID_tlsfeature);
    const ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(X509_get_ext(cert, index));
    if (method == NULL || method->it == NULL || data == NULL) return 1;
    const unsigned char *start = ASN1_STRING_get0_data(data), *cursor = start;
    long length = ASN1_STRING_length(data);
    TLS_FEATURE *features = (TLS_FEATURE *)ASN1_item_d2i(NULL, &cursor, length, ASN1_ITEM_ptr(method->it));
    ERR_clear_error();
    if (features == NULL) return 1;
    int staple = cursor != start + length;
    for (int i = 0; i < sk_ASN1_INTEGER_num(features); i++) {
        int64_t value = 0;
        if (ASN1_INTEGER_get_int64(&value, sk_ASN1_INTEGER_value(features, i)) != 1 || value == 5) staple = 1;
    }
    ERR_clear_error();
    TLS_FEATURE_free(features);
    return staple;
}
