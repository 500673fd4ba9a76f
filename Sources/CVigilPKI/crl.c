// CRLs (RFC 5280 sections 5 and 6.3): every certificate of a path checked with OpenSSL's own CRL
// processing, recording which CRL decided each one and, for a revoked one, its entry.
#include "CVigilPKI.h"
#include "internal.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <string.h>

/* One run of vigil_crl_evaluate, reached from OpenSSL's callbacks through the context's app data. */
typedef struct vigil_crl_run {
    vigil_crl_result *results;
    int count;
    X509_STORE_CTX_check_crl_fn openssl_check_crl;
    STACK_OF(X509_CRL) *crls;
} vigil_crl_run;

/* The errors of OpenSSL's CRL processing (everything else was decided by path validation). */
static int vigil_is_crl_error(int error) {
    switch (error) {
    case X509_V_ERR_UNABLE_TO_GET_CRL: case X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE: case X509_V_ERR_CRL_SIGNATURE_FAILURE:
    case X509_V_ERR_CRL_NOT_YET_VALID: case X509_V_ERR_CRL_HAS_EXPIRED: case X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD:
    case X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD: case X509_V_ERR_CERT_REVOKED: case X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER:
    case X509_V_ERR_KEYUSAGE_NO_CRL_SIGN: case X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION: case X509_V_ERR_DIFFERENT_CRL_SCOPE:
    case X509_V_ERR_CRL_PATH_VALIDATION_ERROR: case X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
        return 1;
    default:
        return 0;
    }
}

/* OpenSSL's own check_crl (signature, time, critical extensions, delta scope), read from a
   context whose store overrides nothing. */
static X509_STORE_CTX_check_crl_fn vigil_openssl_check_crl(void) {
    X509_STORE_CTX_check_crl_fn fn = NULL;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    if (store && ctx && X509_STORE_CTX_init(ctx, store, NULL, NULL) == 1) fn = X509_STORE_CTX_get_check_crl(ctx);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    ERR_clear_error();
    return fn;
}

/* OpenSSL's check_crl, recording which CRL decided each certificate (the first one checked at
   that depth: the complete CRL, before a delta). */
static int vigil_recording_check_crl(X509_STORE_CTX *ctx, X509_CRL *crl) {
    /* An indirect CRL issuer's own path runs in a child context: the run is its parent's. */
    X509_STORE_CTX *parent = X509_STORE_CTX_get0_parent_ctx(ctx);
    vigil_crl_run *owner = X509_STORE_CTX_get_app_data(parent ? parent : ctx);
    if (!owner || !owner->openssl_check_crl) return 0;
    int ok = owner->openssl_check_crl(ctx, crl);
    vigil_crl_run *run = parent ? NULL : owner;
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    if (run && depth >= 0 && depth < run->count && run->results[depth].this_update == -1 && crl) {
        vigil_crl_result *r = &run->results[depth];
        r->this_update = vigil_pki_time_or_absent(X509_CRL_get0_lastUpdate(crl));
        r->next_update = vigil_pki_time_or_absent(X509_CRL_get0_nextUpdate(crl));
        vigil_pki_print_name(X509_CRL_get_issuer(crl), r->signer, sizeof r->signer);
    }
    return ok;
}

/* The CRL run's callback: in the run itself, the first CRL error of each depth is recorded and
   the run goes on (the path was already judged); in an indirect CRL issuer's own path (a child
   context), every error counts, so a CRL issuer that does not verify is no issuer. */
