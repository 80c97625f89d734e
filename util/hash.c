/* util/hash.c — see hash.h. */
#include "util/hash.h"

#include <xxhash.h>

uint64_t util_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    return XXH3_64bits_withSeed(data, n, seed);
}
