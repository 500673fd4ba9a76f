// Vigil's view of system libcurl (OpenSSL backend). Only VigilHTTP imports this module.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; these typed
// wrappers can be. The TLS helpers read the peer chain from curl's OpenSSL SSL* as DER.
#ifndef VIGIL_CCURL_SHIM_H
#define VIGIL_CCURL_SHIM_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* libcurl is loaded when a transfer first needs it (dlopen), not at start-up: with its thirty-odd
   dependencies it is most of what a `vigil` process would map and relocate before main, and most
   commands (--version, certificates, config, log) never use it. Swift calls the vigil_curl_*
   functions below, never curl_* directly (the module does not link libcurl). */
static inline void *vigil_curl_library(void) {
    static void *library;
    void *handle = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) __atomic_store_n(&library, handle, __ATOMIC_RELEASE);
    }
    return handle;
}
/// Why libcurl cannot be used, or NULL when it can: not installed, or without a function the shim
/// calls. Swift checks it before any other call.
static inline const char *vigil_curl_load_error(void) {
    void *library = vigil_curl_library();
    if (library == NULL) return dlerror();
    static const char *const names[] = {
        "curl_global_init", "curl_easy_init", "curl_easy_cleanup", "curl_easy_perform", "curl_easy_strerror",
        "curl_easy_setopt", "curl_easy_getinfo", "curl_slist_append", "curl_slist_free_all",
    };
    static char message[120];
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]); index++) {
        if (dlsym(library, names[index]) == NULL) {
            snprintf(message, sizeof(message), "libcurl.so.4 has no %s", names[index]);
            return message;
        }
    }
    return NULL;
}
/// A libcurl function, looked up once; vigil_curl_load_error has checked that it exists (the exit
/// below is for a library replaced while the process runs).
static inline void *vigil_curl_symbol(void **cache, const char *name) {
    void *symbol = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (symbol == NULL) {
        void *library = vigil_curl_library();
        symbol = library ? dlsym(library, name) : NULL;
        if (symbol == NULL) {
            fprintf(stderr, "vigil: error: libcurl.so.4 without %s cannot be used; install libcurl4\n", name);
            _exit(2);
        }
        __atomic_store_n(cache, symbol, __ATOMIC_RELEASE);
    }
    return symbol;
}
typedef CURLcode (*vigil_curl_setopt_t)(CURL *, CURLoption, ...);
typedef CURLcode (*vigil_curl_getinfo_t)(CURL *, CURLINFO, ...);
static inline vigil_curl_setopt_t vigil_curl_setopt_function(void) {
    static void *cache;
    return (vigil_curl_setopt_t)vigil_curl_symbol(&cache, "curl_easy_setopt");
}
static inline vigil_curl_getinfo_t vigil_curl_getinfo_function(void) {
    static void *cache;
    return (vigil_curl_getinfo_t)vigil_curl_symbol(&cache, "curl_easy_getinfo");
}
static inline CURLcode vigil_curl_global_init(long flags) {
    static void *cache;
    return ((CURLcode (*)(long))vigil_curl_symbol(&cache, "curl_global_init"))(flags);
}
static inline CURL *vigil_curl_easy_init(void) {
    static void *cache;
    return ((CURL *(*)(void))vigil_curl_symbol(&cache, "curl_easy_init"))();
}
static inline void vigil_curl_easy_cleanup(CURL *h) {
    static void *cache;
    ((void (*)(CURL *))vigil_curl_symbol(&cache, "curl_easy_cleanup"))(h);
}
static inline CURLcode vigil_curl_easy_perform(CURL *h) {
    static void *cache;
    return ((CURLcode (*)(CURL *))vigil_curl_symbol(&cache, "curl_easy_perform"))(h);
}
static inline const char *vigil_curl_easy_strerror(CURLcode code) {
    static void *cache;
    return ((const char *(*)(CURLcode))vigil_curl_symbol(&cache, "curl_easy_strerror"))(code);
}
static inline struct curl_slist *vigil_curl_slist_append(struct curl_slist *list, const char *text) {
    static void *cache;
    return ((struct curl_slist *(*)(struct curl_slist *, const char *))vigil_curl_symbol(&cache, "curl_slist_append"))(list, text);
}
static inline void vigil_curl_slist_free_all(struct curl_slist *list) {
    static void *cache;
    ((void (*)(struct curl_slist *))vigil_curl_symbol(&cache, "curl_slist_free_all"))(list);
}

/* After a CONNECT_ONLY handshake: waits up to `ms` for the server's first record and reads it
   (an alert ends the connection; the info callback records it). 1 when the connection ended. */