static int vigil_crl_verify_cb(int ok, X509_STORE_CTX *ctx) {
    if (X509_STORE_CTX_get0_parent_ctx(ctx) != NULL) return ok;
    vigil_crl_run *run = X509_STORE_CTX_get_app_data(ctx);
    if (ok) return ok;
    if (!run) return 0;
    int error = X509_STORE_CTX_get_error(ctx);
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    if (!vigil_is_crl_error(error) || depth < 0 || depth >= run->count) return 1;
    vigil_crl_result *r = &run->results[depth];
    r->checked = 1;
    if (r->error != 0) return 1;
    r->error = error;
    if (error == X509_V_ERR_CERT_REVOKED) {
        /* The entry that revokes it (in the complete CRL or its delta): its date and reason, for
           the report; the verdict is OpenSSL's. */
        X509 *cert = X509_STORE_CTX_get_current_cert(ctx);
        for (int i = 0; cert && i < sk_X509_CRL_num(run->crls); i++) {
            X509_CRL *crl = sk_X509_CRL_value(run->crls, i);
            X509_REVOKED *entry = NULL;
            if (X509_CRL_get0_by_cert(crl, &entry, cert) != 1 || !entry) continue;
            int reason = -1;
            ASN1_ENUMERATED *code = X509_REVOKED_get_ext_d2i(entry, NID_crl_reason, NULL, NULL);
            if (code) { reason = (int)ASN1_ENUMERATED_get(code); ASN1_ENUMERATED_free(code); }
            if (reason == CRL_REASON_REMOVE_FROM_CRL) continue;
            r->reason = reason;
            r->revoked_at = vigil_pki_time_or_absent(X509_REVOKED_get0_revocationDate(entry));
            r->this_update = vigil_pki_time_or_absent(X509_CRL_get0_lastUpdate(crl));
            r->next_update = vigil_pki_time_or_absent(X509_CRL_get0_nextUpdate(crl));
            vigil_pki_print_name(X509_CRL_get_issuer(crl), r->signer, sizeof r->signer);
            if (X509_CRL_get_ext_by_NID(crl, NID_delta_crl, -1) >= 0) break; /* a delta is the newer word */
        }
    }
    return 1;
}

int vigil_crl_evaluate(X509 *leaf, X509 *anchor, STACK_OF(X509) *untrusted, STACK_OF(X509_CRL) *crls, long long now, int auth_level,
                                     vigil_crl_result *results, X509 **built, int count) {
    for (int i = 0; i < count; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].reason = -1;
        results[i].revoked_at = results[i].this_update = results[i].next_update = -1;
        built[i] = NULL;
    }
    X509_STORE_CTX_check_crl_fn openssl_check_crl = vigil_openssl_check_crl();
    if (!openssl_check_crl) return -1;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int made = -1;
    if (!store || !ctx || X509_STORE_add_cert(store, anchor) != 1) goto done;
    X509_STORE_set_check_crl(store, vigil_recording_check_crl);
    if (X509_STORE_CTX_init(ctx, store, leaf, untrusted) != 1) goto done;
    X509_STORE_CTX_set0_crls(ctx, crls);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL | X509_V_FLAG_EXTENDED_CRL_SUPPORT | X509_V_FLAG_USE_DELTAS);
    X509_VERIFY_PARAM_set_time(param, (time_t)now);
    X509_VERIFY_PARAM_set_auth_level(param, auth_level);
    vigil_crl_run run = { results, count, openssl_check_crl, crls };
    X509_STORE_CTX_set_app_data(ctx, &run);
    X509_STORE_CTX_set_verify_cb(ctx, vigil_crl_verify_cb);
    (void)X509_verify_cert(ctx);
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
    made = 0;
    for (int i = 0; chain && i < sk_X509_num(chain) && i < count; i++) {
        X509 *x = sk_X509_value(chain, i);
        if (X509_up_ref(x) == 1) built[made++] = x;
    }
done:
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    ERR_clear_error();
    return made;
}

X509_CRL *vigil_crl_from_der(const unsigned char *der, long len) {
    const unsigned char *cursor = der;
    X509_CRL *crl = d2i_X509_CRL(NULL, &cursor, len);
    if (crl && cursor != der + len) { X509_CRL_free(crl); crl = NULL; }
    ERR_clear_error();
    return crl;
}

int vigil_crl_has_number(X509_CRL *crl) {
    ASN1_INTEGER *number = X509_CRL_get_ext_d2i(crl, NID_crl_number, NULL, NULL);
    if (!number) return 0;
    ASN1_INTEGER_free(number);
    return 1;
}
