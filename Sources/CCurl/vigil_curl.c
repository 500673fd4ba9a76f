// libcurl, loaded on first use. One table names every libcurl function Vigil calls; each slot has
// the type of libcurl's own prototype (typeof, as systemd's DLSYM_PROTOTYPE does), so a wrapper
// that passed the wrong arguments, or a prototype that changed in curl.h, does not compile. The
// table is resolved once, all or nothing: a libcurl without one of these functions is refused by
// vigil_curl_load_error before any call, never met halfway through one.
#define CURL_DISABLE_TYPECHECK 1 /* curl.h's type-checking macros would hide the functions' own types */
#include "CCurl.h"

#include "CLazyLibrary.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define VIGIL_CURL_FUNCTIONS(X) \
    X(curl_global_init)         \
    X(curl_easy_init)           \
    X(curl_easy_cleanup)        \
    X(curl_easy_reset)          \
    X(curl_easy_perform)        \
    X(curl_easy_strerror)       \
    X(curl_easy_setopt)         \
    X(curl_easy_getinfo)        \
    X(curl_easy_recv)           \
    X(curl_easy_send)           \
    X(curl_slist_append)        \
    X(curl_slist_free_all)

VIGIL_CURL_FUNCTIONS(VIGIL_LAZY_SLOT)

static const vigil_lazy_symbol vigil_curl_table[] = {VIGIL_CURL_FUNCTIONS(VIGIL_LAZY_ENTRY)};

static vigil_lazy_library vigil_curl_library = VIGIL_LAZY_LIBRARY("libcurl.so.4", vigil_curl_table, NULL, "libcurl4");

VIGIL_ELF_NOTE_DLOPEN(vigil_curl_dlopen_note,
                      "[{\"feature\":\"http\",\"description\":\"HTTPS requests to servers, providers, OCSP responders and CRLs\","
                      "\"priority\":\"required\",\"soname\":[\"libcurl.so.4\"]}]");

const char *vigil_curl_load_error(void) { return vigil_lazy_library_error(&vigil_curl_library); }

/* Every wrapper goes through this (see vigil_lazy_library_require). */
static void vigil_curl_require(void) { vigil_lazy_library_require(&vigil_curl_library); }

CURLcode vigil_curl_global_init(long flags) {
    vigil_curl_require();
    return sym_curl_global_init(flags);
}

CURL *vigil_curl_easy_init(void) {
    vigil_curl_require();
    return sym_curl_easy_init();
}

void vigil_curl_easy_cleanup(CURL *h) {
    vigil_curl_require();
    sym_curl_easy_cleanup(h);
}

void vigil_curl_easy_reset(CURL *h) {
    vigil_curl_require();
    sym_curl_easy_reset(h);
}

CURLcode vigil_curl_easy_perform(CURL *h) {
    vigil_curl_require();
    return sym_curl_easy_perform(h);
}

const char *vigil_curl_easy_strerror(CURLcode code) {
    vigil_curl_require();
    return sym_curl_easy_strerror(code);
}

struct curl_slist *vigil_curl_slist_append(struct curl_slist *list, const char *text) {
    vigil_curl_require();
    return sym_curl_slist_append(list, text);
}

void vigil_curl_slist_free_all(struct curl_slist *list) {
    vigil_curl_require();
    sym_curl_slist_free_all(list);
}

CURLcode vigil_curl_setopt_long(CURL *h, CURLoption o, long v) {
    vigil_curl_require();
    return sym_curl_easy_setopt(h, o, v);
}

CURLcode vigil_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    vigil_curl_require();
    return sym_curl_easy_setopt(h, o, v);
}

CURLcode vigil_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    vigil_curl_require();
    return sym_curl_easy_setopt(h, o, v);
}

CURLcode vigil_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) {
    vigil_curl_require();
    return sym_curl_easy_setopt(h, o, v);
}

CURLcode vigil_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    vigil_curl_require();
    return sym_curl_easy_getinfo(h, i, v);
}

CURLcode vigil_curl_getinfo_string(CURL *h, CURLINFO i, char **v) {
    vigil_curl_require();
    return sym_curl_easy_getinfo(h, i, v);
}

CURLcode vigil_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) {
    vigil_curl_require();
    return sym_curl_easy_getinfo(h, i, v);
}