static inline int vigil_curl_await_alert(CURL *h, int ms) {
    static void *cache;
    typedef CURLcode (*recv_t)(CURL *, void *, size_t, size_t *);
    recv_t receive = (recv_t)vigil_curl_symbol(&cache, "curl_easy_recv");
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (vigil_curl_getinfo_function()(h, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK || socket == CURL_SOCKET_BAD) return 0;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= ms) return 0;
        struct pollfd wanted = {socket, POLLIN, 0};
        if (poll(&wanted, 1, (int)(ms - elapsed)) <= 0) return 0;
        char buffer[256];
        size_t n = 0;
        CURLcode rc = receive(h, buffer, sizeof buffer, &n);
        if (rc == CURLE_AGAIN) continue;
        return rc != CURLE_OK || n == 0;
    }
}
static inline CURLcode vigil_curl_setopt_long(CURL *h, CURLoption o, long v) { return vigil_curl_setopt_function()(h, o, v); }
static inline CURLcode vigil_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return vigil_curl_setopt_function()(h, o, v); }
static inline CURLcode vigil_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return vigil_curl_setopt_function()(h, o, v); }
static inline CURLcode vigil_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return vigil_curl_getinfo_function()(h, i, v); }
static inline CURLcode vigil_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return vigil_curl_getinfo_function()(h, i, v); }

struct vigil_tls_capture;
/// Decides, during the handshake, whether the captured chain may carry a request: 1 goes on,
/// 0 aborts the handshake before any HTTP byte is sent.
typedef int (*vigil_tls_decider)(void *context, struct vigil_tls_capture *capture);

/// What the handshake showed: the chain as sent (leaf first), protocol and cipher. Filled by
/// OpenSSL's certificate-verify hook during the handshake, while curl's SSL* still exists.
typedef struct vigil_tls_capture {
    STACK_OF(X509) *chain;
    const char *version;   /* static strings owned by OpenSSL */
    const char *cipher;
    vigil_tls_decider decide;   /* NULL: collect only and accept (the probe) */
    void *context;
    /* An https proxy: its handshake comes first and is verified by OpenSSL against the store and
       this host, never captured or accepted as the server's; NULL: no https proxy. */
    const char *proxy_host;
    int proxy_pending;
    /* Set when the proxy's certificate failed that verification (nothing was sent to it). */
    int proxy_failed;
    /* The OCSP answer the server stapled (RFC 6066 status_request, asked on every handshake);
       NULL when it sent none. Owned by the capture (vigil_tls_capture_release frees it). */
    unsigned char *staple;
    long staple_len;
    /* Asked once the staple is known (after the chain was accepted, before the client sends its
       key exchange or Finished): 1 goes on, 0 aborts. NULL: collect only. */
    vigil_tls_decider decide_status;
    /* The last verify call was the https proxy's (its status answer is not the server's). */
    int proxy_was_last;
    /* The negotiated protocol as OpenSSL's number (SSL_version: TLS1_2_VERSION...), 0 unknown. */
    int version_code;
    /* The handshake failed because the peer's bytes are not TLS records (a plain-HTTP port):
       from OpenSSL's error code, read in the info callback before curl drains the queue. */
    int not_tls;
    /* Mutual TLS. The identity to present (NULL: none), owned by the capture; set before the
       transfer (vigil_tls_capture_set_identity) only for the account's own origin. */
    X509 *client_cert;
    STACK_OF(X509) *client_chain;
    EVP_PKEY *client_key;
    /* 1 while the identity may be handed to OpenSSL: 0 until the verify decider accepts the
       server's chain (on the server's own connection, never a proxy's), cleared the moment the
       status decider refuses it. OpenSSL asks for the identity after the server's Certificate
       (TLS 1.2: at its CertificateRequest; TLS 1.3: after its CertificateVerify), but writes the
       client's Certificate message only after the status decider ran (ServerHelloDone, or the
       server's Finished): a refusal there aborts the handshake first, and the message never
       leaves. */
    int client_cert_allowed;
    /* The server's own connection (set by the verify decider), the only one that may get it. */
    const SSL *server_ssl;
    /* The server sent a CertificateRequest; the CAs it named (RFC 2253, one per line, malloc'd). */
    int client_cert_requested;
    char *client_cert_issuers;
    /* A certificate was presented. */
    int client_cert_presented;
    /* The last alert the server sent (its description code), 0 when none. */
    int alert_received;
} vigil_tls_capture;

