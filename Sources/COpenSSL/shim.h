// Vigil's view of system OpenSSL. Only VigilCertificates imports this module.
// Inline helpers wrap what the Swift importer cannot see: macros (BIO_get_mem_data,
// OPENSSL_free, the typed sk_* stacks) and fields of public OpenSSL structs.
#ifndef VIGIL_COPENSSL_SHIM_H
#define VIGIL_COPENSSL_SHIM_H

#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ct.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ocsp.h>
#include <time.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>

static inline unsigned long vigil_dn_print_flags(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }
static inline long vigil_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline void vigil_OPENSSL_free(void *p) { OPENSSL_free(p); }
/* The valid policy set of a verified path (RFC 5280 section 6.1.5), as dotted OIDs written
   one after another into `out` (each NUL-terminated, at most `size` bytes in all); returns how
   many, 0 when the tree holds none, -1 when no policy tree was built. */
static inline int vigil_valid_policies(X509_STORE_CTX *ctx, char *out, int size) {
    X509_POLICY_TREE *tree = X509_STORE_CTX_get0_policy_tree(ctx);
    if (tree == NULL) return -1;
    STACK_OF(X509_POLICY_NODE) *nodes = X509_policy_tree_get0_user_policies(tree);
    int count = 0, used = 0;
    for (int i = 0; i < sk_X509_POLICY_NODE_num(nodes); i++) {
        const ASN1_OBJECT *policy = X509_policy_node_get0_policy(sk_X509_POLICY_NODE_value(nodes, i));
        if (policy == NULL || size - used < 100) continue;
        int written = OBJ_obj2txt(out + used, size - used, policy, 1);
        if (written <= 0 || written >= size - used) continue;
        used += written + 1;
        count++;
    }
    return count;
}
/* Whether the OpenSSL at run time processes certificate policies without CVE-2023-0464 (an
   attacker's chain with many policy mappings takes exponential time): 3.0.9 and later. */
static inline int vigil_policy_processing_is_safe(void) { return OpenSSL_version_num() >= 0x30000090L; }
/* The user-initial-policy-set of RFC 5280 section 6.1 (dotted OIDs); 1 on success. OpenSSL's own
   default is an empty set, which is not RFC 5280's (any-policy). */
static inline int vigil_set_initial_policies(X509_VERIFY_PARAM *param, const char *const *oids, int count) {
    STACK_OF(ASN1_OBJECT) *policies = sk_ASN1_OBJECT_new_null();
    if (policies == NULL) return 0;
    for (int i = 0; i < count; i++) {
        ASN1_OBJECT *oid = OBJ_txt2obj(oids[i], 1);
        if (oid == NULL || !sk_ASN1_OBJECT_push(policies, oid)) {
            ASN1_OBJECT_free(oid);
            sk_ASN1_OBJECT_pop_free(policies, ASN1_OBJECT_free);
            return 0;
        }
    }
    int ok = X509_VERIFY_PARAM_set1_policies(param, policies);
    sk_ASN1_OBJECT_pop_free(policies, ASN1_OBJECT_free);
    return ok;
}

