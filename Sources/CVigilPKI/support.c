// What the revocation readers share: times and names as Vigil reports them.
#include "internal.h"

#include <openssl/bio.h>
#include <string.h>
#include <time.h>

long long vigil_pki_time_or_absent(const ASN1_TIME *t) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return -1;
    return (long long)timegm(&tm);
}

void vigil_pki_print_name(const X509_NAME *name, char *out, size_t size) {
    out[0] = 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return;
    if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
        char *data = NULL;
        long len = BIO_get_mem_data(bio, &data);
        if (len > 0 && data) {
            size_t n = (size_t)len < size - 1 ? (size_t)len : size - 1;
            memcpy(out, data, n);
            out[n] = 0;
        }
    }
    BIO_free(bio);
}
