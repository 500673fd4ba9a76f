// Vigil's view of system libcurl (OpenSSL backend). Only VigilHTTP imports this module.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these typed
// wrappers can be. The TLS helpers read the peer chain from curl's OpenSSL SSL* as DER.
#ifndef VIGIL_CCURL_SHIM_H
#define VIGIL_CCURL_SHIM_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>

static inline CURLcode vigil_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vigil_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vigil_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode vigil_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode vigil_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }

static inline SSL *vigil_curl_openssl(CURL *h) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(h, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info) return NULL;
    if (info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return NULL;
    return (SSL *)info->internals;
}

/// Number of certificates the peer sent (leaf first), or -1 without a TLS session.
static inline int vigil_curl_peer_chain_count(CURL *h) {
    SSL *ssl = vigil_curl_openssl(h);
    if (!ssl) return -1;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    return chain ? sk_X509_num(chain) : 0;
}
/// DER of the i-th certificate the peer sent, in a buffer the caller frees with vigil_curl_free_der.
static inline int vigil_curl_peer_chain_der(CURL *h, int i, unsigned char **der) {
    *der = NULL;
    SSL *ssl = vigil_curl_openssl(h);
    if (!ssl) return -1;
    STACK_OF(X509) *chain = SSL_get_peer_cert_chain(ssl);
    if (!chain || i < 0 || i >= sk_X509_num(chain)) return -1;
    return i2d_X509(sk_X509_value(chain, i), der);
}
static inline void vigil_curl_free_der(unsigned char *der) { OPENSSL_free(der); }
static inline const char *vigil_curl_tls_version(CURL *h) { SSL *s = vigil_curl_openssl(h); return s ? SSL_get_version(s) : NULL; }
static inline const char *vigil_curl_tls_cipher(CURL *h) {
    SSL *s = vigil_curl_openssl(h);
    return s ? SSL_CIPHER_get_name(SSL_get_current_cipher(s)) : NULL;
}
#endif