// Untyped stack access (the typed sk_TYPE_* names are macros).
static inline int vigil_sk_num(const void *sk) { return sk ? OPENSSL_sk_num((const OPENSSL_STACK *)sk) : 0; }
static inline void *vigil_sk_value(const void *sk, int i) { return OPENSSL_sk_value((const OPENSSL_STACK *)sk, i); }
static inline void *vigil_sk_X509_new(void) { return (void *)sk_X509_new_null(); }
static inline int vigil_sk_X509_push(void *sk, X509 *x) { return sk_X509_push((STACK_OF(X509) *)sk, x); }
static inline void vigil_sk_X509_free(void *sk) { sk_X509_free((STACK_OF(X509) *)sk); }
static inline void vigil_sk_X509_pop_free(void *sk) { sk_X509_pop_free((STACK_OF(X509) *)sk, X509_free); }
static inline void vigil_GENERAL_NAMES_free(void *p) { GENERAL_NAMES_free((GENERAL_NAMES *)p); }
static inline void vigil_EXTENDED_KEY_USAGE_free(void *p) { EXTENDED_KEY_USAGE_free((EXTENDED_KEY_USAGE *)p); }
static inline void vigil_AUTHORITY_INFO_ACCESS_free(void *p) { AUTHORITY_INFO_ACCESS_free((AUTHORITY_INFO_ACCESS *)p); }
static inline void vigil_CRL_DIST_POINTS_free(void *p) { CRL_DIST_POINTS_free((CRL_DIST_POINTS *)p); }
static inline void vigil_CERTIFICATEPOLICIES_free(void *p) { CERTIFICATEPOLICIES_free((CERTIFICATEPOLICIES *)p); }
static inline void vigil_BASIC_CONSTRAINTS_free(void *p) { BASIC_CONSTRAINTS_free((BASIC_CONSTRAINTS *)p); }
static inline void vigil_SCT_LIST_free(void *p) { SCT_LIST_free((STACK_OF(SCT) *)p); }
static inline void vigil_NAME_CONSTRAINTS_free(void *p) { NAME_CONSTRAINTS_free((NAME_CONSTRAINTS *)p); }

/// A GENERAL_NAME's kind (GEN_*) and, for DNS, email, URI and IP, its raw bytes.
static inline int vigil_general_name_get(const void *item, const unsigned char **data, int *len) {
    const GENERAL_NAME *gn = (const GENERAL_NAME *)item;
    *data = NULL; *len = 0;
    switch (gn->type) {
    case GEN_DNS: case GEN_EMAIL: case GEN_URI:
        *data = ASN1_STRING_get0_data(gn->d.ia5); *len = ASN1_STRING_length(gn->d.ia5); break;
    case GEN_IPADD:
        *data = ASN1_STRING_get0_data(gn->d.iPAddress); *len = ASN1_STRING_length(gn->d.iPAddress); break;
    default: break;
    }
    return gn->type;
}
static inline int vigil_general_name_print(BIO *out, void *item) { return GENERAL_NAME_print(out, (GENERAL_NAME *)item); }
static inline const ASN1_OBJECT *vigil_access_description_method(const void *item) { return ((const ACCESS_DESCRIPTION *)item)->method; }
static inline void *vigil_access_description_location(const void *item) { return ((const ACCESS_DESCRIPTION *)item)->location; }
static inline void *vigil_dist_point_full_names(const void *item) {
    const DIST_POINT *dp = (const DIST_POINT *)item;
    if (dp->distpoint && dp->distpoint->type == 0) return dp->distpoint->name.fullname;
    return NULL;
}
static inline const ASN1_OBJECT *vigil_policy_info_oid(const void *item) { return ((const POLICYINFO *)item)->policyid; }
/// Returns the cA flag; *pathlen is -1 when absent, -2 when negative or too large.
static inline int vigil_basic_constraints(const void *item, long *pathlen) {
    const BASIC_CONSTRAINTS *bc = (const BASIC_CONSTRAINTS *)item;
    if (!bc->pathlen) { *pathlen = -1; }
    else { long v = ASN1_INTEGER_get(bc->pathlen); *pathlen = (v < 0) ? -2 : v; }
    return bc->ca ? 1 : 0;
}
static inline void *vigil_name_constraints_permitted(const void *nc) { return ((const NAME_CONSTRAINTS *)nc)->permittedSubtrees; }
static inline void *vigil_name_constraints_excluded(const void *nc) { return ((const NAME_CONSTRAINTS *)nc)->excludedSubtrees; }
static inline void *vigil_general_subtree_base(const void *st) { return ((const GENERAL_SUBTREE *)st)->base; }

