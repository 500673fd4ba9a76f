// Vigil's view of system libcurl (OpenSSL backend). Only VigilHTTP imports this module.
//
// libcurl is loaded when a transfer first needs it (dlopen), not at start-up: with its thirty-odd
// dependencies it is most of what a `vigil` process would map and relocate before main, and most
// commands (--version, certificates, config, log) never use it. Swift calls the vigil_curl_*
// functions declared here, never curl_* directly: this module does not link libcurl. They are
// defined in vigil_curl.c, each through one table of symbols whose types are libcurl's own
// prototypes (typeof), so that a prototype that does not match curl.h does not compile.
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; the typed
// wrappers can be. The TLS helpers (vigil_tls_capture.c) read the peer chain from curl's
// OpenSSL SSL* as DER during the handshake.
#ifndef VIGIL_CCURL_H
#define VIGIL_CCURL_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/// Why libcurl cannot be used, or NULL when it can: not installed, or without a function the
/// table names. Swift checks it before any other call.
const char *vigil_curl_load_error(void);

CURLcode vigil_curl_global_init(long flags);
CURL *vigil_curl_easy_init(void);
void vigil_curl_easy_cleanup(CURL *h);
/// Every option back to its default; the handle's live connections stay (curl_easy_reset).
void vigil_curl_easy_reset(CURL *h);
CURLcode vigil_curl_easy_perform(CURL *h);
const char *vigil_curl_easy_strerror(CURLcode code);
struct curl_slist *vigil_curl_slist_append(struct curl_slist *list, const char *text);
void vigil_curl_slist_free_all(struct curl_slist *list);

CURLcode vigil_curl_setopt_long(CURL *h, CURLoption o, long v);
CURLcode vigil_curl_setopt_string(CURL *h, CURLoption o, const char *v);
CURLcode vigil_curl_setopt_pointer(CURL *h, CURLoption o, void *v);
CURLcode vigil_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v);
CURLcode vigil_curl_getinfo_long(CURL *h, CURLINFO i, long *v);
CURLcode vigil_curl_getinfo_string(CURL *h, CURLINFO i, char **v);
CURLcode vigil_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v);

/// What a finished handshake agreed, read from the connection's own SSL object (a scan's answer:
/// the suite by OpenSSL's and IANA's names, the key exchange group, the server's ephemeral key).
typedef struct vigil_tls_session {
    int version_code;            /* SSL_version */
    const char *cipher;          /* OpenSSL's name, static */
    const char *standard;        /* IANA's name (RFC), static; NULL when OpenSSL has none */
    const char *group;           /* the key exchange group (x25519, secp256r1, ffdhe2048...), static; NULL */
    int ephemeral_bits;          /* the server's ephemeral key (a DH group's size); 0 when none */
    const char *ephemeral_type;  /* "DH", "X25519", "EC"...; static; NULL */
    int secure_renegotiation;    /* RFC 5746 supported by the server (TLS 1.2 and older); 1 for TLS 1.3 */
    int compression;             /* TLS compression agreed (CRIME) */
} vigil_tls_session;
/// The TLS 1.2-and-older suites this OpenSSL can offer at security level 0 (`ALL:COMPLEMENTOFALL`),
/// by OpenSSL's names, for `version` (0x0301 to 0x0303): a NULL-terminated array, each string
/// static; free the array (not the strings) with free(). NULL when OpenSSL cannot say.
const char **vigil_tls_suites_for(int version);



typedef size_t (*vigil_curl_data_callback)(char *data, size_t size, size_t count, void *context);
/// CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION with its data pointer.
CURLcode vigil_curl_setopt_callback(CURL *h, CURLoption function, vigil_curl_data_callback callback, CURLoption data, void *context);
typedef int (*vigil_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
/// CURLOPT_XFERINFOFUNCTION with its data pointer, progress calls switched on: a non-zero return aborts the transfer.
CURLcode vigil_curl_setopt_progress(CURL *h, vigil_curl_progress_callback callback, void *context);

/* After a CONNECT_ONLY handshake: waits up to `ms` for the server's first record and reads it
   (an alert ends the connection; the info callback records it). 1 when the connection ended. */
int vigil_curl_await_alert(CURL *h, int ms);

/* After a CONNECT_ONLY connection over plain http (a raw tunnel, through any proxy): sends `out`
   (a ClientHello Vigil wrote), then reads until the server's answer is whole (an alert, bytes that
   are no TLS, or its first handshake message reassembled across records), it closes, `capacity`
   bytes came, or `ms` passed in all; `stop(context, 0, 0, 0, 0)` is asked every 100 ms and a
   non-zero answer ends the wait. Returns the bytes read (0: closed without a word), -1 when the
   connection failed, -2 when nothing came in time, -3 when stopped. */
long vigil_curl_first_record(
    CURL *h, const unsigned char *out, size_t out_length, unsigned char *in, size_t capacity, int ms, vigil_curl_progress_callback stop,
    void *context);

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
    /* What the last completed handshake agreed (read at SSL_CB_HANDSHAKE_DONE); version_code 0: none. */
    vigil_tls_session session;
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
    /* The server's handshake started (its TCP connection, or the proxy's tunnel, was made and the
       ClientHello written): a timeout after it is a server that stalled, not one out of reach. */
    int handshake_started;
} vigil_tls_capture;


/// Before another transfer on a kept connection: forgets what only a new handshake sets again
/// (the client certificate's request, issuers and presentation, permission to present it, the
/// alert, not-TLS, the proxy's failure, the server's SSL), keeping the chain, the staple and the
/// protocol that connection's handshake showed, and the identity.
void vigil_tls_capture_forget_exchange(vigil_tls_capture *capture);

/// Makes the next transfer on `h` record its TLS handshake into `capture`.
CURLcode vigil_curl_capture_tls(CURL *h, vigil_tls_capture *capture);
/// The identity the capture presents where it is allowed: the certificate and its chain (DER)
/// and the key (PEM), read into OpenSSL objects the capture owns. 0 when they cannot be read.
int vigil_tls_capture_set_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
                                   const char *key_pem, long key_len);
/// The same with the key on a token (PKCS#11 URI) loaded through OpenSSL's pkcs11 engine with `pin`.
int vigil_tls_capture_set_token_identity(vigil_tls_capture *capture, const unsigned char *const *der, const int *lengths, int count,
                                         const char *uri, const char *pin);
int vigil_tls_capture_count(const vigil_tls_capture *capture);
/// 1 when a handshake completed, what it agreed in `out`.
int vigil_tls_capture_session(const vigil_tls_capture *capture, vigil_tls_session *out);
/// DER of the i-th certificate sent; free with vigil_tls_free_der.
int vigil_tls_capture_der(const vigil_tls_capture *capture, int i, unsigned char **der);
void vigil_tls_free_der(unsigned char *der);
void vigil_tls_capture_release(vigil_tls_capture *capture);

#endif
