// The host simulator's certificate authority, on system OpenSSL: it mints, at run time, the
// certificates, CRLs and OCSP answers of its revocation scenarios (their URLs name the simulator's
// own ports, known only once it listens). Only VigilSimulator imports this module; it judges
// nothing (the client's trust code is in VigilCertificates, on COpenSSL).
#ifndef VIGIL_CSIMULATORPKI_SHIM_H
#define VIGIL_CSIMULATORPKI_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A PEM object from memory; NULL when the text holds none. */
static inline X509 *vigil_pki_read_certificate(const char *pem, int len) {
    BIO *bio = BIO_new_mem_buf(pem, len);
    X509 *x = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    ERR_clear_error();
    return x;
}
static inline EVP_PKEY *vigil_pki_read_key(const char *pem, int len) {
    BIO *bio = BIO_new_mem_buf(pem, len);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
    BIO_free(bio);
    ERR_clear_error();
    return key;
}
static inline EVP_PKEY *vigil_pki_new_key(void) { return EVP_EC_gen("P-256"); }

/* What a BIO holds, as a malloc'd NUL-terminated string (free it); NULL on failure. */
static inline char *vigil_pki_bio_text(BIO *bio) {
    char *data = NULL;
    long len = BIO_get_mem_data(bio, &data);
    if (len <= 0 || !data) return NULL;
    char *copy = (char *)malloc((size_t)len + 1);
    if (copy) { memcpy(copy, data, (size_t)len); copy[len] = 0; }
    return copy;
}
static inline char *vigil_pki_certificate_pem(X509 *x) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *text = (bio && PEM_write_bio_X509(bio, x)) ? vigil_pki_bio_text(bio) : NULL;
    BIO_free(bio);
    return text;
}
static inline char *vigil_pki_key_pem(EVP_PKEY *key) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *text = (bio && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)) ? vigil_pki_bio_text(bio) : NULL;
    BIO_free(bio);
    return text;
}

/* A certificate for `subject_key`, named CN=`common_name`,O=Vigil Test PKI,C=DE, signed by
   `issuer_key` (`issuer` NULL: self-signed), valid [not_before, not_after], with the extensions
   given as OpenSSL's configuration strings (name[i] = value[i], for example "authorityInfoAccess"
   = "OCSP;URI:http://127.0.0.1:9/ocsp"). NULL on failure. */
static inline X509 *vigil_pki_issue(X509 *issuer, EVP_PKEY *issuer_key, EVP_PKEY *subject_key, const char *common_name, long serial,
                                    long long not_before, long long not_after, const char *const *names, const char *const *values, int count) {
    X509 *x = X509_new();
    if (!x) return NULL;
    X509_NAME *name = X509_NAME_new();
    int ok = name && X509_set_version(x, 2) && ASN1_INTEGER_set(X509_get_serialNumber(x), serial)
        && X509_NAME_add_entry_by_txt(name, "C", MBSTRING_UTF8, (const unsigned char *)"DE", -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"Vigil Test PKI", -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0)
        && X509_set_subject_name(x, name) && X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name)
        && ASN1_TIME_set(X509_getm_notBefore(x), (time_t)not_before) && ASN1_TIME_set(X509_getm_notAfter(x), (time_t)not_after)
        && X509_set_pubkey(x, subject_key);
    X509_NAME_free(name);
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
    for (int i = 0; ok && i < count; i++) {
        X509_EXTENSION *ext = X509V3_EXT_nconf(NULL, &ctx, names[i], values[i]);
        ok = ext && X509_add_ext(x, ext, -1);
        X509_EXTENSION_free(ext);
    }
    if (!ok || !X509_sign(x, issuer_key, EVP_sha256())) { X509_free(x); ERR_clear_error(); return NULL; }
    return x;
}

static inline int vigil_pki_der_out(int len, unsigned char *buffer, unsigned char **der) {
    if (len <= 0) { OPENSSL_free(buffer); *der = NULL; return -1; }
    *der = buffer;
    return len;
}
static inline void vigil_pki_free(void *p) { OPENSSL_free(p); }

