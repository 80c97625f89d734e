/* util/digest.c — BLAKE2b-256 through libsodium (see digest.h). */
#include "util/digest.h"

#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* libsodium picks its fastest implementation for the CPU at init. */
static void init_sodium(void)
{
    if (sodium_init() < 0) {
        /* only its random-number generator failed, which hashing does not use */
    }
}

void util_digest_init(util_digest *d)
{
    pthread_once(&once, init_sodium);
    crypto_generichash_init(&d->s, NULL, 0, UTIL_DIGEST_BYTES);
}

void util_digest_update(util_digest *d, const void *data, size_t n)
{
    crypto_generichash_update(&d->s, data, n);
}

void util_digest_final(util_digest *d, unsigned char out[UTIL_DIGEST_BYTES])
{
    crypto_generichash_final(&d->s, out, UTIL_DIGEST_BYTES);
}

void util_digest_bytes(const void *data, size_t n, unsigned char out[UTIL_DIGEST_BYTES])
{
    util_digest d;
    util_digest_init(&d);
    util_digest_update(&d, data, n);
    util_digest_final(&d, out);
}
