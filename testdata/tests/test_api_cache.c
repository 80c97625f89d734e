/* testdata/tests/test_api_cache.c — the in-memory kernel cache: the LRU map on
 * its own (fake values, counted references) and through the public API
 * (same values → the same compiled object, from_cache; new values → a new
 * compile; eviction under a tiny bound; one build per key under contention; the
 * hit path timed and printed). */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "api_test_util.h"
#include "lib/api_internal.h"
#include "lib/kernel_cache.h"
#include "util/timer.h"

/* --- the map alone ----------------------------------------------------------- */

typedef struct fake {
    atomic_int refs;
    int id;
} fake;
static atomic_int fakes_alive;

static void fake_retain(void *p)
{
    atomic_fetch_add(&((fake *)p)->refs, 1);
}
static void fake_release(void *p)
{
    fake *f = p;
    if (atomic_fetch_sub(&f->refs, 1) == 1) {
        atomic_fetch_sub(&fakes_alive, 1);
        free(f);
    }
}

typedef struct fake_build {
    int id;
    size_t bytes;
    atomic_int *builds;
    unsigned sleep_us;
} fake_build;

static void *build_fake(void *user, size_t *est)
{
    fake_build *b = user;
    if (b->sleep_us)
        usleep(b->sleep_us);
    if (b->builds)
        atomic_fetch_add(b->builds, 1);
    if (b->id < 0)
        return NULL; /* a failing build */
    fake *f = calloc(1, sizeof *f);
    atomic_init(&f->refs, 1);
    f->id = b->id;
    atomic_fetch_add(&fakes_alive, 1);
    *est = b->bytes;
    return f;
}

/* Gets key "name" (module part "mod"), building id on a miss; returns the id and *hit. */
static int get(kcache *c, const char *name, int id, bool *hit)
{
    kcache_key k = { .a = "mod", .alen = 3, .b = name, .blen = strlen(name) };
    k.hash = kcache_key_hash(k.a, k.alen, k.b, k.blen);
    fake_build b = { .id = id, .bytes = 100 };
    fake *f = kcache_get(c, &k, build_fake, &b, hit);
    int got = f ? f->id : -1;
    if (f)
        fake_release(f);
    return got;
}

TEST_TIER_FREE(api_cache_lru_order_and_bound)
{
    atomic_store(&fakes_alive, 0);
    kcache *c = kcache_create(300, fake_retain, fake_release);
    bool hit;
    get(c, "A", 1, &hit);
    get(c, "B", 2, &hit);
    get(c, "C", 3, &hit);
    CHECK(kcache_count(c) == 3 && kcache_bytes(c) == 300, "3 entries of 100 bytes: %zu, %zu bytes", kcache_count(c),
          kcache_bytes(c));
    CHECK(get(c, "A", 99, &hit) == 1 && hit, "A cached");                       /* A is now the most recent */
    get(c, "D", 4, &hit);                                                       /* evicts B, the least recent */
    CHECK(get(c, "B", 20, &hit) == 20 && !hit, "B was evicted and is rebuilt"); /* evicts C */
    CHECK(get(c, "A", 99, &hit) == 1 && hit, "A survived");
    CHECK(get(c, "C", 30, &hit) == 30 && !hit, "C was evicted");
    CHECK(kcache_bytes(c) <= 300, "bound kept: %zu bytes", kcache_bytes(c));
    kcache_destroy(c);
    CHECK(atomic_load(&fakes_alive) == 0, "%d values leaked", atomic_load(&fakes_alive));
}

