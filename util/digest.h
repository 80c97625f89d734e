/* util/digest.h — cryptographic digests: BLAKE2b-256 (libsodium's crypto_generichash).
 *
 * For what must identify content without comparing it (a module's words in
 * the kernel caches' keys) and what must resist tampering (the disk cache's
 * entries).  Hash tables use util/hash.h. */
#ifndef SPVJIT_UTIL_DIGEST_H
#define SPVJIT_UTIL_DIGEST_H

#include <stddef.h>

#include <sodium.h>

#define UTIL_DIGEST_BYTES 32

typedef struct util_digest {
    crypto_generichash_state s;
} util_digest;

void util_digest_init(util_digest *d);
void util_digest_update(util_digest *d, const void *data, size_t n);
void util_digest_final(util_digest *d, unsigned char out[UTIL_DIGEST_BYTES]);
/* The digest of n bytes in one call. */
void util_digest_bytes(const void *data, size_t n, unsigned char out[UTIL_DIGEST_BYTES]);

#endif
