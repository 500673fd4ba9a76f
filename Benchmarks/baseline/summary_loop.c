/* The anchor for Vigil's certificate summary benchmark: a C loop doing d2i_X509 +
 * X509_print_ex + X509_digest on the same certificates (the Mozilla bundle plus testcerts/).
 * Usage: summary_loop COUNT FILE.pem...   prints certificates per second and peak RSS. */
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s COUNT FILE.pem...\n", argv[0]); return 2; }
    long count = atol(argv[1]);
    unsigned char **ders = NULL; int *lengths = NULL; int n = 0, capacity = 0;
    for (int f = 2; f < argc; f++) {
        FILE *fp = fopen(argv[f], "r");
        if (!fp) continue;
        X509 *x;
        while ((x = PEM_read_X509(fp, NULL, NULL, NULL)) != NULL) {
            if (n == capacity) {
                capacity = capacity ? capacity * 2 : 256;
                ders = realloc(ders, capacity * sizeof *ders);
                lengths = realloc(lengths, capacity * sizeof *lengths);
            }
            ders[n] = NULL;
            lengths[n] = i2d_X509(x, &ders[n]);
            n++;
            X509_free(x);
        }
        ERR_clear_error();
        fclose(fp);
    }
    if (n == 0) { fprintf(stderr, "no certificates\n"); return 1; }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    size_t printed = 0;
    for (long i = 0; i < count; i++) {
        const unsigned char *p = ders[i % n];
        X509 *x = d2i_X509(NULL, &p, lengths[i % n]);
        BIO *bio = BIO_new(BIO_s_mem());
        X509_print_ex(bio, x, XN_FLAG_RFC2253, 0);
        char *data; printed += BIO_get_mem_data(bio, &data);
        unsigned char md[EVP_MAX_MD_SIZE]; unsigned int mdlen;
        X509_digest(x, EVP_sha256(), md, &mdlen);
        BIO_free(bio);
        X509_free(x);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    struct rusage usage; getrusage(RUSAGE_SELF, &usage);
    printf("corpus=%d certificates count=%ld seconds=%.3f per_second=%.0f peak_rss_mb=%.1f (printed %zu bytes)\n",
           n, count, seconds, count / seconds, usage.ru_maxrss / 1024.0, printed);
    return 0;
}