/* A v2 CRL by `issuer` (signed with `key`) listing `revoked` serials, with a CRL number. DER
   length, or -1; free *der with vigil_pki_free. */
static inline int vigil_pki_crl(X509 *issuer, EVP_PKEY *key, const long *revoked, int count, long long revoked_at, long long this_update,
                                long long next_update, long number, unsigned char **der) {
    *der = NULL;
    X509_CRL *crl = X509_CRL_new();
    ASN1_TIME *last = ASN1_TIME_set(NULL, (time_t)this_update), *next = ASN1_TIME_set(NULL, (time_t)next_update);
    ASN1_INTEGER *crl_number = ASN1_INTEGER_new();
    int ok = crl && last && next && crl_number && X509_CRL_set_version(crl, 1) && X509_CRL_set_issuer_name(crl, X509_get_subject_name(issuer))
        && X509_CRL_set1_lastUpdate(crl, last) && X509_CRL_set1_nextUpdate(crl, next) && ASN1_INTEGER_set(crl_number, number)
        && X509_CRL_add1_ext_i2d(crl, NID_crl_number, crl_number, 0, 0);
    for (int i = 0; ok && i < count; i++) {
        X509_REVOKED *entry = X509_REVOKED_new();
        ASN1_INTEGER *serial = ASN1_INTEGER_new();
        ASN1_TIME *when = ASN1_TIME_set(NULL, (time_t)revoked_at);
        ok = entry && serial && when && ASN1_INTEGER_set(serial, revoked[i]) && X509_REVOKED_set_serialNumber(entry, serial)
            && X509_REVOKED_set_revocationDate(entry, when) && X509_CRL_add0_revoked(crl, entry);
        if (!ok) X509_REVOKED_free(entry);
        ASN1_INTEGER_free(serial);
        ASN1_TIME_free(when);
    }
    ok = ok && X509_CRL_sort(crl) && X509_CRL_sign(crl, key, EVP_sha256());
    unsigned char *buffer = NULL;
    int len = ok ? i2d_X509_CRL(crl, &buffer) : -1;
    ASN1_TIME_free(last); ASN1_TIME_free(next); ASN1_INTEGER_free(crl_number);
    X509_CRL_free(crl);
    ERR_clear_error();
    return vigil_pki_der_out(len, buffer, der);
}

/* The answer to a DER OCSP request about certificates of `issuer`: revoked if a serial is in
   `revoked`, good otherwise, unknown for another issuer's; signed by `signer` with `key` (the
   issuer itself, or any other key: the wrong-key scenario). DER length, or -1 (a malformed
   request gets a malformedRequest answer, length > 0). */