TEST_TIER_FREE(api_cache_full_key_compare_and_failed_builds)
{
    atomic_store(&fakes_alive, 0);
    kcache *c = kcache_create(1 << 20, fake_retain, fake_release);
    /* Two different keys forced onto one hash stay two entries. */
    kcache_key k1 = { .hash = 42, .a = "m", .alen = 1, .b = "x1", .blen = 2 };
    kcache_key k2 = { .hash = 42, .a = "m", .alen = 1, .b = "x2", .blen = 2 };
    fake_build b1 = { .id = 1, .bytes = 10 }, b2 = { .id = 2, .bytes = 10 };
    bool hit;
    fake *f1 = kcache_get(c, &k1, build_fake, &b1, &hit);
    fake *f2 = kcache_get(c, &k2, build_fake, &b2, &hit);
    CHECK(f1 && f2 && f1 != f2 && f2->id == 2 && !hit, "same hash, different keys: distinct values");
    fake *f1b = kcache_get(c, &k1, build_fake, &b2, &hit);
    CHECK(f1b == f1 && hit, "k1 found again");
    fake_release(f1);
    fake_release(f2);
    fake_release(f1b);
    /* A failed build leaves nothing behind; the next ask builds again. */
    atomic_int builds = 0;
    fake_build bad = { .id = -1, .builds = &builds };
    kcache_key k3 = { .hash = 7, .a = "m", .alen = 1, .b = "bad", .blen = 3 };
    CHECK(!kcache_get(c, &k3, build_fake, &bad, &hit) && !hit, "failed build returns NULL");
    CHECK(!kcache_get(c, &k3, build_fake, &bad, &hit), "failed again");
    CHECK(atomic_load(&builds) == 2 && kcache_count(c) == 2, "failures are not cached (%d builds, %zu entries)",
          atomic_load(&builds), kcache_count(c));
    kcache_destroy(c);
    CHECK(atomic_load(&fakes_alive) == 0, "%d values leaked", atomic_load(&fakes_alive));
}

typedef struct racer {
    kcache *c;
    atomic_int *builds;
    fake *got;
} racer;

static void *race(void *p)
{
    racer *r = p;
    kcache_key k = { .a = "m", .alen = 1, .b = "same", .blen = 4 };
    k.hash = kcache_key_hash(k.a, k.alen, k.b, k.blen);
    fake_build b = { .id = 5, .bytes = 10, .builds = r->builds, .sleep_us = 50000 };
    bool hit;
    r->got = kcache_get(r->c, &k, build_fake, &b, &hit);
    return NULL;
}

