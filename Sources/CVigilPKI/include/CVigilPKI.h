// Vigil's certificate checks written in C over system OpenSSL: revocation (OCSP, CRLs,
// must-staple), certificate policies, and client identities (PKCS#12, PEM, a PKCS#11 token).
// Only VigilCertificates imports this module; Swift decides what the answers mean.
//
// This header declares OpenSSL's types by their struct tags only, so that a Swift file importing
// both this module and COpenSSL sees each OpenSSL name once (from COpenSSL). Each .c file
// includes OpenSSL's own headers, which give the same tags their typedefs.
#ifndef VIGIL_CVIGILPKI_H
#define VIGIL_CVIGILPKI_H

struct x509_st;
struct X509_crl_st;
struct x509_store_ctx_st;
struct X509_VERIFY_PARAM_st;
struct evp_pkey_st;
struct stack_st_X509;
struct stack_st_X509_CRL;

/* ---- Certificate policies, RFC 5280 section 6.1 (policies.c) ---- */

/// The valid policy set of a verified path (RFC 5280 section 6.1.5), as dotted OIDs written one
/// after another into `out` (each NUL-terminated, at most `size` bytes in all); returns how many,
/// 0 when the tree holds none, -1 when no policy tree was built.
int vigil_valid_policies(struct x509_store_ctx_st *ctx, char *out, int size);
/// Whether the OpenSSL at run time processes certificate policies without CVE-2023-0464 (an
/// attacker's chain with many policy mappings takes exponential time): 3.0.9 and later.
int vigil_policy_processing_is_safe(void);
/// The user-initial-policy-set of RFC 5280 section 6.1 (dotted OIDs); 1 on success. OpenSSL's
/// own default is an empty set, which is not RFC 5280's (any-policy).
int vigil_set_initial_policies(struct X509_VERIFY_PARAM_st *param, const char *const *oids, int count);

/* ---- Revocation: RFC 6960 OCSP (ocsp.c), RFC 5280 CRLs (crl.c), RFC 7633 (must_staple.c) ---- */

/// What one OCSP response says about one certificate. Times are seconds since 1970, -1 absent.
typedef struct vigil_revocation_answer {
    int response_status;     /* OCSP_RESPONSE_STATUS_* (OCSP only) */
    int cert_status;         /* V_OCSP_CERTSTATUS_GOOD / _REVOKED / _UNKNOWN; for a CRL, GOOD or REVOKED */
    int reason;              /* CRL reason code, -1 absent */
    long long revoked_at, this_update, next_update, produced_at;
    char signer[512];        /* the responder's or CRL issuer's subject, RFC 2253 */
} vigil_revocation_answer;

enum {
    VIGIL_REVOCATION_USABLE = 0,
    VIGIL_REVOCATION_MALFORMED = 1,      /* not an OCSP response / CRL */
    VIGIL_REVOCATION_NOT_SUCCESSFUL = 2, /* the responder answered an error status (tryLater...) */
    VIGIL_REVOCATION_BAD_SIGNATURE = 3,  /* the signature, or the signer's authority, does not verify */
    VIGIL_REVOCATION_NOT_ABOUT = 4,      /* no answer for this certificate / another issuer */
    VIGIL_REVOCATION_NOT_CURRENT = 5,    /* thisUpdate in the future, or past nextUpdate */
    VIGIL_REVOCATION_UNSUPPORTED = 6     /* a CRL scope Vigil does not read (indirect, partial reasons, delta...) */
};

/// thisUpdate no later than now (5 minutes of clock skew), nextUpdate no earlier than now;
/// without nextUpdate (-1), thisUpdate at most a week old. 1 when current.
int vigil_revocation_is_current(long long this_update, long long next_update, long long now);
/// An OCSP request (SHA-1 CertID, as RFC 5019 responders expect) for `cert` issued by `issuer`;
/// returns its DER length (free *der with OPENSSL_free), or -1.
int vigil_ocsp_request(struct x509_st *cert, struct x509_st *issuer, unsigned char **der);
/// Reads a DER OCSP response about `cert` (issued by `issuer`) at `now`: a VIGIL_REVOCATION_*
/// code, and what it says in *out. The response must be signed by the issuer itself or by a
/// responder the issuer certified for OCSP signing (RFC 6960 4.2.2.2); the issuer is the only
/// anchor, so a responder of another CA never counts.
int vigil_ocsp_check(const unsigned char *der, long len, struct x509_st *cert, struct x509_st *issuer, long long now,
                     vigil_revocation_answer *out);

