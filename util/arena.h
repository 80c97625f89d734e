/* util/arena.h — a bump (linear) allocator: many allocations, one release.
 *
 *   util_arena a;
 *   util_arena_init(&a, 0);                        // 0: no limit
 *   uint32_t *v = util_arena_array(&a, n, sizeof *v);  // zeroed; NULL: out of memory
 *   util_arena_fini(&a);                           // releases every allocation at once
 *
 * For memory whose lifetime is one task (a compile): nothing is freed one by
 * one, so the task's failure paths need no cleanup of their own.  Allocations
 * are aligned for any object type (max_align_t).  Memory comes from malloc in
 * chunks that double from 16 KiB up to 1 MiB; a larger allocation gets a chunk
 * of its own.  Every allocating function reports failure (NULL) instead of
 * aborting — also when the byte limit given at init would be exceeded, which
 * bounds a task's memory (and lets tests reach the out-of-memory paths). */
#ifndef SPVJIT_UTIL_ARENA_H
#define SPVJIT_UTIL_ARENA_H

#include <stddef.h>

typedef struct util_arena_chunk util_arena_chunk;

typedef struct util_arena {
    util_arena_chunk *chunks; /* newest first */
    char *next, *end;         /* free space of the newest chunk */
    size_t reserved;          /* bytes taken from malloc, in total */
    size_t limit;             /* 0: none; else `reserved` never exceeds it */
} util_arena;

void util_arena_init(util_arena *a, size_t limit);
/* Releases every allocation; the arena is then empty and can be used again. */
void util_arena_fini(util_arena *a);

/* `size` uninitialized bytes, or NULL. */
void *util_arena_alloc(util_arena *a, size_t size);
/* `size` zeroed bytes, or NULL. */
void *util_arena_zalloc(util_arena *a, size_t size);
/* n zeroed elements of `size` bytes (n * size checked for overflow), or NULL. */
void *util_arena_array(util_arena *a, size_t n, size_t size);
/* A copy of `size` bytes at p, or NULL. */
void *util_arena_dup(util_arena *a, const void *p, size_t size);

#endif
