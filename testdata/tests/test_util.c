/* testdata/tests/test_util.c — util/: the arena, the growable array and the hash map
 * against plain reference computations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/arena.h"
#include "util/array.h"
#include "util/hash.h"
#include "util/file.h"
#include "util/hashmap.h"

TEST_TIER_FREE(util_array_push_and_steal)
{
    util_array a = { 0 };
    for (uint32_t i = 0; i < 10000; i++)
        REQUIRE(UTIL_ARRAY_PUSH(&a, uint32_t, i * 3u), "push %u failed", i);
    REQUIRE(UTIL_ARRAY_COUNT(&a, uint32_t) == 10000, "count %zu", UTIL_ARRAY_COUNT(&a, uint32_t));
    for (uint32_t i = 0; i < 10000; i++)
        CHECK(UTIL_ARRAY_AT(&a, uint32_t, i) == i * 3u, "element %u is %u", i, UTIL_ARRAY_AT(&a, uint32_t, i));
    unsigned char *z = util_array_grow(&a, 13);
    REQUIRE(z, "grow failed");
    for (int i = 0; i < 13; i++)
        CHECK(z[i] == 0, "grown byte %d not zero", i);
    size_t n = a.size;
    uint32_t *p = util_array_steal(&a);
    CHECK(p && n == 40013 && a.size == 0 && a.data == NULL, "steal: %zu bytes left", a.size);
    free(p);
    util_array_fini(&a);
}

static bool str_equal(const void *a, const void *b)
{
    return strcmp(a, b) == 0;
}

TEST_TIER_FREE(util_hashmap_against_reference)
{
    /* pointer keys: insert, replace, remove, and compare with a plain array */
    enum { N = 5000 };
    static int objects[N];
    static void *ref[N];
    util_hashmap m;
    util_hashmap_init(&m, NULL);
    uint64_t rng = 42;
    for (int round = 0; round < 20000; round++) {
        int k = (int)(test_rand_u64(&rng) % N);
        switch (test_rand_u64(&rng) % 3) {
        case 0:
        case 1:
            ref[k] = &objects[(k * 7) % N];
            REQUIRE(util_ptrmap_put(&m, &objects[k], ref[k]), "put failed");
            break;
        default: {
            void *v = util_hashmap_remove(&m, util_hash_ptr(&objects[k]), &objects[k]);
            CHECK(v == ref[k], "remove of %d gave %p, expected %p", k, v, ref[k]);
            ref[k] = NULL;
        }
        }
    }
    size_t live = 0;
    for (int k = 0; k < N; k++) {
        live += ref[k] != NULL;
        CHECK(util_ptrmap_get(&m, &objects[k]) == ref[k], "key %d differs from the reference", k);
    }
    CHECK(m.count == live, "count %zu, reference %zu", m.count, live);
    size_t seen = 0, cursor = 0;
    while (util_hashmap_next(&m, &cursor))
        seen++;
    CHECK(seen == live, "iteration saw %zu of %zu", seen, live);
    util_hashmap_fini(&m);

    /* content keys: two different pointers to equal strings are one key */
    util_hashmap s;
    util_hashmap_init(&s, str_equal);
    char a[] = "local_size", b[] = "local_size";
    int one = 1, two = 2;
    REQUIRE(util_hashmap_put(&s, util_hash_bytes(a, strlen(a), 0), a, &one), "put failed");
    REQUIRE(util_hashmap_put(&s, util_hash_bytes(b, strlen(b), 0), b, &two), "put failed");
    CHECK(s.count == 1 && util_hashmap_get(&s, util_hash_bytes(a, strlen(a), 0), a) == &two,
          "equal strings are not one key (%zu entries)", s.count);
    util_hashmap_fini(&s);
}

TEST_TIER_FREE(util_hash_is_stable_and_chained)
{
    const char text[] = "spvjit hashes modules once";
    uint64_t whole = util_hash_bytes(text, sizeof text - 1, 0);
    CHECK(whole == util_hash_bytes(text, sizeof text - 1, 0), "not deterministic");
    CHECK(whole != util_hash_bytes(text, sizeof text - 2, 0), "a shorter input hashes the same");
    CHECK(util_hash_bytes(text, 6, 1) != util_hash_bytes(text, 6, 2), "the seed is ignored");
    CHECK(util_hash_u64(1) != util_hash_u64(2) && util_hash_u64(0) == 0, "u64 mix");
}

/* Typed pointer + count arrays: each append is zeroed, earlier elements keep
 * their values (a plain C array is the reference), and an array copied at its
 * exact size (as the Amber parser copies pipelines) still grows correctly. */