TEST_TIER_FREE(api_cache_one_build_under_contention)
{
    atomic_store(&fakes_alive, 0);
    kcache *c = kcache_create(1 << 20, fake_retain, fake_release);
    atomic_int builds = 0;
    pthread_t th[4];
    racer r[4];
    for (int i = 0; i < 4; i++) {
        r[i] = (racer){ .c = c, .builds = &builds };
        pthread_create(&th[i], NULL, race, &r[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(atomic_load(&builds) == 1, "%d builds for one key", atomic_load(&builds));
    for (int i = 0; i < 4; i++) {
        CHECK(r[i].got && r[i].got == r[0].got, "thread %d got another object", i);
        if (r[i].got)
            fake_release(r[i].got);
    }
    kcache_destroy(c);
    CHECK(atomic_load(&fakes_alive) == 0, "%d values leaked", atomic_load(&fakes_alive));
}

/* --- through the API ------------------------------------------------------------- */

static spvjit_kernel *build(spvjit_module *m, spvjit_specs *s, bool unspecialized)
{
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .unspecialized = unspecialized };
    spvjit_status st = spvjit_kernel_build(m, NULL, s, &o, &k);
    CHECK(st == SPVJIT_OK, "build: %s", spvjit_last_error());
    return k;
}

static bool from_cache(const spvjit_kernel *k)
{
    spvjit_kernel_stats st;
    return k && spvjit_kernel_stats_get(k, &st) == SPVJIT_OK && st.from_cache;
}

TEST(api_cache_same_values_same_object)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs *s8, *t8, *s16, *none;
    spvjit_specs_create(&s8);
    spvjit_specs_create(&t8);
    spvjit_specs_create(&s16);
    spvjit_specs_create(&none);
    spvjit_spec_set_u32(s8, 0, 8);
    spvjit_spec_set_text(t8, 0, "0x8"); /* the same value, as text */
    spvjit_spec_set_u32(s16, 0, 16);    /* the module's default */

    spvjit_kernel *a = build(m, s8, false), *b = build(m, t8, false), *c = build(m, s16, false);
    spvjit_kernel *d = build(m, NULL, false), *e = build(m, none, false);
    REQUIRE(a && b && c && d && e, "builds failed");
    CHECK(!from_cache(a), "first build compiles");
    CHECK(from_cache(b) && b->compiled == a->compiled, "same value as text: same compiled object");
    CHECK(!from_cache(c) && c->compiled != a->compiled, "another value compiles anew");
    CHECK(from_cache(d) && d->compiled == c->compiled, "defaults (NULL specs) = explicit default value");
    CHECK(from_cache(e) && e->compiled == c->compiled, "empty specs = defaults");
    CHECK(kcache_count(ctx->cache) == 2, "two compiles cached: %zu", kcache_count(ctx->cache));

    /* Unspecialized: only shape-giving values are compiled in (BS sizes the work-group). */
    spvjit_kernel *u8 = build(m, s8, true), *u8b = build(m, t8, true), *u16 = build(m, s16, true);
    REQUIRE(u8 && u8b && u16, "unspecialized builds failed");
    CHECK(!from_cache(u8) && u8->compiled != a->compiled, "unspecialized is its own compile");
    CHECK(from_cache(u8b) && u8b->compiled == u8->compiled, "unspecialized hit");
    CHECK(!from_cache(u16), "BS shapes the kernel: a new unspecialized compile");

    spvjit_kernel *ks[] = { a, b, c, d, e, u8, u8b, u16 };
    for (int i = 0; i < 8; i++)
        spvjit_kernel_destroy(ks[i]);
    spvjit_specs_destroy(s8);
    spvjit_specs_destroy(t8);
    spvjit_specs_destroy(s16);
    spvjit_specs_destroy(none);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_cache_unspecialized_runtime_values_share_code)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs *s1, *s2;
    spvjit_specs_create(&s1);
    spvjit_specs_create(&s2);
    spvjit_spec_set_f32(s1, 0, 3.0f);
    spvjit_spec_set_f32(s2, 0, -1.25f);
    spvjit_kernel *k1 = build(m, s1, true), *k2 = build(m, s2, true);
    REQUIRE(k1 && k2, "builds failed");
    CHECK(from_cache(k2) && k1->compiled == k2->compiled, "a run-time value shares the unspecialized code");
    /* ... yet each kernel runs with its own value. */
    uint32_t n = 100;
    float x[100], y1[100], y2[100];
    for (int i = 0; i < 100; i++) {
        x[i] = (float)i - 40.0f;
        y1[i] = y2[i] = 0.5f * (float)i;
    }
    spvjit_kernel *ks[2] = { k1, k2 };
    float *ys[2] = { y1, y2 };
    for (int j = 0; j < 2; j++) {
        spvjit_bind_buffer(ks[j], 0, 0, x, sizeof x);
        spvjit_bind_buffer(ks[j], 0, 1, ys[j], sizeof y1);
        spvjit_set_push_constants(ks[j], &n, 4);
        CHECK(spvjit_dispatch(ks[j], &(spvjit_dispatch_info){ .groups = { 2, 1, 1 } }) == SPVJIT_OK, "dispatch: %s",
              spvjit_last_error());
    }
    for (int i = 0; i < 100; i++) {
        float w1 = 3.0f * x[i] + 0.5f * (float)i, w2 = -1.25f * x[i] + 0.5f * (float)i;
        if (fabsf(y1[i] - w1) > 1e-5f || fabsf(y2[i] - w2) > 1e-5f) {
            CHECK(0, "element %d: %g, %g; expected %g, %g", i, y1[i], y2[i], w1, w2);
            break;
        }
    }
    spvjit_kernel_destroy(k1);
    spvjit_kernel_destroy(k2);
    spvjit_specs_destroy(s1);
    spvjit_specs_destroy(s2);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_cache_lru_eviction_tiny_bound)
{
    spvjit_context *ctx = api_ctx(1); /* room for nothing but the latest */
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs *sa, *sb;
    spvjit_specs_create(&sa);
    spvjit_specs_create(&sb);
    spvjit_spec_set_f32(sa, 0, 1.0f);
    spvjit_spec_set_f32(sb, 0, 2.5f);
    spvjit_kernel *a1 = build(m, sa, false), *b1 = build(m, sb, false);
    spvjit_kernel *a2 = build(m, sa, false), *a3 = build(m, sa, false);
    REQUIRE(a1 && b1 && a2 && a3, "builds failed");
    CHECK(!from_cache(b1), "b compiles");
    CHECK(!from_cache(a2) && a2->compiled != a1->compiled, "a was evicted by b and compiles again");
    CHECK(from_cache(a3) && a3->compiled == a2->compiled, "the latest stays");
    CHECK(kcache_count(ctx->cache) == 1, "one entry: %zu", kcache_count(ctx->cache));
    /* Evicted objects live on in the kernels that use them. */
    uint32_t n = 64;
    float x[64], y[64];
    for (int i = 0; i < 64; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    spvjit_bind_buffer(a1, 0, 0, x, sizeof x);
    spvjit_bind_buffer(a1, 0, 1, y, sizeof y);
    spvjit_set_push_constants(a1, &n, 4);
    CHECK(spvjit_dispatch(a1, &(spvjit_dispatch_info){ .groups = { 1, 1, 1 } }) == SPVJIT_OK, "dispatch: %s",
          spvjit_last_error());
    CHECK(y[63] == 64.0f && y[5] == 6.0f, "evicted kernel runs: y[63] = %g", y[63]);
    spvjit_kernel *ks[] = { a1, b1, a2, a3 };
    for (int i = 0; i < 4; i++)
        spvjit_kernel_destroy(ks[i]);
    spvjit_specs_destroy(sa);
    spvjit_specs_destroy(sb);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

TEST(api_cache_local_size_chosen_at_dispatch)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.cl.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, NULL, NULL, NULL, &k) == SPVJIT_OK, "build: %s", spvjit_last_error());
    spvjit_kernel_stats ks;
    spvjit_kernel_stats_get(k, &ks);
    CHECK(ks.local_size[0] == 0, "no local size before a dispatch chooses one");
    CHECK(kcache_count(ctx->cache) == 0, "nothing compiled at build");
    uint32_t n = 300;
    float x[300], y[300], w[300];
    for (int i = 0; i < 300; i++) {
        x[i] = (float)(i % 17) - 8.0f;
        y[i] = w[i] = (float)(i % 5);
    }
    spvjit_set_arg_buffer(k, 0, x, sizeof x);
    spvjit_set_arg_buffer(k, 1, y, sizeof y);
    spvjit_set_arg_value(k, 2, &n, 4);
    static const uint32_t locals[4] = { 32, 64, 32, 0 };
    for (int i = 0; i < 4; i++) {
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1,
                                                          .global_size = { n },
                                                          .local_size = { locals[i] } }) == SPVJIT_OK,
              "dispatch with local size %u: %s", locals[i], spvjit_last_error());
        for (int j = 0; j < 300; j++)
            w[j] = 2.0f * x[j] + w[j];
    }
    CHECK(api_first_mismatch(y, w, 300, 1e-6f, 1e-6f) < 0, "four saxpy passes");
    CHECK(kcache_count(ctx->cache) == 3, "one compile per local size (32, 64, chosen): %zu", kcache_count(ctx->cache));
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* The memory-cache hit path, measured and printed (never asserted): a build
 * of values seen before is a lookup — the module's digest was made at load,
 * the key is built from it and the values. */
