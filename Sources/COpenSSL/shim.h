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
#include <time.h>
#include <string.h>

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
#endif