static inline int vigil_X509_STORE_CTX_set_app_data(X509_STORE_CTX *ctx, void *data) { return X509_STORE_CTX_set_ex_data(ctx, 0, data); }
static inline void *vigil_X509_STORE_CTX_get_app_data(X509_STORE_CTX *ctx) { return X509_STORE_CTX_get_ex_data(ctx, 0); }

/// ASN1_TIME as seconds since 1970 (UTC). Returns 0 on failure.
static inline int vigil_asn1_time_to_unix(const ASN1_TIME *t, long long *out) {
    struct tm tm; memset(&tm, 0, sizeof tm);
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    *out = (long long)timegm(&tm);
    return 1;
}

/// 1 when the extension decodes with OpenSSL's method for it, 0 when it does not, -1 when
/// OpenSSL has no method for the OID.
static inline int vigil_extension_decodes(X509_EXTENSION *ext) {
    const X509V3_EXT_METHOD *method = X509V3_EXT_get(ext);
    if (!method) return -1;
    void *value = X509V3_EXT_d2i(ext);
    if (!value) return 0;
    if (method->it) ASN1_item_free((ASN1_VALUE *)value, ASN1_ITEM_ptr(method->it));
    else if (method->ext_free) method->ext_free(value);
    return 1;
}
static inline int vigil_crl_has_number(X509_CRL *crl) {
    ASN1_INTEGER *number = X509_CRL_get_ext_d2i(crl, NID_crl_number, NULL, NULL);
    if (!number) return 0;
    ASN1_INTEGER_free(number);
    return 1;
}

/* ---- Revocation (RFC 6960 OCSP, RFC 5280 CRLs) ---- */

/* What one OCSP response says about one certificate. Times are seconds since 1970, -1 absent. */
typedef struct vigil_revocation_answer {
    int response_status;     /* OCSP_RESPONSE_STATUS_* (OCSP only) */
    int cert_status;         /* V_OCSP_CERTSTATUS_GOOD / _REVOKED / _UNKNOWN; for a CRL, GOOD or REVOKED */
    int reason;              /* CRL reason code, -1 absent */
    long long revoked_at, this_update, next_update, produced_at;
    char signer[512];        /* the responder's or CRL issuer's subject, RFC 2253 */
} vigil_revocation_answer;

enum {
    VIGIL_REVOCATION_USABLE = 0,
    VIGIL_REVOCATION_MALFORMED = 1,      /* not an OCSP response / CRL */
    VIGIL_REVOCATION_NOT_SUCCESSFUL = 2, /* the responder answered an error status (tryLater...) */
    VIGIL_REVOCATION_BAD_SIGNATURE = 3,  /* the signature, or the signer's authority, does not verify */
    VIGIL_REVOCATION_NOT_ABOUT = 4,      /* no answer for this certificate / another issuer */
    VIGIL_REVOCATION_NOT_CURRENT = 5,    /* thisUpdate in the future, or past nextUpdate */
    VIGIL_REVOCATION_UNSUPPORTED = 6     /* a CRL scope Vigil does not read (indirect, partial reasons, delta...) */
};

static inline long long vigil_time_or_absent(const ASN1_TIME *t) {
    long long value = -1;
    if (t && !vigil_asn1_time_to_unix(t, &value)) value = -1;
    return value;
}
static inline void vigil_print_name(const X509_NAME *name, char *out, size_t size) {
    out[0] = 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return;
    if (X509_NAME_print_ex(bio, name, 0, vigil_dn_print_flags()) >= 0) {
        char *data = NULL;
        long len = BIO_get_mem_data(bio, &data);
        if (len > 0 && data) { size_t n = (size_t)len < size - 1 ? (size_t)len : size - 1; memcpy(out, data, n); out[n] = 0; }
    }
    BIO_free(bio);
}
/* thisUpdate no later than now (5 minutes of clock skew), nextUpdate no earlier than now; without
   nextUpdate, thisUpdate at most a week old. */