static inline int vigil_pki_ocsp_answer(const unsigned char *request_der, long request_len, X509 *issuer, X509 *signer, EVP_PKEY *key,
                                        const long *revoked, int count, long long revoked_at, long long this_update, long long next_update,
                                        unsigned char **der) {
    *der = NULL;
    unsigned char *buffer = NULL;
    int len = -1;
    const unsigned char *cursor = request_der;
    OCSP_REQUEST *request = d2i_OCSP_REQUEST(NULL, &cursor, request_len);
    if (!request || OCSP_request_onereq_count(request) < 1) {
        OCSP_REQUEST_free(request);
        OCSP_RESPONSE *malformed = OCSP_response_create(OCSP_RESPONSE_STATUS_MALFORMEDREQUEST, NULL);
        if (malformed) len = i2d_OCSP_RESPONSE(malformed, &buffer);
        OCSP_RESPONSE_free(malformed);
        ERR_clear_error();
        return vigil_pki_der_out(len, buffer, der);
    }
    OCSP_BASICRESP *basic = OCSP_BASICRESP_new();
    ASN1_GENERALIZEDTIME *this_time = ASN1_GENERALIZEDTIME_set(NULL, (time_t)this_update);
    ASN1_GENERALIZEDTIME *next_time = ASN1_GENERALIZEDTIME_set(NULL, (time_t)next_update);
    ASN1_GENERALIZEDTIME *revoked_time = ASN1_GENERALIZEDTIME_set(NULL, (time_t)revoked_at);
    int ok = basic && this_time && next_time && revoked_time;
    for (int i = 0; ok && i < OCSP_request_onereq_count(request); i++) {
        OCSP_CERTID *id = OCSP_onereq_get0_id(OCSP_request_onereq_get0(request, i));
        ASN1_INTEGER *serial = NULL;
        OCSP_id_get0_info(NULL, NULL, NULL, &serial, id);
        OCSP_CERTID *mine = serial ? OCSP_cert_id_new(EVP_sha1(), X509_get_subject_name(issuer), X509_get0_pubkey_bitstr(issuer), serial) : NULL;
        int status = V_OCSP_CERTSTATUS_UNKNOWN;
        if (mine && OCSP_id_cmp(mine, id) == 0) {
            status = V_OCSP_CERTSTATUS_GOOD;
            long value = ASN1_INTEGER_get(serial);
            for (int r = 0; r < count; r++) if (revoked[r] == value) status = V_OCSP_CERTSTATUS_REVOKED;
        }
        OCSP_CERTID_free(mine);
        ok = OCSP_basic_add1_status(basic, id, status, status == V_OCSP_CERTSTATUS_REVOKED ? OCSP_REVOKED_STATUS_KEYCOMPROMISE : -1,
                                    status == V_OCSP_CERTSTATUS_REVOKED ? revoked_time : NULL, this_time, next_time) != NULL;
    }
    ok = ok && OCSP_copy_nonce(basic, request) > 0 && OCSP_basic_sign(basic, signer, key, EVP_sha256(), NULL, 0);
    OCSP_RESPONSE *response = ok ? OCSP_response_create(OCSP_RESPONSE_STATUS_SUCCESSFUL, basic) : NULL;
    if (response) len = i2d_OCSP_RESPONSE(response, &buffer);
    OCSP_RESPONSE_free(response);
    OCSP_BASICRESP_free(basic);
    OCSP_REQUEST_free(request);
    ASN1_GENERALIZEDTIME_free(this_time); ASN1_GENERALIZEDTIME_free(next_time); ASN1_GENERALIZEDTIME_free(revoked_time);
    ERR_clear_error();
    return vigil_pki_der_out(len, buffer, der);
}

/* A mutual-TLS host's check of what a client presented: the certificate (DER, first) and the
   chain it sent, against the CA in `ca_pem`, for client authentication, at `now`. 0 when it
   verifies, else OpenSSL's verify error. The simulator's own check (it judges what clients send
   it, never what a client trusts). */
static inline int vigil_pki_verify_client(const unsigned char *const *der, const int *lengths, int count, const char *ca_pem, int ca_len,
                                          long long now) {
    if (count < 1) return X509_V_ERR_UNSPECIFIED;
    const unsigned char *cursor = der[0];
    X509 *leaf = d2i_X509(NULL, &cursor, lengths[0]);
    X509 *ca = vigil_pki_read_certificate(ca_pem, ca_len);
    STACK_OF(X509) *chain = sk_X509_new_null();
    for (int i = 1; chain && i < count; i++) {
        cursor = der[i];
        X509 *x = d2i_X509(NULL, &cursor, lengths[i]);
        if (x) sk_X509_push(chain, x);
    }
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int result = X509_V_ERR_UNSPECIFIED;
    if (leaf && ca && chain && store && ctx && X509_STORE_add_cert(store, ca) == 1 && X509_STORE_CTX_init(ctx, store, leaf, chain) == 1) {
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
        X509_STORE_CTX_set_time(ctx, 0, (time_t)now);
        result = X509_verify_cert(ctx) == 1 ? 0 : X509_STORE_CTX_get_error(ctx);
        if (result == 0 && X509_V_OK != 0) result = 0;
    }
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    sk_X509_pop_free(chain, X509_free);
    X509_free(ca);
    X509_free(leaf);
    ERR_clear_error();
    return result;
}

#endif
