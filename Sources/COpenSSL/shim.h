// Vigil's view of system OpenSSL. Only VigilCertificates imports this module.
// Inline helpers wrap what the Swift importer cannot see: macros (BIO_get_mem_data,
// OPENSSL_free, the typed sk_* stacks) and fields of public OpenSSL structs. Nothing here
// decides anything: Vigil's checks written in C (revocation, policies, client identities) are
// in the CVigilPKI target, with .c files of their own.
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

static inline unsigned long vigil_dn_print_flags(void) { return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB; }
static inline long vigil_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline void vigil_OPENSSL_free(void *p) { OPENSSL_free(p); }
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
static inline STACK_OF(X509_CRL) *vigil_sk_X509_CRL_new(void) { return sk_X509_CRL_new_null(); }
static inline int vigil_sk_X509_CRL_push(STACK_OF(X509_CRL) *stack, X509_CRL *crl) { return sk_X509_CRL_push(stack, crl); }
static inline void vigil_sk_X509_CRL_free(STACK_OF(X509_CRL) *stack) { sk_X509_CRL_free(stack); }
static inline void vigil_EVP_PKEY_free(EVP_PKEY *key) { EVP_PKEY_free(key); }

#endif