static inline int vigil_revocation_is_current(long long this_update, long long next_update, long long now) {
    const long long skew = 300;
    if (this_update < 0 || this_update > now + skew) return 0;
    if (next_update >= 0) return next_update + skew >= now;
    return now - this_update <= 7 * 86400;
}

/* An OCSP request (SHA-1 CertID, as RFC 5019 responders expect) for `cert` issued by `issuer`;
   returns its DER length (free *der with OPENSSL_free), or -1. */
static inline int vigil_ocsp_request(X509 *cert, X509 *issuer, unsigned char **der) {
    *der = NULL;
    OCSP_REQUEST *request = OCSP_REQUEST_new();
    if (!request) return -1;
    OCSP_CERTID *id = OCSP_cert_to_id(EVP_sha1(), cert, issuer);
    if (!id || !OCSP_request_add0_id(request, id)) { OCSP_CERTID_free(id); OCSP_REQUEST_free(request); return -1; }
    int len = i2d_OCSP_REQUEST(request, der);
    OCSP_REQUEST_free(request);
    return len;
}

/* Reads a DER OCSP response about `cert` (issued by `issuer`) at `now`. The response must be
   signed by the issuer itself or by a responder the issuer certified for OCSP signing (RFC 6960
   4.2.2.2); the issuer is the only anchor, so a responder of another CA never counts. */
static inline int vigil_ocsp_check(const unsigned char *der, long len, X509 *cert, X509 *issuer, long long now, vigil_revocation_answer *out) {
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
    if (OCSP_resp_get0_signer(basic, &signer, issuers) == 1 && signer) vigil_print_name(X509_get_subject_name(signer), out->signer, sizeof out->signer);
    if (OCSP_basic_verify(basic, issuers, store, 0) != 1) { result = VIGIL_REVOCATION_BAD_SIGNATURE; goto done; }
    const ASN1_GENERALIZEDTIME *produced = OCSP_resp_get0_produced_at(basic);
    out->produced_at = vigil_time_or_absent(produced);
    int status = -1, reason = -1;
    ASN1_GENERALIZEDTIME *revoked = NULL, *this_update = NULL, *next_update = NULL;
    if (OCSP_resp_find_status(basic, id, &status, &reason, &revoked, &this_update, &next_update) != 1) {
        result = VIGIL_REVOCATION_NOT_ABOUT;
        goto done;
    }
    out->cert_status = status;
    out->reason = reason;
    out->revoked_at = vigil_time_or_absent(revoked);
    out->this_update = vigil_time_or_absent(this_update);
    out->next_update = vigil_time_or_absent(next_update);
    if (!vigil_revocation_is_current(out->this_update, out->next_update, now)) result = VIGIL_REVOCATION_NOT_CURRENT;
done:
    OCSP_CERTID_free(id);
    sk_X509_free(issuers);
    X509_STORE_free(store);
    OCSP_BASICRESP_free(basic);
    ERR_clear_error();
    return result;
}

/* What the CRLs say about one certificate of a path (RFC 5280 section 6.3, as OpenSSL's
   extended CRL support implements it). Times are seconds since 1970, -1 absent. */
typedef struct vigil_crl_result {
    int checked;             /* OpenSSL looked for a CRL for this certificate */
    int error;               /* 0: a CRL covers it and does not list it; else X509_V_ERR_* */
    int reason;              /* a revoked certificate's CRLReason, -1 absent */
    long long revoked_at, this_update, next_update;
    char signer[512];        /* the issuer of the CRL that decided, RFC 2253 */
} vigil_crl_result;

typedef struct vigil_crl_run {
    vigil_crl_result *results;
    int count;
    X509_STORE_CTX_check_crl_fn openssl_check_crl;
    STACK_OF(X509_CRL) *crls;
} vigil_crl_run;

