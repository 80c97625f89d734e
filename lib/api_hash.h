/* lib/api_hash.h — a fast 64-bit hash for cache keys and file checksums.
 *
 * Not cryptographic: keys are always compared in full after a hash match,
 * and the disk cache's checksum only has to catch truncation and bit rot. */
#ifndef SPVJIT_LIB_API_HASH_H
#define SPVJIT_LIB_API_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* MurmurHash3's finalizer: every input bit affects every output bit. */
static inline uint64_t api_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Hashes n bytes, continuing from `seed` (chain calls to hash several pieces). */
static inline uint64_t api_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ api_hash_mix(w)) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, n);
    h = (h ^ api_hash_mix(tail ^ ((uint64_t)n << 56))) * 0x9E3779B97F4A7C15ull;
    return api_hash_mix(h);
}

#endif