/// What the CRLs say about one certificate of a path (RFC 5280 section 6.3, as OpenSSL's
/// extended CRL support implements it). Times are seconds since 1970, -1 absent.
typedef struct vigil_crl_result {
    int checked;             /* OpenSSL looked for a CRL for this certificate */
    int error;               /* 0: a CRL covers it and does not list it; else X509_V_ERR_* */
    int reason;              /* a revoked certificate's CRLReason, -1 absent */
    long long revoked_at, this_update, next_update;
    char signer[512];        /* the issuer of the CRL that decided, RFC 2253 */
} vigil_crl_result;

/// Checks every certificate of a path against `crls` with OpenSSL's whole-path CRL processing
/// (X509_V_FLAG_CRL_CHECK_ALL, EXTENDED_CRL_SUPPORT: indirect CRLs, issuing distribution points,
/// reasons; USE_DELTAS), at `now`. `anchor` is the path's trust anchor (the only one);
/// `untrusted` holds the path's intermediates first (so that OpenSSL rebuilds that very path),
/// then any other certificate an indirect CRL issuer may be found among. `results` has `count`
/// entries, one per depth (0: the leaf). Writes the path OpenSSL built into `built` (leaf first,
/// at most `count`, each a reference the caller frees; returns how many), or -1 when the run
/// could not start.
int vigil_crl_evaluate(struct x509_st *leaf, struct x509_st *anchor, struct stack_st_X509 *untrusted,
                       struct stack_st_X509_CRL *crls, long long now, int auth_level, vigil_crl_result *results,
                       struct x509_st **built, int count);
/// An X509_CRL from DER (exactly one, no trailing bytes); NULL when it is not one.
struct X509_crl_st *vigil_crl_from_der(const unsigned char *der, long len);
/// 1 when the CRL carries a CRL number (RFC 5280 5.2.3).
int vigil_crl_has_number(struct X509_crl_st *crl);
/// 1 when the certificate's TLS Feature extension (RFC 7633) requires status_request (5): OCSP
/// must-staple. A TLS Feature extension Vigil cannot read counts as must-staple (fails closed).
int vigil_must_staple(struct x509_st *cert);

/* ---- Client identities for mutual TLS (identity.c, token.c) ---- */

/// A client identity read from a file: the chain as DER, leaf first, and the key as unencrypted
/// PKCS#8 PEM, in memory the caller wipes (vigil_identity_release).
#define VIGIL_IDENTITY_MAX_CHAIN 16
typedef struct {
    unsigned char *der[VIGIL_IDENTITY_MAX_CHAIN];
    int der_len[VIGIL_IDENTITY_MAX_CHAIN];
    int count;
    char *key_pem;
    long key_len;
} vigil_identity;
enum {
    VIGIL_IDENTITY_OK = 0, VIGIL_IDENTITY_UNREADABLE = 1, VIGIL_IDENTITY_BAD_PASSPHRASE = 2, VIGIL_IDENTITY_NO_KEY = 3,
    VIGIL_IDENTITY_KEY_MISMATCH = 4, VIGIL_IDENTITY_NO_CERTIFICATE = 5, VIGIL_IDENTITY_PASSPHRASE_NEEDED = 6,
};
/// Reads PKCS#12 (DER) or PEM (certificates, and the key unless `keydata` is given) from `data`;
/// `keydata` is a separate key (PEM or DER). The leaf is the certificate the key belongs to.
/// Returns a VIGIL_IDENTITY_* code; on VIGIL_IDENTITY_OK, *out holds the identity.
int vigil_identity_load(const unsigned char *data, long len, const unsigned char *keydata, long keylen, const char *pass,
                        vigil_identity *out);
/// Frees and wipes what vigil_identity_load wrote.
void vigil_identity_release(vigil_identity *out);
/// A private key on a token (PKCS#11, RFC 7512 URI) through OpenSSL's pkcs11 engine (Debian's
/// libengine-pkcs11-openssl), unlocked with `pin`. *status: 0 loaded, 1 no engine, 2 the token
/// or key not found or the PIN refused. The caller frees the key (vigil_EVP_PKEY_free).
struct evp_pkey_st *vigil_token_key(const char *uri, const char *pin, int *status);
/// 1 when `key` belongs to the certificate `x509`.
int vigil_key_matches(struct x509_st *x509, struct evp_pkey_st *key);

#endif