CURLcode vigil_curl_setopt_callback(CURL *h, CURLoption function, vigil_curl_data_callback callback, CURLoption data, void *context) {
    vigil_curl_require();
    CURLcode rc = sym_curl_easy_setopt(h, function, callback);
    if (rc != CURLE_OK) return rc;
    return sym_curl_easy_setopt(h, data, context);
}

CURLcode vigil_curl_setopt_progress(CURL *h, vigil_curl_progress_callback callback, void *context) {
    vigil_curl_require();
    CURLcode rc = sym_curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    rc = sym_curl_easy_setopt(h, CURLOPT_XFERINFODATA, context);
    if (rc != CURLE_OK) return rc;
    return sym_curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
}

/* Defined with the TLS helpers (vigil_tls_capture.c). */
CURLcode vigil_capture_ssl_ctx(CURL *curl, void *ssl_ctx, void *capture);

CURLcode vigil_curl_capture_tls(CURL *h, vigil_tls_capture *capture) {
    vigil_curl_require();
    CURLcode rc = sym_curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, vigil_capture_ssl_ctx);
    if (rc != CURLE_OK) return rc;
    return sym_curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, (void *)capture);
}

int vigil_curl_await_alert(CURL *h, int ms) {
    vigil_curl_require();
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (sym_curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK || socket == CURL_SOCKET_BAD) return 0;
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
        CURLcode rc = sym_curl_easy_recv(h, buffer, sizeof buffer, &n);
        if (rc == CURLE_AGAIN) continue;
        return rc != CURLE_OK || n == 0;
    }
}

/* Whether `in[0..<got]` holds a whole answer: an alert record, something that is no TLS record, or
   the first handshake message (the ServerHello) whole, reassembled across handshake records (a
   server may fragment it, one byte a record). */
static int vigil_first_record_complete(const unsigned char *in, size_t got) {
    size_t offset = 0, handshake = 0;
    unsigned char head[4];
    while (offset + 5 <= got) {
        unsigned char type = in[offset];
        if (type < 20 || type > 24 || type == 21) return 1; /* no TLS, or an alert: enough */
        size_t length = ((size_t)in[offset + 3] << 8) | in[offset + 4];
        if (offset + 5 + length > got) return 0;
        if (type != 22) return 1; /* a record of another type before the ServerHello: the caller says garbage */
        for (size_t i = 0; i < length; i++) {
            if (handshake < 4) head[handshake] = in[offset + 5 + i];
            handshake++;
        }
        if (handshake >= 4) {
            size_t message = ((size_t)head[1] << 16) | ((size_t)head[2] << 8) | head[3];
            if (handshake >= 4 + message) return 1;
        }
        offset += 5 + length;
    }
    return 0;
}

long vigil_curl_first_record(
    CURL *h, const unsigned char *out, size_t out_length, unsigned char *in, size_t capacity, int ms, vigil_curl_progress_callback stop,
    void *context) {
    vigil_curl_require();
    curl_socket_t socket = CURL_SOCKET_BAD;
    if (sym_curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &socket) != CURLE_OK || socket == CURL_SOCKET_BAD) return -1;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t sent = 0, got = 0;
    for (;;) {
        if (stop && stop(context, 0, 0, 0, 0) != 0) return -3;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= ms) return got > 0 ? (long)got : -2;
        int sending = sent < out_length;
        struct pollfd wanted = {socket, sending ? POLLOUT : POLLIN, 0};
        long slice = ms - elapsed < 100 ? ms - elapsed : 100; /* cancellation is looked at between slices */
        int ready = poll(&wanted, 1, (int)slice);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return -1;
        if (ready == 0) continue;
        if (sending) {
            size_t n = 0;
            CURLcode rc = sym_curl_easy_send(h, out + sent, out_length - sent, &n);
            if (rc == CURLE_AGAIN) continue;
            if (rc != CURLE_OK) return -1;
            sent += n;
            continue;
        }
        size_t n = 0;
        CURLcode rc = sym_curl_easy_recv(h, in + got, capacity - got, &n);
        if (rc == CURLE_AGAIN) continue;
        if (rc != CURLE_OK || n == 0) return (long)got; /* closed (or reset): what came before */
        got += n;
        if (got == capacity || vigil_first_record_complete(in, got)) return (long)got;
    }
}