/* The errors of OpenSSL's CRL processing (everything else was decided by path validation). */
static inline int vigil_is_crl_error(int error) {
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
static inline X509_STORE_CTX_check_crl_fn vigil_openssl_check_crl(void) {
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
static inline int vigil_recording_check_crl(X509_STORE_CTX *ctx, X509_CRL *crl) {
    /* An indirect CRL issuer's own path runs in a child context: the run is its parent's. */
    X509_STORE_CTX *parent = X509_STORE_CTX_get0_parent_ctx(ctx);
    vigil_crl_run *owner = X509_STORE_CTX_get_app_data(parent ? parent : ctx);
    if (!owner || !owner->openssl_check_crl) return 0;
    int ok = owner->openssl_check_crl(ctx, crl);
    vigil_crl_run *run = parent ? NULL : owner;
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    if (run && depth >= 0 && depth < run->count && run->results[depth].this_update == -1 && crl) {
        vigil_crl_result *r = &run->results[depth];
        r->this_update = vigil_time_or_absent(X509_CRL_get0_lastUpdate(crl));
        r->next_update = vigil_time_or_absent(X509_CRL_get0_nextUpdate(crl));
        vigil_print_name(X509_CRL_get_issuer(crl), r->signer, sizeof r->signer);
    }
    return ok;
}

/* The CRL run's callback: in the run itself, the first CRL error of each depth is recorded and
   the run goes on (the path was already judged); in an indirect CRL issuer's own path (a child
   context), every error counts, so a CRL issuer that does not verify is no issuer. */
static inline int vigil_crl_verify_cb(int ok, X509_STORE_CTX *ctx) {
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
            r->revoked_at = vigil_time_or_absent(X509_REVOKED_get0_revocationDate(entry));
            r->this_update = vigil_time_or_absent(X509_CRL_get0_lastUpdate(crl));
            r->next_update = vigil_time_or_absent(X509_CRL_get0_nextUpdate(crl));
            vigil_print_name(X509_CRL_get_issuer(crl), r->signer, sizeof r->signer);
            if (X509_CRL_get_ext_by_NID(crl, NID_delta_crl, -1) >= 0) break; /* a delta is the newer word */
        }
    }
    return 1;
}

/* Checks every certificate of a path against `crls` with OpenSSL's whole-path CRL processing
   (X509_V_FLAG_CRL_CHECK_ALL, EXTENDED_CRL_SUPPORT: indirect CRLs, issuing distribution points,
   reasons; USE_DELTAS), at `now`. `anchor` is the path's trust anchor (the only one); `untrusted`
   holds the path's intermediates first (so that OpenSSL rebuilds that very path), then any other
   certificate an indirect CRL issuer may be found among. `results` has `count` entries, one per
   depth (0: the leaf). Writes the path OpenSSL built into `built` (leaf first, at most `count`,
   returns how many), or -1 when the run could not start. */