TEST_TIER_FREE(util_array_append_typed)
{
    uint64_t *a = NULL;
    unsigned n = 0;
    uint64_t ref[1000];
    for (unsigned i = 0; i < 1000; i++) {
        uint64_t *e = UTIL_APPEND(a, n);
        REQUIRE(e && n == i + 1, "append %u", i);
        CHECK(*e == 0, "element %u not zeroed", i);
        *e = ref[i] = (uint64_t)i * 2654435761u;
    }
    CHECK(!memcmp(a, ref, sizeof ref), "contents differ");
    uint64_t *copy = malloc(3 * sizeof *copy);
    memcpy(copy, a, 3 * sizeof *copy);
    unsigned nc = 3;
    for (int i = 0; i < 100; i++)
        REQUIRE(UTIL_APPEND(copy, nc), "append to a copy");
    CHECK(nc == 103 && copy[2] == ref[2] && copy[102] == 0, "copy grew: %u", nc);
    free(copy);
    free(a);
}

/* A whole file back as written; a missing one is NULL with errno ENOENT. */
TEST_TIER_FREE(util_read_file_round_trip)
{
    char path[] = "/tmp/spvjit-util-file-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "mkstemp");
    size_t n = 200000; /* more than one read chunk */
    unsigned char *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 31 + 7);
    FILE *f = fdopen(fd, "wb");
    REQUIRE(f && fwrite(data, 1, n, f) == n && fclose(f) == 0, "write");
    size_t len = 0;
    unsigned char *got = util_read_file(path, &len);
    CHECK(got && len == n && !memcmp(got, data, n), "read back %zu bytes", len);
    free(got);
    f = fopen(path, "wb");
    REQUIRE(f && fclose(f) == 0, "truncate");
    got = util_read_file(path, &len);
    CHECK(got && len == 0, "empty file: %p %zu", (void *)got, len);
    free(got);
    remove(path);
    errno = 0;
    CHECK(!util_read_file(path, &len) && errno == ENOENT, "missing file: errno %d", errno);
    free(data);
}

/* The arena against a reference: many allocations of random sizes, each
 * filled with its own byte pattern, must all keep their bytes (no overlap),
 * be aligned for any type and come back zeroed from the zeroing calls. */
TEST_TIER_FREE(util_arena_allocations_keep_their_bytes)
{
    enum { N = 20000 };
    static unsigned char *ptr[N];
    static size_t len[N];
    util_arena a;
    util_arena_init(&a, 0);
    uint64_t rng = 7;
    size_t total = 0;
    for (int i = 0; i < N; i++) {
        /* mostly small, sometimes larger than a chunk */
        uint64_t r = test_rand_u64(&rng);
        len[i] = (r % 100 == 0) ? (size_t)(r % (3u << 20)) : (size_t)(r % 200);
        ptr[i] = util_arena_array(&a, len[i], 1);
        REQUIRE(ptr[i], "allocation %d of %zu bytes failed", i, len[i]);
        CHECK((uintptr_t)ptr[i] % _Alignof(max_align_t) == 0, "allocation %d is misaligned", i);
        for (size_t k = 0; k < len[i]; k++)
            if (ptr[i][k]) {
                CHECK(0, "allocation %d byte %zu not zeroed", i, k);
                break;
            }
        memset(ptr[i], (int)(i * 31 + 1), len[i]);
        total += len[i];
    }
    for (int i = 0; i < N; i++)
        for (size_t k = 0; k < len[i]; k++)
            if (ptr[i][k] != (unsigned char)(i * 31 + 1)) {
                CHECK(0, "allocation %d byte %zu was overwritten", i, k);
                break;
            }
    CHECK(a.reserved >= total && a.reserved < 2 * total + (2u << 20), "reserved %zu for %zu bytes used", a.reserved,
          total);
    const char text[] = "copied";
    char *d = util_arena_dup(&a, text, sizeof text);
    CHECK(d && !strcmp(d, text), "dup");
    CHECK(!util_arena_array(&a, SIZE_MAX / 2, 4), "an overflowing array size must fail");
    util_arena_fini(&a);
    CHECK(!a.chunks && a.reserved == 0, "fini leaves the arena empty");
    CHECK(util_arena_zalloc(&a, 10) != NULL, "the arena is usable again after fini");
    util_arena_fini(&a);
}

/* With a byte limit the arena refuses what would exceed it (NULL, never a
 * crash), keeps what it handed out and stays usable below the limit. */
TEST_TIER_FREE(util_arena_limit)
{
    util_arena a;
    util_arena_init(&a, 100000);
    size_t got = 0;
    unsigned char *first = util_arena_alloc(&a, 1000);
    REQUIRE(first, "first allocation");
    memset(first, 0xAB, 1000);
    for (int i = 0; i < 1000; i++) {
        void *p = util_arena_alloc(&a, 1000);
        if (!p)
            break;
        got += 1000;
    }
    CHECK(got > 50000 && got < 100000, "%zu bytes handed out under a 100000-byte limit", got);
    CHECK(a.reserved <= 100000, "reserved %zu over the limit", a.reserved);
    CHECK(!util_arena_alloc(&a, 200000), "an allocation over the limit must fail");
    CHECK(first[0] == 0xAB && first[999] == 0xAB, "earlier allocations keep their bytes");
    util_arena_fini(&a);
    CHECK(util_arena_alloc(&a, 50000) != NULL, "after fini the limit applies afresh");
    util_arena_fini(&a);
}
