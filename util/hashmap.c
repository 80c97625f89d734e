/* util/hashmap.c — linear probing with tombstones (see hashmap.h). */
#include "util/hashmap.h"

#include <stdlib.h>
#include <string.h>

static const char deleted_marker;
#define DELETED ((const void *)&deleted_marker)

void util_hashmap_init(util_hashmap *m, util_key_equal_fn equal)
{
    memset(m, 0, sizeof *m);
    m->equal = equal;
}

void util_hashmap_fini(util_hashmap *m)
{
    free(m->slots);
    util_hashmap_init(m, m->equal);
}

void util_hashmap_clear(util_hashmap *m)
{
    if (m->slots)
        memset(m->slots, 0, m->capacity * sizeof *m->slots);
    m->count = m->used = 0;
}

static bool same_key(const util_hashmap *m, const util_hashmap_entry *e, uint64_t hash, const void *key)
{
    return e->key == key || (m->equal && e->hash == hash && e->key != DELETED && m->equal(e->key, key));
}

/* The live slot holding key, or NULL. */
static util_hashmap_entry *find(const util_hashmap *m, uint64_t hash, const void *key)
{
    if (!m->capacity)
        return NULL;
    size_t mask = m->capacity - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        util_hashmap_entry *e = &m->slots[i];
        if (!e->key)
            return NULL;
        if (same_key(m, e, hash, key))
            return e;
    }
}

static bool rehash(util_hashmap *m, size_t capacity)
{
    util_hashmap_entry *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < m->capacity; i++) {
        util_hashmap_entry *e = &m->slots[i];
        if (!e->key || e->key == DELETED)
            continue;
        size_t j = e->hash & (capacity - 1);
        while (slots[j].key)
            j = (j + 1) & (capacity - 1);
        slots[j] = *e;
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    m->used = m->count;
    return true;
}

void *util_hashmap_get(const util_hashmap *m, uint64_t hash, const void *key)
{
    util_hashmap_entry *e = find(m, hash, key);
    return e ? e->value : NULL;
}

bool util_hashmap_put(util_hashmap *m, uint64_t hash, const void *key, void *value)
{
    util_hashmap_entry *e = find(m, hash, key);
    if (e) {
        e->value = value;
        return true;
    }
    /* at most 3/4 full, tombstones included */
    if (4 * (m->used + 1) > 3 * m->capacity) {
        size_t cap = m->capacity ? m->capacity : 16;
        while (4 * (m->count + 1) > 3 * cap / 2)
            cap *= 2;
        if (!rehash(m, cap))
            return false;
    }
    size_t mask = m->capacity - 1, i = hash & mask;
    while (m->slots[i].key && m->slots[i].key != DELETED)
        i = (i + 1) & mask;
    if (!m->slots[i].key)
        m->used++;
    m->slots[i] = (util_hashmap_entry){ .hash = hash, .key = key, .value = value };
    m->count++;
    return true;
}

void *util_hashmap_remove(util_hashmap *m, uint64_t hash, const void *key)
{
    util_hashmap_entry *e = find(m, hash, key);
    if (!e)
        return NULL;
    void *v = e->value;
    e->key = DELETED;
    e->value = NULL;
    m->count--;
    return v;
}

const util_hashmap_entry *util_hashmap_next(const util_hashmap *m, size_t *cursor)
{
    while (*cursor < m->capacity) {
        const util_hashmap_entry *e = &m->slots[(*cursor)++];
        if (e->key && e->key != DELETED)
            return e;
    }
    return NULL;
}
