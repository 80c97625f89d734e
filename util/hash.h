/* util/hash.h — non-cryptographic hashing (xxHash's XXH3, Debian libxxhash).
 *
 * For hash tables and cache keys that are always compared in full after a
 * hash match.  Where a hash must resist tampering (the disk cache's integrity
 * check), use a cryptographic one instead. */
#ifndef SPVJIT_UTIL_HASH_H
#define SPVJIT_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of n bytes; chain pieces by passing the previous result as seed. */
uint64_t util_hash_bytes(const void *data, size_t n, uint64_t seed);

/* A pointer or integer key, every input bit mixed into every output bit. */
static inline uint64_t util_hash_u64(uint64_t h)
{
    /* MurmurHash3's 64-bit finalizer */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

static inline uint64_t util_hash_ptr(const void *p)
{
    return util_hash_u64((uint64_t)(uintptr_t)p);
}

#endif