/* Collects the chain; then accepts (probe) or asks the decider (HTTP client). */
static int vigil_capture_verify(X509_STORE_CTX *ctx, void *arg) {
    vigil_tls_capture *capture = (vigil_tls_capture *)arg;
    if (capture->proxy_pending) {
        /* The https proxy's own handshake: full verification (chain to the store curl set up for
           the proxy, and the proxy's name), before curl sends CONNECT and any Proxy-Authorization. */
        capture->proxy_pending = 0;
        X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
        if (capture->proxy_host) {
            if (!X509_VERIFY_PARAM_set1_ip_asc(param, capture->proxy_host)) X509_VERIFY_PARAM_set1_host(param, capture->proxy_host, 0);
        }
        int verified = X509_verify_cert(ctx) == 1;
        if (!verified) capture->proxy_failed = 1;
        capture->proxy_was_last = 1;
        return verified ? 1 : 0;
    }
    capture->proxy_was_last = 0;
    STACK_OF(X509) *sent = X509_STORE_CTX_get0_untrusted(ctx);
    capture->server_ssl = (const SSL *)X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx());
    if (capture->chain) { sk_X509_pop_free(capture->chain, X509_free); capture->chain = NULL; }
    if (sent) capture->chain = X509_chain_up_ref(sent);
    SSL *ssl = (SSL *)X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx());
    if (ssl) {
        capture->version = SSL_get_version(ssl);
        capture->version_code = SSL_version(ssl);
        const SSL_CIPHER *cipher = SSL_get_pending_cipher(ssl);
        if (!cipher) cipher = SSL_get_current_cipher(ssl);
        capture->cipher = cipher ? SSL_CIPHER_get_name(cipher) : NULL;
    }
    if (capture->decide) {
        int accepted = capture->decide(capture->context, capture);
        if (!accepted) X509_STORE_CTX_set_error(ctx, X509_V_ERR_APPLICATION_VERIFICATION);
        return accepted;
    }
    return 1;
}
/* OpenSSL's status callback (after the chain, TLS 1.2 and 1.3 alike, before the client's next
   flight): keeps the stapled OCSP answer, then asks the status decider. */
static int vigil_capture_status(SSL *ssl, void *arg) {
    vigil_tls_capture *capture = (vigil_tls_capture *)arg;
    if (capture->proxy_was_last) { capture->proxy_was_last = 0; return 1; }
    free(capture->staple);
    capture->staple = NULL;
    capture->staple_len = 0;
    const unsigned char *answer = NULL;
    long len = SSL_get_tlsext_status_ocsp_resp(ssl, &answer);
    if (answer && len > 0 && len <= 1048576) {
        capture->staple = (unsigned char *)malloc((size_t)len);
        if (capture->staple) { memcpy(capture->staple, answer, (size_t)len); capture->staple_len = len; }
    }
    if (capture->decide_status) return capture->decide_status(capture->context, capture) ? 1 : 0;
    return 1;
}
/* The SSL_CTX ex_data slot that holds the capture, for the info callback (which gets no argument). */
static int vigil_capture_index(void) {
    static int index = -1;
    if (index < 0) index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    return index;
}
/* A failed handshake step: was it because the peer does not speak TLS? By OpenSSL's reason code. */
static void vigil_capture_info(const SSL *ssl, int where, int ret) {
    /* An alert the peer sent (SSL_CB_READ_ALERT: both bits; SSL_CB_WRITE_ALERT shares one). */
    if ((where & SSL_CB_READ_ALERT) == SSL_CB_READ_ALERT && (ret & 0xff) != 0) {
        vigil_tls_capture *alerted = (vigil_tls_capture *)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), vigil_capture_index());
        if (alerted && !alerted->proxy_was_last && ssl == alerted->server_ssl) alerted->alert_received = ret & 0xff;
        return;
    }
    if (!(where & SSL_CB_EXIT) || ret > 0) return;
    vigil_tls_capture *capture = (vigil_tls_capture *)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), vigil_capture_index());
    unsigned long error = ERR_peek_last_error();
    if (!capture || error == 0 || ERR_GET_LIB(error) != ERR_LIB_SSL) return;
    int reason = ERR_GET_REASON(error);
    if (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_PACKET_LENGTH_TOO_LONG || reason == SSL_R_HTTP_REQUEST
#ifdef SSL_R_RECORD_LAYER_FAILURE
        || reason == SSL_R_RECORD_LAYER_FAILURE
#endif
    ) capture->not_tls = 1;
}
/* OpenSSL asks for the client's certificate (the server sent a CertificateRequest): the CAs
   the server accepts are kept for the error a refusal gives; the identity is set, with its chain
   in the key's own slot (SSL_use_cert_and_key), only on the server's own connection, when one was
   loaded for this origin and the server was judged acceptable so far. Returns 1 (go on; without a
   certificate set, OpenSSL sends an empty Certificate message). */