static inline int vigil_crl_evaluate(X509 *leaf, X509 *anchor, STACK_OF(X509) *untrusted, STACK_OF(X509_CRL) *crls, long long now, int auth_level,
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

/* An X509_CRL from DER (one) or PEM (the first); NULL when neither. */
static inline X509_CRL *vigil_crl_from_der(const unsigned char *der, long len) {
    const unsigned char *cursor = der;
    X509_CRL *crl = d2i_X509_CRL(NULL, &cursor, len);
    if (crl && cursor != der + len) { X509_CRL_free(crl); crl = NULL; }
    ERR_clear_error();
    return crl;
}

static inline STACK_OF(X509_CRL) *vigil_sk_X509_CRL_new(void) { return sk_X509_CRL_new_null(); }
static inline int vigil_sk_X509_CRL_push(STACK_OF(X509_CRL) *stack, X509_CRL *crl) { return sk_X509_CRL_push(stack, crl); }
static inline void vigil_sk_X509_CRL_free(STACK_OF(X509_CRL) *stack) { sk_X509_CRL_free(stack); }

/* 1 when the certificate's TLS Feature extension (RFC 7633) requires status_request (5):
   OCSP must-staple. */
static inline int vigil_must_staple(X509 *cert) {
    int index = X509_get_ext_by_NID(cert, NID_tlsfeature, -1);
    if (index < 0) return 0;
    X509_EXTENSION *ext = X509_get_ext(cert, index);
    ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(ext);
    const unsigned char *p = ASN1_STRING_get0_data(data);
    int len = ASN1_STRING_length(data);
    /* SEQUENCE OF INTEGER, each small: look for INTEGER 5 in the sequence's content. A TLS
       Feature extension Vigil cannot read counts as must-staple (it fails closed). */
    if (len < 2 || p[0] != 0x30 || p[1] != len - 2) return 1;
    for (int i = 2; i + 2 <= len;) {
        if (p[i] != 0x02) return 1;
        int n = p[i + 1];
        if (n < 1 || i + 2 + n > len) return 1;
        if (n == 1 && p[i + 2] == 5) return 1;
        i += 2 + n;
    }
    return 0;
}

/* A client identity read from a file (mutual TLS): the chain as DER, leaf first, and the key as
   unencrypted PKCS#8 PEM, in memory the caller wipes (vigil_identity_release). */
#include <openssl/pkcs12.h>
#define VIGIL_IDENTITY_MAX_CHAIN 16
typedef struct {
    unsigned char *der[VIGIL_IDENTITY_MAX_CHAIN];
    int der_len[VIGIL_IDENTITY_MAX_CHAIN];
    int count;
    char *key_pem;
    long key_len;
} vigil_identity;
enum {
    VIGIL_IDENTITY_OK = 0, VIGIL_IDENTITY_UNREADABLE = 1, VIGIL_IDENTITY_BAD_PASSPHRASE = 2, VIGIL_IDENTITY_NO_KEY = 3,
    VIGIL_IDENTITY_KEY_MISMATCH = 4, VIGIL_IDENTITY_NO_CERTIFICATE = 5, VIGIL_IDENTITY_PASSPHRASE_NEEDED = 6,
};
/* OpenSSL's passphrase callback: the given passphrase, never a prompt (the default callback would
   read the terminal behind Vigil's back); -1 without one. */
static int vigil_identity_passphrase(char *buffer, int size, int rwflag, void *pass) {
    (void)rwflag;
    if (!pass) return -1;
    size_t n = strlen((const char *)pass);
    if ((int)n > size) return -1;
    memcpy(buffer, pass, n);
    return (int)n;
}
static inline void vigil_identity_release(vigil_identity *out) {
    for (int i = 0; i < out->count; i++) OPENSSL_free(out->der[i]);
    out->count = 0;
    if (out->key_pem) { OPENSSL_cleanse(out->key_pem, (size_t)out->key_len); free(out->key_pem); }
    out->key_pem = NULL;
    out->key_len = 0;
}
/* Was the last error a failed decryption (a wrong passphrase)? */
static inline int vigil_identity_bad_decrypt(void) {
    unsigned long error;
    int bad = 0;
    while ((error = ERR_get_error()) != 0) {
        int reason = ERR_GET_REASON(error);
        if (reason == EVP_R_BAD_DECRYPT || reason == PEM_R_BAD_DECRYPT || reason == PEM_R_BAD_PASSWORD_READ || reason == PKCS12_R_MAC_VERIFY_FAILURE
#ifdef PEM_R_PROBLEMS_GETTING_PASSWORD
            || reason == PEM_R_PROBLEMS_GETTING_PASSWORD
#endif
        ) bad = 1;
    }
    return bad;
}
/* A private key from PEM (encrypted or not) or DER bytes; *status says why not. */
static inline EVP_PKEY *vigil_identity_read_key(const unsigned char *data, long len, const char *pass, int *status) {
    BIO *bio = BIO_new_mem_buf(data, (int)len);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, vigil_identity_passphrase, (void *)pass) : NULL;
    BIO_free(bio);
    if (!key) {
        int bad = vigil_identity_bad_decrypt();
        if (bad) { *status = pass ? VIGIL_IDENTITY_BAD_PASSPHRASE : VIGIL_IDENTITY_PASSPHRASE_NEEDED; return NULL; }
        const unsigned char *cursor = data;
        key = d2i_AutoPrivateKey(NULL, &cursor, len);
        ERR_clear_error();
        if (!key) *status = VIGIL_IDENTITY_NO_KEY;
    }
    return key;
}
/* Reads PKCS#12 (DER) or PEM (certificates, and the key unless `keydata` is given) from `data`;
   `keydata` is a separate key (PEM or DER). The leaf is the certificate the key belongs to. */
