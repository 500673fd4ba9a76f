// A client identity for mutual TLS read from a file: PKCS#12, or PEM certificates with the key in
// the same file or its own; the leaf is the certificate the key belongs to.
#include "CVigilPKI.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

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

void vigil_identity_release(vigil_identity *out) {
    for (int i = 0; i < out->count; i++) OPENSSL_free(out->der[i]);
    out->count = 0;
    if (out->key_pem) { OPENSSL_cleanse(out->key_pem, (size_t)out->key_len); free(out->key_pem); }
    out->key_pem = NULL;
    out->key_len = 0;
}

/* Was the last error a failed decryption (a wrong passphrase)? */
static int vigil_identity_bad_decrypt(void) {
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
static EVP_PKEY *vigil_identity_read_key(const unsigned char *data, long len, const char *pass, int *status) {
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

int vigil_identity_load(const unsigned char *data, long len, const unsigned char *keydata, long keylen, const char *pass, vigil_identity *out) {
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
