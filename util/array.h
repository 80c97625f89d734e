/* util/array.h — a growable array of bytes holding elements of one type.
 *
 *   util_array a = {0};
 *   if (!UTIL_ARRAY_PUSH(&a, uint32_t, 7)) ...out of memory...
 *   uint32_t *v = a.data;  size_t n = UTIL_ARRAY_COUNT(&a, uint32_t);
 *   util_array_fini(&a);
 *
 * Growth doubles the capacity; new elements are zeroed.  Every function that
 * allocates reports failure (NULL / false) instead of aborting. */
#ifndef SPVJIT_UTIL_ARRAY_H
#define SPVJIT_UTIL_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct util_array {
    void *data;
    size_t size;     /* bytes in use */
    size_t capacity; /* bytes allocated */
} util_array;

/* Appends `bytes` zeroed bytes; returns where they start, or NULL (the array unchanged). */
void *util_array_grow(util_array *a, size_t bytes);
/* Makes room for at least `bytes` in total without changing size; false on failure. */
bool util_array_reserve(util_array *a, size_t bytes);
/* Hands the buffer over (NULL when empty) and leaves the array empty. */
void *util_array_steal(util_array *a);
void util_array_fini(util_array *a);

#define UTIL_ARRAY_COUNT(a, type) ((a)->size / sizeof(type))
#define UTIL_ARRAY_AT(a, type, i) (((type *)(a)->data)[i])
/* Appends one element; an expression that is false when out of memory. */
#define UTIL_ARRAY_PUSH(a, type, value)                                                                                \
    (util_array_grow((a), sizeof(type)) ? (((type *)(a)->data)[UTIL_ARRAY_COUNT((a), type) - 1] = (value), true)       \
                                        : false)

/* The same growth for arrays kept as a typed pointer and a count, where a
 * struct exposes them that way (the SPIR-V model, the parsers' results):
 *
 *   spv_block *blocks; uint32_t nblocks;
 *   spv_block *b = UTIL_APPEND(f->blocks, f->nblocks);   // NULL: out of memory
 *
 * appends one zeroed element and returns it (the count grows by one), or
 * returns NULL and leaves the array as it was.  It reallocates every time
 * (there is no capacity to trust: such arrays are also copied at their exact
 * size), so keep it for short lists; build long ones in a util_array. */
void *util_array_append(void **data, unsigned *count, size_t elem_size);
#define UTIL_APPEND(data, count) ((__typeof__(data))util_array_append((void **)&(data), &(count), sizeof *(data)))

#endif
