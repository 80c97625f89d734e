/* util/arena.c — see arena.h. */
#include "util/arena.h"

#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct util_arena_chunk {
    util_arena_chunk *next;
    size_t size; /* bytes after the header */
    alignas(max_align_t) char data[];
};

enum { FIRST_CHUNK = 16 << 10, MAX_CHUNK = 1 << 20, ALIGN = alignof(max_align_t) };

void util_arena_init(util_arena *a, size_t limit)
{
    memset(a, 0, sizeof *a);
    a->limit = limit;
}

void util_arena_fini(util_arena *a)
{
    for (util_arena_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    util_arena_init(a, a->limit);
}

/* A new chunk with room for at least `size` bytes.  A chunk bigger than the
 * usual ones goes behind the newest, so the newest keeps its free space. */
static void *new_chunk(util_arena *a, size_t size)
{
    size_t usual = a->chunks ? a->chunks->size * 2 : FIRST_CHUNK;
    if (usual > MAX_CHUNK)
        usual = MAX_CHUNK;
    bool own = size > usual / 4;
    size_t want = own ? size : usual;
    if (want > SIZE_MAX - sizeof(util_arena_chunk))
        return NULL;
    if (a->limit) {
        /* near the limit a usual chunk shrinks to what is left */
        size_t left =
            a->limit > a->reserved + sizeof(util_arena_chunk) ? a->limit - a->reserved - sizeof(util_arena_chunk) : 0;
        if (size > left)
            return NULL;
        if (want > left)
            want = left;
    }
    util_arena_chunk *c = malloc(sizeof *c + want);
    if (!c)
        return NULL;
    c->size = want;
    a->reserved += sizeof *c + want;
    if (own && a->chunks) {
        c->next = a->chunks->next;
        a->chunks->next = c;
        return c->data;
    }
    c->next = a->chunks;
    a->chunks = c;
    a->next = c->data + size;
    a->end = c->data + want;
    return c->data;
}

void *util_arena_alloc(util_arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ALIGN)
        return NULL;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (a->next && (size_t)(a->end - a->next) >= size) {
        void *p = a->next;
        a->next += size;
        return p;
    }
    return new_chunk(a, size);
}

void *util_arena_zalloc(util_arena *a, size_t size)
{
    void *p = util_arena_alloc(a, size);
    if (p)
        memset(p, 0, size);
    return p;
}

void *util_arena_array(util_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return util_arena_zalloc(a, n * size);
}

void *util_arena_dup(util_arena *a, const void *p, size_t size)
{
    void *q = util_arena_alloc(a, size);
    if (q && size)
        memcpy(q, p, size);
    return q;
}
