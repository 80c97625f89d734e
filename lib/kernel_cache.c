/* lib/kernel_cache.c — hash map + LRU list of compiled kernels (see kernel_cache.h). */
#include "lib/kernel_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"

typedef struct kentry {
    struct kentry *next_in_bucket;
    struct kentry *lru_prev, *lru_next; /* only while ready */
    uint64_t hash;
    unsigned char *key; /* the two parts, concatenated */
    size_t alen, blen;
    void *value; /* NULL while being built */
    size_t bytes;
    bool ready;
    bool failed;      /* build failed: waiters retry */
    unsigned waiters; /* threads waiting on this entry */
} kentry;

struct kcache {
    pthread_mutex_t lock;
    pthread_cond_t built; /* some build finished (or failed) */
    kentry **buckets;
    size_t nbuckets, count;
    kentry *lru_head, *lru_tail; /* head: most recently used */
    size_t bytes, max_bytes;
    kcache_ref_fn retain, release;
};

uint64_t kcache_key_hash(const void *a, size_t alen, const void *b, size_t blen)
{
    return util_hash_bytes(b, blen, util_hash_bytes(a, alen, 0x5350564A4954ull));
}

kcache *kcache_create(size_t max_bytes, kcache_ref_fn retain, kcache_ref_fn release)
{
    kcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->nbuckets = 64;
    c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
    if (!c->buckets) {
        free(c);
        return NULL;
    }
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
    free(e->key);
    free(e);
}

void kcache_destroy(kcache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        kentry *e = c->buckets[i];
        while (e) {
            kentry *next = e->next_in_bucket;
            free_entry(c, e);
            e = next;
        }
    }
    free(c->buckets);
    pthread_cond_destroy(&c->built);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static bool key_equal(const kentry *e, const kcache_key *k)
{
    return e->hash == k->hash && e->alen == k->alen && e->blen == k->blen && memcmp(e->key, k->a, k->alen) == 0 &&
           memcmp(e->key + k->alen, k->b, k->blen) == 0;
}

static kentry *find(kcache *c, const kcache_key *k)
{
    for (kentry *e = c->buckets[k->hash % c->nbuckets]; e; e = e->next_in_bucket)
        if (key_equal(e, k))
            return e;
    return NULL;
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

static void unlink_bucket(kcache *c, kentry *e)
{
    kentry **pp = &c->buckets[e->hash % c->nbuckets];
    while (*pp && *pp != e)
        pp = &(*pp)->next_in_bucket;
    if (*pp)
        *pp = e->next_in_bucket;
    c->count--;
}

/* Doubles the bucket array when the table gets crowded (best effort). */
static void maybe_grow(kcache *c)
{
    if (c->count < c->nbuckets)
        return;
    size_t n = c->nbuckets * 2;
    kentry **b = calloc(n, sizeof *b);
    if (!b)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        kentry *e = c->buckets[i];
        while (e) {
            kentry *next = e->next_in_bucket;
            e->next_in_bucket = b[e->hash % n];
            b[e->hash % n] = e;
            e = next;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = n;
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
            unlink_bucket(c, e);
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
    unsigned char *key = e ? malloc(k->alen + k->blen + 1) : NULL;
    if (!key) {
        free(e);
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    memcpy(key, k->a, k->alen);
    memcpy(key + k->alen, k->b, k->blen);
    e->key = key;
    e->alen = k->alen;
    e->blen = k->blen;
    e->hash = k->hash;
    maybe_grow(c);
    e->next_in_bucket = c->buckets[e->hash % c->nbuckets];
    c->buckets[e->hash % c->nbuckets] = e;
    c->count++;
    pthread_mutex_unlock(&c->lock);

    size_t bytes = 0;
    void *v = build(user, &bytes);

    pthread_mutex_lock(&c->lock);
    if (!v) {
        unlink_bucket(c, e);
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
    size_t n = c->count;
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
