/* lib/kernel_cache.c — a hash map (util/hashmap.h) + LRU list of compiled kernels (see kernel_cache.h). */
#include "lib/kernel_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/hashmap.h"

typedef struct kentry {
    kcache_key key;                     /* the map's key: a and b point into key_bytes */
    struct kentry *lru_prev, *lru_next; /* only while ready */
    unsigned char *key_bytes;           /* the two parts, concatenated */
    void *value;                        /* NULL while being built */
    size_t bytes;
    bool ready;
    bool failed;      /* build failed: waiters retry */
    unsigned waiters; /* threads waiting on this entry */
} kentry;

struct kcache {
    pthread_mutex_t lock;
    pthread_cond_t built;        /* some build finished (or failed) */
    util_hashmap map;            /* kcache_key * -> kentry */
    kentry *lru_head, *lru_tail; /* head: most recently used */
    size_t bytes, max_bytes;
    kcache_ref_fn retain, release;
};

uint64_t kcache_key_hash(const void *a, size_t alen, const void *b, size_t blen)
{
    return util_hash_bytes(b, blen, util_hash_bytes(a, alen, 0x5350564A4954ull));
}

static bool key_equal(const void *x, const void *y)
{
    const kcache_key *a = x, *b = y;
    return a->alen == b->alen && a->blen == b->blen && memcmp(a->a, b->a, a->alen) == 0 &&
           memcmp(a->b, b->b, a->blen) == 0;
}

kcache *kcache_create(size_t max_bytes, kcache_ref_fn retain, kcache_ref_fn release)
{
    kcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    util_hashmap_init(&c->map, key_equal);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->built, NULL);
    c->max_bytes = max_bytes;
    c->retain = retain;
    c->release = release;
    return c;
}

static void free_entry(kcache *c, kentry *e)
{
    if (e->value)
        c->release(e->value);
    free(e->key_bytes);
    free(e);
}

void kcache_destroy(kcache *c)
{
    if (!c)
        return;
    const util_hashmap_entry *me;
    for (size_t i = 0; (me = util_hashmap_next(&c->map, &i));)
        free_entry(c, me->value);
    util_hashmap_fini(&c->map);
    pthread_cond_destroy(&c->built);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static kentry *find(kcache *c, const kcache_key *k)
{
    return util_hashmap_get(&c->map, k->hash, k);
}

static void lru_unlink(kcache *c, kentry *e)
{
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else
        c->lru_head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else
        c->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(kcache *c, kentry *e)
{
    e->lru_prev = NULL;
    e->lru_next = c->lru_head;
    if (c->lru_head)
        c->lru_head->lru_prev = e;
    c->lru_head = e;
    if (!c->lru_tail)
        c->lru_tail = e;
}

static void unlink_map(kcache *c, kentry *e)
{
    util_hashmap_remove(&c->map, e->key.hash, &e->key);
}

/* Drops least recently used ready entries until within the bound; `keep`
 * (the value just added) stays even when it alone exceeds the bound. */
static void evict(kcache *c, kentry *keep)
{
    kentry *e = c->lru_tail;
    while (c->bytes > c->max_bytes && e) {
        kentry *prev = e->lru_prev;
        if (e != keep && e->waiters == 0) { /* a waiter still reads e after waking */
            lru_unlink(c, e);
            unlink_map(c, e);
            c->bytes -= e->bytes;
            free_entry(c, e);
        }
        e = prev;
    }
}

void *kcache_get(kcache *c, const kcache_key *k, kcache_build_fn build, void *user, bool *hit)
{
    *hit = false;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        kentry *e = find(c, k);
        if (!e)
            break;
        if (e->ready) {
            lru_unlink(c, e);
            lru_push_front(c, e);
            c->retain(e->value);
            *hit = true;
            void *v = e->value;
            pthread_mutex_unlock(&c->lock);
            return v;
        }
        /* Someone is building it: wait, then look again (it may have failed). */
        e->waiters++;
        while (!e->ready && !e->failed)
            pthread_cond_wait(&c->built, &c->lock);
        e->waiters--;
        if (e->failed && e->waiters == 0)
            free_entry(c, e); /* already out of the table: the last waiter frees it */
    }

    /* Miss: claim the key with a placeholder so concurrent askers wait. */
    kentry *e = calloc(1, sizeof *e);
    unsigned char *kb = e ? malloc(k->alen + k->blen + 1) : NULL;
    if (kb) {
        memcpy(kb, k->a, k->alen);
        memcpy(kb + k->alen, k->b, k->blen);
        e->key_bytes = kb;
        e->key = (kcache_key){ .hash = k->hash, .a = kb, .alen = k->alen, .b = kb + k->alen, .blen = k->blen };
    }
    if (!kb || !util_hashmap_put(&c->map, k->hash, &e->key, e)) {
        free(kb);
        free(e);
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    pthread_mutex_unlock(&c->lock);

    size_t bytes = 0;
    void *v = build(user, &bytes);

    pthread_mutex_lock(&c->lock);
    if (!v) {
        unlink_map(c, e);
        e->failed = true;
        if (e->waiters == 0)
            free_entry(c, e);
        pthread_cond_broadcast(&c->built);
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    e->value = v;
    e->bytes = bytes;
    e->ready = true;
    c->retain(v); /* one for the cache, one for the caller */
    lru_push_front(c, e);
    c->bytes += bytes;
    evict(c, e);
    pthread_cond_broadcast(&c->built);
    pthread_mutex_unlock(&c->lock);
    return v;
}

size_t kcache_count(kcache *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->map.count;
    pthread_mutex_unlock(&c->lock);
    return n;
}

size_t kcache_bytes(kcache *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->bytes;
    pthread_mutex_unlock(&c->lock);
    return n;
}
