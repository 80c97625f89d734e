/* util/hashmap.h — an open-addressing hash map from keys to pointers.
 *
 * Keys are opaque pointers: by default they are compared as pointers (a
 * pointer map: LLVM values, blocks); give an equality function to compare
 * what they point to (then the caller computes hashes over the contents,
 * e.g. with util_hash_bytes).  The map never owns keys or values.
 *
 *   util_hashmap m;
 *   util_hashmap_init(&m, NULL);
 *   util_ptrmap_put(&m, block, info);           // false: out of memory
 *   info = util_ptrmap_get(&m, block);          // NULL when absent
 *   util_hashmap_fini(&m);
 *
 * Values may not be NULL (NULL means "absent" on lookup). */
#ifndef SPVJIT_UTIL_HASHMAP_H
#define SPVJIT_UTIL_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

typedef bool (*util_key_equal_fn)(const void *a, const void *b);

typedef struct util_hashmap_entry {
    uint64_t hash;
    const void *key; /* NULL: empty; UTIL_HASHMAP_DELETED: a removed entry */
    void *value;
} util_hashmap_entry;

typedef struct util_hashmap {
    util_hashmap_entry *slots;
    size_t capacity; /* a power of two, or 0 */
    size_t count;    /* live entries */
    size_t used;     /* live + deleted */
    util_key_equal_fn equal;
} util_hashmap;

void util_hashmap_init(util_hashmap *m, util_key_equal_fn equal);
void util_hashmap_fini(util_hashmap *m);
void util_hashmap_clear(util_hashmap *m);

/* The value stored under key (hash: the key's hash), or NULL. */
void *util_hashmap_get(const util_hashmap *m, uint64_t hash, const void *key);
/* Inserts or replaces; false when out of memory (the map unchanged). */
bool util_hashmap_put(util_hashmap *m, uint64_t hash, const void *key, void *value);
/* Removes the key; returns its value or NULL when absent. */
void *util_hashmap_remove(util_hashmap *m, uint64_t hash, const void *key);

/* Iteration: for (size_t i = 0; (e = util_hashmap_next(m, &i));) ... */
const util_hashmap_entry *util_hashmap_next(const util_hashmap *m, size_t *cursor);

/* Pointer keys (maps made with equal == NULL). */
static inline void *util_ptrmap_get(const util_hashmap *m, const void *key)
{
    return util_hashmap_get(m, util_hash_ptr(key), key);
}
static inline bool util_ptrmap_put(util_hashmap *m, const void *key, void *value)
{
    return util_hashmap_put(m, util_hash_ptr(key), key, value);
}

#endif
