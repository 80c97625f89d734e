/* lib/kernel_cache.h — the in-memory cache of compiled kernels.
 *
 * A thread-safe map from a full key (two byte strings: the module's words and
 * the rest of what a compile depends on) to a reference-counted value, bounded
 * by the values' estimated byte sizes and evicting the least recently used.
 * Keys are compared in full, never by hash alone.
 *
 * kcache_get() builds on a miss through a callback run outside the lock;
 * other threads asking for the same key meanwhile wait for that one build
 * instead of compiling again, so a key is built once (a failed build lets the
 * next asker try itself).  Evicting only drops the cache's reference: kernels
 * still using a value keep it alive.
 */
#ifndef SPVJIT_LIB_KERNEL_CACHE_H
#define SPVJIT_LIB_KERNEL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kcache kcache;

typedef struct kcache_key {
    uint64_t hash; /* of both parts (kcache_key_hash) */
    const void *a;
    size_t alen;
    const void *b;
    size_t blen;
} kcache_key;

typedef void (*kcache_ref_fn)(void *value);
/* Builds the value for a missing key; returns it with one reference (which
 * the cache takes over) and its estimated size, or NULL on failure (the
 * builder keeps its own error report in `user`). */
typedef void *(*kcache_build_fn)(void *user, size_t *est_bytes);

/* max_bytes: the bound (0: nothing stays cached beyond the latest value).
 * retain/release add and drop one reference to a value. */
kcache *kcache_create(size_t max_bytes, kcache_ref_fn retain, kcache_ref_fn release);
void kcache_destroy(kcache *c);

/* Returns the value for key with a reference for the caller (release it),
 * building it with build(user) on a miss.  *hit says whether it was cached.
 * NULL: the build failed, or no memory for the entry (*hit false). */
void *kcache_get(kcache *c, const kcache_key *key, kcache_build_fn build, void *user, bool *hit);

/* Makes a key's hash from its two parts. */
uint64_t kcache_key_hash(const void *a, size_t alen, const void *b, size_t blen);

/* Current totals (for tests and stats). */
size_t kcache_count(kcache *c);
size_t kcache_bytes(kcache *c);

#endif