static int vigil_capture_client_cert(SSL *ssl, void *arg) {
    vigil_tls_capture *capture = (vigil_tls_capture *)arg;
    if (!capture || capture->proxy_was_last || ssl != capture->server_ssl) return 1;
    capture->client_cert_requested = 1;
    const STACK_OF(X509_NAME) *names = SSL_get0_peer_CA_list(ssl);
    if (!names || sk_X509_NAME_num(names) == 0) names = SSL_get_client_CA_list(ssl);
    free(capture->client_cert_issuers);
    capture->client_cert_issuers = NULL;
    BIO *bio = BIO_new(BIO_s_mem());
    for (int i = 0; bio && names && i < sk_X509_NAME_num(names) && i < 64; i++) {
        X509_NAME_print_ex(bio, sk_X509_NAME_value(names, i), 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
        BIO_write(bio, "\n", 1);
    }
    char *text = NULL;
    long n = bio ? BIO_get_mem_data(bio, &text) : 0;
    if (n > 0 && (capture->client_cert_issuers = malloc((size_t)n + 1)) != NULL) {
        memcpy(capture->client_cert_issuers, text, (size_t)n);
        capture->client_cert_issuers[n] = 0;
    }
    BIO_free(bio);
    if (!capture->client_cert_allowed || !capture->client_cert || !capture->client_key) return 1;
    if (SSL_use_cert_and_key(ssl, capture->client_cert, capture->client_key, capture->client_chain, 1) == 1) capture->client_cert_presented = 1;
    ERR_clear_error();
    return 1;
}
/* The certificate and its chain (DER, certificate first) with `key`, adopted by the capture
   (which then owns the key's reference, freed here on failure). 0 when they cannot be read. */
static inline int vigil_tls_capture_adopt(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count, EVP_PKEY *key) {
    if (count < 1 || !key) { EVP_PKEY_free(key); return 0; }
    const unsigned char *cursor = der[0];
    X509 *cert = d2i_X509(NULL, &cursor, lengths[0]);
    STACK_OF(X509) *chain = sk_X509_new_null();
    for (int i = 1; chain && i < count; i++) {
        cursor = der[i];
        X509 *x = d2i_X509(NULL, &cursor, lengths[i]);
        if (x) sk_X509_push(chain, x);
    }
    ERR_clear_error();
    if (!cert || !chain) { X509_free(cert); EVP_PKEY_free(key); sk_X509_pop_free(chain, X509_free); return 0; }
    capture->client_cert = cert;
    capture->client_key = key;
    capture->client_chain = chain;
    return 1;
}
/* The identity the capture presents where it is allowed: the certificate and its chain (DER)
   and the key (PEM), read into OpenSSL objects the capture owns. 0 when they cannot be read. */
static inline int vigil_tls_capture_set_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
                                                 const char *key_pem, long key_len) {
    BIO *bio = BIO_new_mem_buf(key_pem, (int)key_len);
    EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *)"") : NULL;
    BIO_free(bio);
    return vigil_tls_capture_adopt(capture, der, lengths, count, key);
}
/* The identity as vigil_tls_capture_set_identity sets it, its key on a token (PKCS#11 URI) loaded
   through OpenSSL's pkcs11 engine with `pin`. The ENGINE API is deprecated in OpenSSL 3 and still
   the one Debian's libengine-pkcs11-openssl offers. 0 when the engine or key cannot be loaded. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
#include <openssl/engine.h>
static inline int vigil_tls_capture_set_token_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
                                                       const char *uri, const char *pin) {
    /* Loaded once and kept for the process (see COpenSSL's vigil_pkcs11_engine); the PIN is the
       engine's, so setting it and loading the key are one step under a lock. */
    static ENGINE *engine;
    static int tried;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    EVP_PKEY *key = NULL;
    pthread_mutex_lock(&lock);
    if (!tried) {
        tried = 1;
        ENGINE *loaded = ENGINE_by_id("pkcs11");
        if (loaded && ENGINE_init(loaded)) engine = loaded;
        else if (loaded) ENGINE_free(loaded);
    }
    if (engine && ENGINE_ctrl_cmd_string(engine, "PIN", pin ? pin : "", 0)) key = ENGINE_load_private_key(engine, uri, NULL, NULL);
    pthread_mutex_unlock(&lock);
    /* libp11 keeps the key it returns (it is its token object's, and freed with it): the capture
       takes a reference of its own, so that releasing the capture never frees libp11's. */
    if (key) EVP_PKEY_up_ref(key);
    ERR_clear_error();
    return vigil_tls_capture_adopt(capture, der, lengths, count, key);
}
#pragma clang diagnostic pop
static CURLcode vigil_capture_ssl_ctx(CURL *curl, void *ssl_ctx, void *capture) {
    (void)curl;
    SSL_CTX *ctx = (SSL_CTX *)ssl_ctx;
    if (vigil_capture_index() < 0 || !SSL_CTX_set_ex_data(ctx, vigil_capture_index(), capture)) return CURLE_SSL_CERTPROBLEM;
    SSL_CTX_set_info_callback(ctx, vigil_capture_info);
    /* No renegotiation: a second handshake on the connection would be judged as the first. */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_cert_verify_callback(ctx, vigil_capture_verify, capture);
    /* OCSP stapling asked on every handshake; the answer is judged by Vigil, never by curl. */
    if (SSL_CTX_set_tlsext_status_type(ctx, TLSEXT_STATUSTYPE_ocsp) != 1) return CURLE_SSL_CERTPROBLEM;
    SSL_CTX_set_tlsext_status_cb(ctx, vigil_capture_status);
    SSL_CTX_set_tlsext_status_arg(ctx, capture);
    /* Asked on every CertificateRequest; presents only what the capture allows. No post-handshake
       authentication (curl asks for it): a CertificateRequest after the handshake, from a proxy
       or the server, gets nothing. */
    SSL_CTX_set_cert_cb(ctx, vigil_capture_client_cert, capture);
    SSL_CTX_set_post_handshake_auth(ctx, 0);
    return CURLE_OK;
}
/// Makes the next transfer on `h` record its TLS handshake into `capture`.
static inline CURLcode vigil_curl_capture_tls(CURL *h, vigil_tls_capture *capture) {
    CURLcode rc = vigil_curl_setopt_function()(h, CURLOPT_SSL_CTX_FUNCTION, vigil_capture_ssl_ctx);
    if (rc != CURLE_OK) return rc;
    return vigil_curl_setopt_function()(h, CURLOPT_SSL_CTX_DATA, (void *)capture);
}
typedef size_t (*vigil_curl_data_callback)(char *data, size_t size, size_t count, void *context);
/// CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION with its data pointer.
static inline CURLcode vigil_curl_setopt_callback(CURL *h, CURLoption function, vigil_curl_data_callback callback,
                                                  CURLoption data, void *context) {
    CURLcode rc = vigil_curl_setopt_function()(h, function, callback);
    if (rc != CURLE_OK) return rc;
    return vigil_curl_setopt_function()(h, data, context);
}
typedef int (*vigil_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
/// CURLOPT_XFERINFOFUNCTION with its data pointer, progress calls switched on: a non-zero return aborts the transfer.
static inline CURLcode vigil_curl_setopt_progress(CURL *h, vigil_curl_progress_callback callback, void *context) {
    CURLcode rc = vigil_curl_setopt_function()(h, CURLOPT_XFERINFOFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    rc = vigil_curl_setopt_function()(h, CURLOPT_XFERINFODATA, context);
    if (rc != CURLE_OK) return rc;
    return vigil_curl_setopt_function()(h, CURLOPT_NOPROGRESS, 0L);
}
static inline CURLcode vigil_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return vigil_curl_setopt_function()(h, o, v); }

static inline int vigil_tls_capture_count(const vigil_tls_capture *capture) {
    return capture->chain ? sk_X509_num(capture->chain) : 0;
}
/// DER of the i-th certificate sent; free with vigil_tls_free_der.
static inline int vigil_tls_capture_der(const vigil_tls_capture *capture, int i, unsigned char **der) {
    *der = NULL;
    if (!capture->chain || i < 0 || i >= sk_X509_num(capture->chain)) return -1;
    return i2d_X509(sk_X509_value(capture->chain, i), der);
}
static inline void vigil_tls_free_der(unsigned char *der) { OPENSSL_free(der); }
static inline void vigil_tls_capture_release_identity(vigil_tls_capture *capture) {
    X509_free(capture->client_cert);
    capture->client_cert = NULL;
    EVP_PKEY_free(capture->client_key);
    capture->client_key = NULL;
    sk_X509_pop_free(capture->client_chain, X509_free);
    capture->client_chain = NULL;
    free(capture->client_cert_issuers);
    capture->client_cert_issuers = NULL;
}
static inline void vigil_tls_capture_release(vigil_tls_capture *capture) {
    vigil_tls_capture_release_identity(capture);
    if (capture->chain) sk_X509_pop_free(capture->chain, X509_free);
    capture->chain = NULL;
    free(capture->staple);
    capture->staple = NULL;
    capture->staple_len = 0;
}
#endif