static inline int vigil_identity_load(const unsigned char *data, long len, const unsigned char *keydata, long keylen, const char *pass, vigil_identity *out) {
    memset(out, 0, sizeof *out);
    ERR_clear_error();
    EVP_PKEY *key = NULL;
    X509 *leaf = NULL;
    STACK_OF(X509) *others = sk_X509_new_null();
    int status = VIGIL_IDENTITY_OK;
    if (!others) return VIGIL_IDENTITY_UNREADABLE;
    const unsigned char *cursor = data;
    PKCS12 *p12 = d2i_PKCS12(NULL, &cursor, len);
    if (p12) {
        /* A bundle without a passphrase may use "" or none; one with a passphrase needs it. */
        if (!PKCS12_verify_mac(p12, pass ? pass : "", -1) && !(pass == NULL && PKCS12_verify_mac(p12, NULL, 0))) {
            status = pass ? VIGIL_IDENTITY_BAD_PASSPHRASE : VIGIL_IDENTITY_PASSPHRASE_NEEDED;
        } else {
            STACK_OF(X509) *ca = NULL;
            if (!PKCS12_parse(p12, pass ? pass : "", &key, &leaf, &ca)) {
                status = vigil_identity_bad_decrypt() ? VIGIL_IDENTITY_BAD_PASSPHRASE : VIGIL_IDENTITY_UNREADABLE;
            } else {
                X509 *x;
                while (ca && (x = sk_X509_shift(ca)) != NULL) sk_X509_push(others, x);
            }
            sk_X509_free(ca);
        }
        PKCS12_free(p12);
    } else {
        ERR_clear_error();
        BIO *bio = BIO_new_mem_buf(data, (int)len);
        X509 *x;
        while (bio && (x = PEM_read_bio_X509(bio, NULL, vigil_identity_passphrase, NULL)) != NULL) sk_X509_push(others, x);
        BIO_free(bio);
        ERR_clear_error();
        if (sk_X509_num(others) == 0) {
            cursor = data;
            x = d2i_X509(NULL, &cursor, len);
            ERR_clear_error();
            if (x) sk_X509_push(others, x);
        }
        if (sk_X509_num(others) == 0) {
            status = VIGIL_IDENTITY_NO_CERTIFICATE;
        } else if (keydata) {
            key = vigil_identity_read_key(keydata, keylen, pass, &status);
        } else {
            key = vigil_identity_read_key(data, len, pass, &status);
        }
        /* The leaf is the certificate whose public key the private key holds. */
        for (int i = 0; key && i < sk_X509_num(others); i++) {
            X509 *candidate = sk_X509_value(others, i);
            if (X509_check_private_key(candidate, key) == 1) { leaf = candidate; sk_X509_delete(others, i); break; }
        }
        ERR_clear_error();
        if (key && !leaf) status = VIGIL_IDENTITY_KEY_MISMATCH;
    }
    if (status == VIGIL_IDENTITY_OK && !key) status = VIGIL_IDENTITY_NO_KEY;
    if (status == VIGIL_IDENTITY_OK && !leaf) status = VIGIL_IDENTITY_NO_CERTIFICATE;
    if (status == VIGIL_IDENTITY_OK && X509_check_private_key(leaf, key) != 1) status = VIGIL_IDENTITY_KEY_MISMATCH;
    if (status == VIGIL_IDENTITY_OK) {
        out->der_len[0] = i2d_X509(leaf, &out->der[0]);
        out->count = 1;
        for (int i = 0; i < sk_X509_num(others) && out->count < VIGIL_IDENTITY_MAX_CHAIN; i++) {
            unsigned char *der = NULL;
            int n = i2d_X509(sk_X509_value(others, i), &der);
            if (n > 0) { out->der[out->count] = der; out->der_len[out->count] = n; out->count++; }
        }
        BIO *pem = BIO_new(BIO_s_secmem());
        if (!pem) pem = BIO_new(BIO_s_mem());
        char *data_out = NULL;
        long n = (pem && PEM_write_bio_PKCS8PrivateKey(pem, key, NULL, NULL, 0, NULL, NULL)) ? BIO_get_mem_data(pem, &data_out) : 0;
        if (n > 0 && (out->key_pem = malloc((size_t)n + 1)) != NULL) {
            memcpy(out->key_pem, data_out, (size_t)n);
            out->key_pem[n] = 0;
            out->key_len = n;
        } else {
            status = VIGIL_IDENTITY_UNREADABLE;
        }
        BIO_free(pem);
        if (status != VIGIL_IDENTITY_OK) vigil_identity_release(out);
    }
    EVP_PKEY_free(key);
    X509_free(leaf);
    sk_X509_pop_free(others, X509_free);
    ERR_clear_error();
    return status;
}


