// A client key on a PKCS#11 token (RFC 7512 URI) through OpenSSL's pkcs11 engine. The ENGINE API
// is deprecated in OpenSSL 3 and still the one the pkcs11 engine offers (a provider is not
// packaged in Debian 12).
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CVigilPKI.h"

#include <openssl/engine.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <pthread.h>

/* The engine is loaded and initialised once and kept for the process: a dynamic engine freed
   while keys it made are alive (or freed after it) would run code that is no longer mapped. */
static ENGINE *vigil_pkcs11_engine(void) {
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
EVP_PKEY *vigil_token_key(const char *uri, const char *pin, int *status) {
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

int vigil_key_matches(X509 *x509, EVP_PKEY *key) {
    int match = X509_check_private_key(x509, key) == 1;
    ERR_clear_error();
    return match;
}
