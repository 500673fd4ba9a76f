// OCSP (RFC 6960): the request Vigil sends, and what a response says about one certificate.
#include "CVigilPKI.h"
#include "internal.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ocsp.h>
#include <string.h>

int vigil_revocation_is_current(long long this_update, long long next_update, long long now) {
    const long long skew = 300;
    if (this_update < 0 || this_update > now + skew) return 0;
    if (next_update >= 0) return next_update + skew >= now;
    return now - this_update <= 7 * 86400;
}

int vigil_ocsp_request(X509 *cert, X509 *issuer, unsigned char **der) {
    *der = NULL;
    OCSP_REQUEST *request = OCSP_REQUEST_new();
    if (!request) return -1;
    OCSP_CERTID *id = OCSP_cert_to_id(EVP_sha1(), cert, issuer);
    if (!id || !OCSP_request_add0_id(request, id)) { OCSP_CERTID_free(id); OCSP_REQUEST_free(request); return -1; }
    int len = i2d_OCSP_REQUEST(request, der);
    OCSP_REQUEST_free(request);
    return len;
}

int vigil_ocsp_check(const unsigned char *der, long len, X509 *cert, X509 *issuer, long long now, vigil_revocation_answer *out) {
    memset(out, 0, sizeof *out);
    out->reason = -1; out->revoked_at = out->this_update = out->next_update = out->produced_at = -1;
    const unsigned char *cursor = der;
    OCSP_RESPONSE *response = d2i_OCSP_RESPONSE(NULL, &cursor, len);
    if (!response || cursor != der + len) { OCSP_RESPONSE_free(response); return VIGIL_REVOCATION_MALFORMED; }
    out->response_status = OCSP_response_status(response);
    if (out->response_status != OCSP_RESPONSE_STATUS_SUCCESSFUL) { OCSP_RESPONSE_free(response); return VIGIL_REVOCATION_NOT_SUCCESSFUL; }
    OCSP_BASICRESP *basic = OCSP_response_get1_basic(response);
    OCSP_RESPONSE_free(response);
    if (!basic) return VIGIL_REVOCATION_MALFORMED;
    int result = VIGIL_REVOCATION_USABLE;
    X509_STORE *store = X509_STORE_new();
    STACK_OF(X509) *issuers = sk_X509_new_null();
    OCSP_CERTID *id = OCSP_cert_to_id(EVP_sha1(), cert, issuer);
    if (!store || !issuers || !id || !X509_STORE_add_cert(store, issuer) || !sk_X509_push(issuers, issuer)) {
        result = VIGIL_REVOCATION_MALFORMED;
        goto done;
    }
    X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
    X509 *signer = NULL;
    if (OCSP_resp_get0_signer(basic, &signer, issuers) == 1 && signer) vigil_pki_print_name(X509_get_subject_name(signer), out->signer, sizeof out->signer);
    if (OCSP_basic_verify(basic, issuers, store, 0) != 1) { result = VIGIL_REVOCATION_BAD_SIGNATURE; goto done; }
    const ASN1_GENERALIZEDTIME *produced = OCSP_resp_get0_produced_at(basic);
    out->produced_at = vigil_pki_time_or_absent(produced);
    int status = -1, reason = -1;
    ASN1_GENERALIZEDTIME *revoked = NULL, *this_update = NULL, *next_update = NULL;
    if (OCSP_resp_find_status(basic, id, &status, &reason, &revoked, &this_update, &next_update) != 1) {
        result = VIGIL_REVOCATION_NOT_ABOUT;
        goto done;
    }
    out->cert_status = status;
    out->reason = reason;
    out->revoked_at = vigil_pki_time_or_absent(revoked);
    out->this_update = vigil_pki_time_or_absent(this_update);
    out->next_update = vigil_pki_time_or_absent(next_update);
    if (!vigil_revocation_is_current(out->this_update, out->next_update, now)) result = VIGIL_REVOCATION_NOT_CURRENT;
done:
    OCSP_CERTID_free(id);
    sk_X509_free(issuers);
    X509_STORE_free(store);
    OCSP_BASICRESP_free(basic);
    ERR_clear_error();
    return result;
}
