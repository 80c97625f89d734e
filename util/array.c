/* util/array.c — see array.h. */
#include "util/array.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool util_array_reserve(util_array *a, size_t bytes)
{
    if (bytes <= a->capacity)
        return true;
    size_t cap = a->capacity ? a->capacity : 64;
    while (cap < bytes) {
        if (cap > (size_t)-1 / 2)
            return false;
        cap *= 2;
    }
    void *p = realloc(a->data, cap);
    if (!p)
        return false;
    a->data = p;
    a->capacity = cap;
    return true;
}

void *util_array_grow(util_array *a, size_t bytes)
{
    if (bytes > (size_t)-1 - a->size || !util_array_reserve(a, a->size + bytes))
        return NULL;
    void *p = (char *)a->data + a->size;
    memset(p, 0, bytes);
    a->size += bytes;
    return p;
}

void *util_array_steal(util_array *a)
{
    void *p = a->size ? a->data : NULL;
    if (!p)
        free(a->data);
    a->data = NULL;
    a->size = a->capacity = 0;
    return p;
}

void util_array_fini(util_array *a)
{
    free(a->data);
    a->data = NULL;
    a->size = a->capacity = 0;
}

void *util_array_append(void **data, unsigned *count, size_t elem_size)
{
    size_t n = *count;
    if (n == UINT_MAX || (elem_size && n + 1 > (size_t)-1 / elem_size))
        return NULL;
    void *p = realloc(*data, (n + 1) * elem_size);
    if (!p)
        return NULL;
    *data = p;
    void *e = (char *)p + n * elem_size;
    memset(e, 0, elem_size);
    *count = (unsigned)n + 1;
    return e;
}