/* A private key on a token (PKCS#11, RFC 7512 URI) through OpenSSL's pkcs11 engine (Debian's
   libengine-pkcs11-openssl), unlocked with `pin`. *status: 0 loaded, 1 no engine, 2 the token or
   key not found or the PIN refused. The ENGINE API is deprecated in OpenSSL 3 and still the one
   the pkcs11 engine offers (a provider is not packaged in Debian 12). */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <openssl/engine.h>
/* The engine is loaded and initialised once and kept for the process: a dynamic engine freed
   while keys it made are alive (or freed after it) would run code that is no longer mapped. */
static inline ENGINE *vigil_pkcs11_engine(void) {
    static ENGINE *engine;
    static int tried;
    if (!tried) {
        tried = 1;
        ENGINE *loaded = ENGINE_by_id("pkcs11");
        if (loaded && ENGINE_init(loaded)) engine = loaded;
        else if (loaded) ENGINE_free(loaded);
        ERR_clear_error();
    }
    return engine;
}
/* The PIN is the engine's: loading it and setting the PIN and loading the key are one step under a lock. */
static inline EVP_PKEY *vigil_token_key(const char *uri, const char *pin, int *status) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    *status = 1;
    EVP_PKEY *key = NULL;
    ENGINE *engine = vigil_pkcs11_engine();
    if (engine) {
        *status = 2;
        if (ENGINE_ctrl_cmd_string(engine, "PIN", pin ? pin : "", 0)) key = ENGINE_load_private_key(engine, uri, NULL, NULL);
        /* libp11 keeps the key it returns: the caller frees a reference of its own. */
        if (key) { EVP_PKEY_up_ref(key); *status = 0; }
    }
    ERR_clear_error();
    pthread_mutex_unlock(&lock);
    return key;
}
#pragma clang diagnostic pop
static inline void vigil_EVP_PKEY_free(EVP_PKEY *key) { EVP_PKEY_free(key); }
/* 1 when `key` belongs to the certificate `x509`. */
static inline int vigil_key_matches(X509 *x509, EVP_PKEY *key) {
    int match = X509_check_private_key(x509, key) == 1;
    ERR_clear_error();
    return match;
}

#endif
