// Certificate policies (RFC 5280 section 6.1): what a caller asks for, and what a path allows.
#include "CVigilPKI.h"

#include <openssl/crypto.h>
#include <openssl/objects.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

int vigil_valid_policies(X509_STORE_CTX *ctx, char *out, int size) {
    X509_POLICY_TREE *tree = X509_STORE_CTX_get0_policy_tree(ctx);
    if (tree == NULL) return -1;
    STACK_OF(X509_POLICY_NODE) *nodes = X509_policy_tree_get0_user_policies(tree);
    int count = 0, used = 0;
    for (int i = 0; i < sk_X509_POLICY_NODE_num(nodes); i++) {
        const ASN1_OBJECT *policy = X509_policy_node_get0_policy(sk_X509_POLICY_NODE_value(nodes, i));
        if (policy == NULL || size - used < 100) continue;
        int written = OBJ_obj2txt(out + used, size - used, policy, 1);
        if (written <= 0 || written >= size - used) continue;
        used += written + 1;
        count++;
    }
    return count;
}

int vigil_policy_processing_is_safe(void) { return OpenSSL_version_num() >= 0x30000090L; }

int vigil_set_initial_policies(X509_VERIFY_PARAM *param, const char *const *oids, int count) {
    STACK_OF(ASN1_OBJECT) *policies = sk_ASN1_OBJECT_new_null();
    if (policies == NULL) return 0;
    for (int i = 0; i < count; i++) {
        ASN1_OBJECT *oid = OBJ_txt2obj(oids[i], 1);
        if (oid == NULL || !sk_ASN1_OBJECT_push(policies, oid)) {
            ASN1_OBJECT_free(oid);
            sk_ASN1_OBJECT_pop_free(policies, ASN1_OBJECT_free);
            return 0;
        }
    }
    int ok = X509_VERIFY_PARAM_set1_policies(param, policies);
    sk_ASN1_OBJECT_pop_free(policies, ASN1_OBJECT_free);
    return ok;
}