TEST(api_cache_hit_path_timing)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/conv3x3.comp.spv"); /* nine spec values in the key */
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_specs *s;
    spvjit_specs_create(&s);
    for (uint32_t i = 0; i < 9; i++)
        spvjit_spec_set_f32(s, i, 0.125f * (float)i);
    spvjit_kernel *first = build(m, s, false);
    REQUIRE(first, "build");
    enum { N = 2000 };
    static spvjit_kernel *ks[N];
    static double ns[N];
    bool all_hits = true;
    for (int i = 0; i < N; i++) {
        uint64_t t0 = util_now_ns();
        spvjit_kernel_build(m, NULL, s, NULL, &ks[i]);
        ns[i] = (double)(util_now_ns() - t0);
        all_hits = all_hits && ks[i] && ks[i]->compiled == first->compiled && from_cache(ks[i]);
    }
    CHECK(all_hits, "a build of the same values was not a hit on the same code");
    uint64_t t0 = util_now_ns();
    for (int i = 0; i < N; i++)
        spvjit_kernel_destroy(ks[i]);
    double destroy_ns = (double)(util_now_ns() - t0) / N;
    for (int i = 1; i < N; i++) /* insertion sort: the median */
        for (int j = i; j > 0 && ns[j] < ns[j - 1]; j--) {
            double t = ns[j];
            ns[j] = ns[j - 1];
            ns[j - 1] = t;
        }
    printf("  memory-cache hit (conv3x3.comp, 9 spec values): spvjit_kernel_build median %.0f ns, 90th percentile "
           "%.0f ns; spvjit_kernel_destroy %.0f ns\n",
           ns[N / 2], ns[N * 9 / 10], destroy_ns);
    spvjit_kernel_destroy(first);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}
