// The TLS side of a libcurl transfer, in OpenSSL's callbacks: the chain as sent, the stapled OCSP
// answer and the client certificate, each decision asked of Vigil's deciders during the handshake.
// Calls OpenSSL directly (linked); libcurl only through vigil_curl.c.
#include "CCurl.h"

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/// Installed by vigil_curl_capture_tls as libcurl's SSL_CTX callback.
CURLcode vigil_capture_ssl_ctx(CURL *curl, void *ssl_ctx, void *capture);

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
static void vigil_tls_read_session(const SSL *ssl, vigil_tls_session *out) {
    memset(out, 0, sizeof *out);
    out->version_code = SSL_version(ssl);
    const SSL_CIPHER *cipher = SSL_get_current_cipher(ssl);
    if (cipher) {
        out->cipher = SSL_CIPHER_get_name(cipher);
        out->standard = SSL_CIPHER_standard_name(cipher);
    }
    out->secure_renegotiation = SSL_version(ssl) >= TLS1_3_VERSION ? 1 : (int)SSL_get_secure_renegotiation_support((SSL *)ssl);
    out->compression = SSL_get_current_compression((SSL *)ssl) != NULL ? 1 : 0;
    int group = SSL_get_negotiated_group((SSL *)ssl);
    if (group != 0) out->group = SSL_group_to_name((SSL *)ssl, group);
    EVP_PKEY *key = NULL;
    if (SSL_get_peer_tmp_key((SSL *)ssl, &key) == 1 && key) {
        out->ephemeral_bits = EVP_PKEY_get_bits(key);
        out->ephemeral_type = EVP_PKEY_get0_type_name(key);
        EVP_PKEY_free(key);
    }
}

static void vigil_capture_info(const SSL *ssl, int where, int ret) {
    /* An alert the peer sent (SSL_CB_READ_ALERT: both bits; SSL_CB_WRITE_ALERT shares one). */
    if ((where & SSL_CB_READ_ALERT) == SSL_CB_READ_ALERT && (ret & 0xff) != 0) {
        vigil_tls_capture *alerted = (vigil_tls_capture *)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), vigil_capture_index());
        if (alerted && !alerted->proxy_was_last && ssl == alerted->server_ssl) alerted->alert_received = ret & 0xff;
        return;
    }
    if (where & SSL_CB_HANDSHAKE_START) {
        /* An https proxy's own handshake comes first, while its certificate is pending. */
        vigil_tls_capture *started = (vigil_tls_capture *)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), vigil_capture_index());
        if (started && !started->proxy_pending) started->handshake_started = 1;
        return;
    }
    if (where & SSL_CB_HANDSHAKE_DONE) {
        /* What was agreed, read while the SSL object exists (libcurl does not hand it out after a
           connect-only transfer): the last handshake is the server's (an https proxy's comes first). */
        vigil_tls_capture *done = (vigil_tls_capture *)SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), vigil_capture_index());
        if (done) vigil_tls_read_session(ssl, &done->session);
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
static int vigil_tls_capture_adopt(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count, EVP_PKEY *key) {
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
int vigil_tls_capture_set_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
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
int vigil_tls_capture_set_token_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
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
CURLcode vigil_capture_ssl_ctx(CURL *curl, void *ssl_ctx, void *capture) {
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
int vigil_tls_capture_count(const vigil_tls_capture *capture) {
    return capture->chain ? sk_X509_num(capture->chain) : 0;
}
/// DER of the i-th certificate sent; free with vigil_tls_free_der.
int vigil_tls_capture_der(const vigil_tls_capture *capture, int i, unsigned char **der) {
    *der = NULL;
    if (!capture->chain || i < 0 || i >= sk_X509_num(capture->chain)) return -1;
    return i2d_X509(sk_X509_value(capture->chain, i), der);
}
void vigil_tls_free_der(unsigned char *der) { OPENSSL_free(der); }
static void vigil_tls_capture_release_identity(vigil_tls_capture *capture) {
    X509_free(capture->client_cert);
    capture->client_cert = NULL;
    EVP_PKEY_free(capture->client_key);
    capture->client_key = NULL;
    sk_X509_pop_free(capture->client_chain, X509_free);
    capture->client_chain = NULL;
    free(capture->client_cert_issuers);
    capture->client_cert_issuers = NULL;
}
void vigil_tls_capture_forget_exchange(vigil_tls_capture *capture) {
    capture->client_cert_allowed = 0;
    capture->client_cert_requested = 0;
    free(capture->client_cert_issuers);
    capture->client_cert_issuers = NULL;
    capture->client_cert_presented = 0;
    capture->alert_received = 0;
    capture->not_tls = 0;
    capture->proxy_failed = 0;
    capture->server_ssl = NULL;
}

void vigil_tls_capture_release(vigil_tls_capture *capture) {
    vigil_tls_capture_release_identity(capture);
    if (capture->chain) sk_X509_pop_free(capture->chain, X509_free);
    capture->chain = NULL;
    free(capture->staple);
    capture->staple = NULL;
    capture->staple_len = 0;
}

int vigil_tls_capture_session(const vigil_tls_capture *capture, vigil_tls_session *out) {
    *out = capture->session;
    return capture->session.version_code != 0 ? 1 : 0;
}

const char **vigil_tls_suites_for(int version) {
    SSL_CTX *context = SSL_CTX_new(TLS_client_method());
    if (!context) return NULL;
    SSL_CTX_set_security_level(context, 0);
    SSL_CTX_set_min_proto_version(context, version);
    SSL_CTX_set_max_proto_version(context, version);
    const char **names = NULL;
    if (SSL_CTX_set_cipher_list(context, "ALL:COMPLEMENTOFALL:@SECLEVEL=0") == 1) {
        SSL *ssl = SSL_new(context);
        if (ssl) {
            /* The suites a ClientHello of this version would carry (TLS 1.3's are left out). */
            STACK_OF(SSL_CIPHER) *offered = SSL_get1_supported_ciphers(ssl);
            int count = offered ? sk_SSL_CIPHER_num(offered) : 0;
            names = calloc((size_t)count + 1, sizeof *names);
            int kept = 0;
            for (int i = 0; names && i < count; i++) {
                const SSL_CIPHER *cipher = sk_SSL_CIPHER_value(offered, i);
                if (strcmp(SSL_CIPHER_get_version(cipher), "TLSv1.3") == 0) continue;
                names[kept++] = SSL_CIPHER_get_name(cipher);
            }
            if (offered) sk_SSL_CIPHER_free(offered);
            SSL_free(ssl);
        }
    }
    SSL_CTX_free(context);
    return names;
}
