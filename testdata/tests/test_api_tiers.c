/* testdata/tests/test_api_tiers.c — tiered compilation (spvjit_tier).
 *
 * References: the C reference of the seed kernels (testdata/kernels/
 * reference.h), and the tiers against each other — both must compute the same
 * bits.  What is checked: every seed kernel on the quick and the optimized
 * tier, through the command line; an auto kernel switching tiers while four
 * host threads dispatch (every result the same bits, the dispatch counts add
 * up, the quick code freed only when its last dispatch ended: the sanitizer
 * build would see it otherwise); a kernel, then a whole context, destroyed
 * while the optimized tier compiles; a large dispatch waiting for the
 * optimized code; the disk cache never holding quick code; asynchronous
 * builds of a family of specializations.  The optimized compile is held back
 * where a test needs the quick tier to last (api_tier_hold_for_tests). */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_test_util.h"
#include "lib/api_internal.h"
#include "testdata/kernels/reference.h"

/* --- every seed kernel on both tiers, through `spvjit run --out` --------------------------------- */

static const struct {
    const char *name, *file, *args;
    const char *outs[2]; /* --out targets */
} seed_runs[] = {
    { "mm.comp BS=8",
      "kernels/mm.comp.spv",
      "-D 0=8 --groups 6,6,1 --buffer 0:0=random:f32:2304:1 --buffer 0:1=random:f32:2304:2 --buffer 0:2=zero:9216 "
      "--push u32:48",
      { "0:2" } },
    { "mm.comp BS=16",
      "kernels/mm.comp.spv",
      "-D 0=16 --groups 3,3,1 --buffer 0:0=random:f32:2304:1 --buffer 0:1=random:f32:2304:2 --buffer 0:2=zero:9216 "
      "--push u32:48",
      { "0:2" } },
    { "conv3x3.comp",
      "kernels/conv3x3.comp.spv",
      "-D 4=0.5 -D 0=0 --groups 3,2,1 --buffer 0:0=random:f32:960:3 --buffer 0:1=zero:3840 --push u32:40,24",
      { "0:1" } },
    { "reduce.comp",
      "kernels/reduce.comp.spv",
      "-D 0=64 --groups 16,1,1 --buffer 0:0=random:f32:1000:4 --buffer 0:1=zero:64 --push u32:1000",
      { "0:1" } },
    { "saxpy.comp",
      "kernels/saxpy.comp.spv",
      "-D 0=1.75 --groups 16,1,1 --buffer 0:0=random:f32:1000:5 --buffer 0:1=random:f32:1000:6 --push u32:1000",
      { "0:1" } },
    { "scan.comp",
      "../bench/kernels/scan.comp.spv",
      "-D 0=64 --groups 16,1,1 --buffer 0:0=random:f32:1000:7 --buffer 0:1=zero:4096 --buffer 0:2=zero:64 "
      "--push u32:1000",
      { "0:1", "0:2" } },
    { "mm.cl",
      "kernels/mm.cl.spv",
      "-D 0=8 --global 48,48 --local 8,8 --arg 0=random:f32:2304:1 --arg 1=random:f32:2304:2 --arg 2=zero:9216 "
      "--arg 3=i32:48",
      { "2" } },
    { "conv3x3.cl",
      "kernels/conv3x3.cl.spv",
      "-D 8=-1 --global 40,24 --local 8,8 --arg 0=random:f32:960:3 --arg 1=zero:3840 --arg 2=i32:40 --arg 3=i32:24",
      { "1" } },
    { "reduce.cl",
      "kernels/reduce.cl.spv",
      "--global 1024 --local 64 --arg 0=random:f32:1000:4 --arg 1=zero:64 --arg 2=i32:1000 --arg 3=local:256",
      { "1" } },
    { "saxpy.cl",
      "kernels/saxpy.cl.spv",
      "-D 0=-0.75 --global 1000 --arg 0=random:f32:1000:5 --arg 1=random:f32:1000:6 --arg 2=i32:1000",
      { "1" } },
    { "scan.cl",
      "../bench/kernels/scan.cl.spv",
      "--global 1024 --local 64 --arg 0=random:f32:1000:7 --arg 1=zero:4096 --arg 2=zero:64 --arg 3=i32:1000 "
      "--arg 4=local:256",
      { "1", "2" } },
    /* sub-group operations at the native size: lanes on both tiers */
    { "sgreduce.comp",
      "../bench/kernels/sgreduce.comp.spv",
      "-D 0=64 --groups 16,1,1 --buffer 0:0=random:f32:1000:8 --buffer 0:1=zero:64 --push u32:1000",
      { "0:1" } },
    { "sgreduce.cl",
      "../bench/kernels/sgreduce.cl.spv",
      "--global 1024 --local 64 --arg 0=random:f32:1000:8 --arg 1=zero:64 --arg 2=i32:1000 --arg 3=local:256",
      { "1" } },
};

TEST(api_tiers_seed_kernels_same_bits)
{
    const char *bin = getenv("SPVJIT_BIN");
    REQUIRE(bin && *bin, "SPVJIT_BIN is not set");
    char *dir = test_temp_dir("tiers");
    REQUIRE(dir, "mkdtemp");
    static const char *tiers[2] = { "quick", "opt" };
    for (size_t c = 0; c < sizeof seed_runs / sizeof seed_runs[0]; c++) {
        unsigned char *out[2][2] = { { NULL } };
        size_t len[2][2] = { { 0 } };
        for (int t = 0; t < 2; t++) {
            char cmd[4096], *log = NULL;
            int n = snprintf(cmd, sizeof cmd, "'%s' run '%s' --tier %s %s", bin, test_data_path(seed_runs[c].file),
                             tiers[t], seed_runs[c].args);
            for (int o = 0; o < 2 && seed_runs[c].outs[o]; o++)
                n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --out %s=%s/%d.%d", seed_runs[c].outs[o], dir, t, o);
            int st = test_run_capture(cmd, &log);
            CHECK(st == 0, "%s --tier %s: %s", seed_runs[c].name, tiers[t], log ? log : "");
            free(log);
            for (int o = 0; o < 2 && seed_runs[c].outs[o]; o++) {
                char path[800];
                snprintf(path, sizeof path, "%s/%d.%d", dir, t, o);
                out[t][o] = test_read_file(path, &len[t][o]);
                remove(path);
            }
        }
        for (int o = 0; o < 2 && seed_runs[c].outs[o]; o++) {
            bool nonzero = false;
            for (size_t i = 0; out[0][o] && i < len[0][o] && !nonzero; i++)
                nonzero = out[0][o][i] != 0;
            CHECK(out[0][o] && out[1][o] && len[0][o] == len[1][o] && len[0][o] > 0 &&
                      !memcmp(out[0][o], out[1][o], len[0][o]),
                  "%s: output %s differs between the quick and the optimized tier", seed_runs[c].name,
                  seed_runs[c].outs[o]);
            CHECK(nonzero, "%s: output %s is all zero: the comparison proves nothing", seed_runs[c].name,
                  seed_runs[c].outs[o]);
            free(out[0][o]);
            free(out[1][o]);
        }
    }
    test_remove_dir(dir);
    free(dir);
}

/* --- helpers: mm.comp at BS=16 on n x n random matrices --------------------------------------------- */

/* testdata/<rel> loaded in a context of its own (tier: the context's default;
 * disk_dir NULL: no disk cache), which goes with the module. */
static spvjit_module *tier_module(spvjit_tier tier, const char *disk_dir, const char *rel)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options o = { .disk_cache_dir = disk_dir ? disk_dir : "", .defaults.tier = tier };
    spvjit_module *m = spvjit_context_create(&o, &ctx) == SPVJIT_OK ? api_load(ctx, rel) : NULL;
    spvjit_context_destroy(ctx); /* the module holds it */
    return m;
}

static spvjit_kernel *build_mm(spvjit_module *m, uint32_t bs, spvjit_tier tier)
{
    spvjit_specs *s = NULL;
    spvjit_kernel *k = NULL;
    spvjit_build_options bo = { .tier = tier };
    if (spvjit_specs_create(&s) == SPVJIT_OK && spvjit_spec_set_u32(s, 0, bs) == SPVJIT_OK)
        CHECK(spvjit_kernel_build(m, NULL, s, &bo, &k) == SPVJIT_OK, "build BS=%u: %s", bs, spvjit_last_error());
    spvjit_specs_destroy(s);
    return k;
}

typedef struct mm_data {
    uint32_t n;
    float *a, *b, *want;
} mm_data;

static void mm_data_init(mm_data *d, uint32_t n, uint64_t seed)
{
    d->n = n;
    d->a = api_rand_floats(&seed, (size_t)n * n, -1, 1);
    d->b = api_rand_floats(&seed, (size_t)n * n, -1, 1);
    d->want = malloc(sizeof(float) * n * n);
    ref_mm(d->a, d->b, d->want, n, true); /* mm.comp: contracted */
}

static void mm_data_free(mm_data *d)
{
    free(d->a);
    free(d->b);
    free(d->want);
}

/* One dispatch of k (BS=bs) into c; the status. */
static spvjit_status mm_dispatch(spvjit_kernel *k, const mm_data *d, float *c, uint32_t bs)
{
    size_t bytes = sizeof(float) * d->n * d->n;
    uint32_t g = (d->n + bs - 1) / bs;
    spvjit_status st = spvjit_bind_buffer(k, 0, 0, d->a, bytes);
    if (st == SPVJIT_OK)
        st = spvjit_bind_buffer(k, 0, 1, d->b, bytes);
    if (st == SPVJIT_OK)
        st = spvjit_bind_buffer(k, 0, 2, c, bytes);
    if (st == SPVJIT_OK)
        st = spvjit_set_push_constants(k, &d->n, sizeof d->n);
    if (st == SPVJIT_OK)
        st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { g, g, 1 } });
    return st;
}

static spvjit_kernel_stats stats_of(const spvjit_kernel *k)
{
    spvjit_kernel_stats s;
    memset(&s, 0, sizeof s);
    spvjit_kernel_stats_get(k, &s);
    return s;
}

/* --- the switch under concurrent dispatches ---------------------------------------------------------- */

typedef struct racer {
    spvjit_kernel *k;
    const mm_data *d;
    const float *first; /* the bits every dispatch must give */
    atomic_bool *stop;
    unsigned dispatches, bad, errors;
} racer;

static void *race(void *p)
{
    racer *r = p;
    size_t n = (size_t)r->d->n * r->d->n;
    float *c = malloc(sizeof(float) * n);
    /* until told to stop and a dispatch of its own has run the optimized code (one
     * begun on the quick code before the switch ends on it) */
    for (bool last_opt = false; !atomic_load(r->stop) || !last_opt;) {
        memset(c, 0xff, sizeof(float) * n); /* NaNs: a group left out shows */
        spvjit_status st = mm_dispatch(r->k, r->d, c, 16);
        if (st != SPVJIT_OK)
            r->errors++;
        else if (memcmp(c, r->first, sizeof(float) * n))
            r->bad++;
        r->dispatches++;
        last_opt = st != SPVJIT_OK || stats_of(r->k).dispatch_tier == SPVJIT_TIER_OPT;
    }
    free(c);
    return NULL;
}

TEST(api_tiers_switch_under_concurrent_dispatches)
{
    spvjit_module *m = tier_module(SPVJIT_TIER_AUTO, NULL, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    mm_data d;
    mm_data_init(&d, 160, 11); /* 25600 work-items: small enough for the quick tier */
    api_tier_hold_for_tests(true);
    spvjit_kernel *ks[4];
    for (int i = 0; i < 4; i++)
        ks[i] = build_mm(m, 16, SPVJIT_TIER_DEFAULT); /* one compile: the other three are hits */
    float *first = malloc(sizeof(float) * d.n * d.n);
    bool built = ks[0] && ks[1] && ks[2] && ks[3];
    if (built) {
        CHECK(stats_of(ks[0]).tier == SPVJIT_TIER_QUICK && stats_of(ks[3]).opt_pending, "held: quick code first");
        CHECK(mm_dispatch(ks[0], &d, first, 16) == SPVJIT_OK, "dispatch: %s", spvjit_last_error());
        CHECK(api_first_mismatch(first, d.want, (size_t)d.n * d.n, 1e-5f, 1e-5f) < 0, "quick tier vs C");
    }
    atomic_bool stop = false;
    racer r[4];
    pthread_t th[4];
    for (int i = 0; built && i < 4; i++) {
        r[i] = (racer){ .k = ks[i], .d = &d, .first = first, .stop = &stop };
        pthread_create(&th[i], NULL, race, &r[i]);
    }
    if (built) {
        usleep(30000);
        api_tier_hold_for_tests(false); /* the optimized code arrives while they dispatch */
        CHECK(spvjit_kernel_wait_optimized(ks[1]) == SPVJIT_OK, "optimized tier: %s", spvjit_last_error());
        usleep(30000);
        atomic_store(&stop, true);
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        uint64_t quick = 0, opt = 0, total = 0;
        for (int i = 0; i < 4; i++) {
            spvjit_kernel_stats s = stats_of(ks[i]);
            CHECK(r[i].errors == 0 && r[i].bad == 0, "thread %d: %u failed, %u other bits of %u dispatches", i,
                  r[i].errors, r[i].bad, r[i].dispatches);
            CHECK(s.tier == SPVJIT_TIER_OPT && s.dispatch_tier == SPVJIT_TIER_OPT && !s.opt_pending &&
                      s.opt_ready_ms > s.total_ms,
                  "thread %d: stats after the switch: tier %d, last dispatch %d, ready %.1f ms", i, s.tier,
                  s.dispatch_tier, s.opt_ready_ms);
            quick += s.quick_dispatches;
            opt += s.opt_dispatches;
            total += r[i].dispatches + (i == 0);
        }
        CHECK(quick + opt == total && quick > 0 && opt > 0, "%llu quick + %llu optimized dispatches of %llu",
              (unsigned long long)quick, (unsigned long long)opt, (unsigned long long)total);
    }
    api_tier_hold_for_tests(false);
    for (int i = 0; i < 4; i++)
        spvjit_kernel_destroy(ks[i]);
    free(first);
    mm_data_free(&d);
    spvjit_module_destroy(m);
}

/* --- destroying what an optimized compile still works for ------------------------------------------- */

TEST(api_tiers_destroy_while_optimizing)
{
    mm_data d;
    mm_data_init(&d, 48, 12);
    float *c = malloc(sizeof(float) * d.n * d.n);
    /* the kernel goes while its optimized code compiles; the compile finishes for the cache */
    spvjit_module *m = tier_module(SPVJIT_TIER_AUTO, NULL, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    spvjit_kernel *k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
    REQUIRE(k, "build");
    CHECK(stats_of(k).opt_pending, "auto: the optimized code is pending after the build");
    spvjit_kernel_destroy(k);
    k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
    REQUIRE(k, "build again");
    CHECK(stats_of(k).from_cache, "the same values again: a hit");
    CHECK(spvjit_kernel_wait_optimized(k) == SPVJIT_OK && stats_of(k).tier == SPVJIT_TIER_OPT, "optimized: %s",
          spvjit_last_error());
    CHECK(mm_dispatch(k, &d, c, 16) == SPVJIT_OK && api_first_mismatch(c, d.want, (size_t)d.n * d.n, 1e-5f, 1e-5f) < 0,
          "the optimized code computes the product");
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);

    /* kernel, module and context all go while the compile is held, then while it runs */
    for (int round = 0; round < 2; round++) {
        m = tier_module(SPVJIT_TIER_AUTO, NULL, "kernels/mm.comp.spv");
        REQUIRE(m, "load: %s", spvjit_last_error());
        api_tier_hold_for_tests(round == 0);
        spvjit_kernel *ks[3] = { build_mm(m, 8, SPVJIT_TIER_DEFAULT), build_mm(m, 16, SPVJIT_TIER_DEFAULT),
                                 build_mm(m, 32, SPVJIT_TIER_DEFAULT) };
        CHECK(ks[0] && ks[1] && ks[2], "builds");
        if (ks[1])
            CHECK(mm_dispatch(ks[1], &d, c, 16) == SPVJIT_OK &&
                      api_first_mismatch(c, d.want, (size_t)d.n * d.n, 1e-5f, 1e-5f) < 0,
                  "round %d: the quick code computes the product", round);
        for (int i = 0; i < 3; i++)
            spvjit_kernel_destroy(ks[i]);
        spvjit_module_destroy(m); /* and the context: cancels the compiles, waits for the running one */
        api_tier_hold_for_tests(false);
    }
    free(c);
    mm_data_free(&d);
}

/* --- a large dispatch waits for the optimized code ----------------------------------------------------- */

typedef struct waiter {
    spvjit_kernel *k;
    const mm_data *d;
    float *c;
    spvjit_status st;
    atomic_bool done;
} waiter;

static void *large_dispatch(void *p)
{
    waiter *w = p;
    w->st = mm_dispatch(w->k, w->d, w->c, 16);
    atomic_store(&w->done, true);
    return NULL;
}

TEST(api_tiers_large_dispatch_waits_for_optimized_code)
{
    spvjit_module *m = tier_module(SPVJIT_TIER_AUTO, NULL, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    mm_data small, large;
    mm_data_init(&small, 64, 13);  /* 4096 work-items: runs at once on the quick code */
    mm_data_init(&large, 272, 14); /* 73984 > API_QUICK_MAX_ITEMS: waits */
    api_tier_hold_for_tests(true);
    spvjit_kernel *k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
    if (!k)
        api_tier_hold_for_tests(false); /* a held compile would hold every later test */
    REQUIRE(k, "build");
    float *c = malloc(sizeof(float) * large.n * large.n);
    CHECK(mm_dispatch(k, &small, c, 16) == SPVJIT_OK && stats_of(k).dispatch_tier == SPVJIT_TIER_QUICK,
          "a small dispatch runs the quick code");
    CHECK(api_first_mismatch(c, small.want, 64 * 64, 1e-5f, 1e-5f) < 0, "small dispatch vs C");
    waiter w = { .k = k, .d = &large, .c = c };
    atomic_init(&w.done, false);
    pthread_t th;
    pthread_create(&th, NULL, large_dispatch, &w);
    usleep(50000);
    CHECK(!atomic_load(&w.done), "the large dispatch ran while the optimized code was held back");
    api_tier_hold_for_tests(false);
    pthread_join(th, NULL);
    spvjit_kernel_stats s = stats_of(k);
    CHECK(w.st == SPVJIT_OK && s.dispatch_tier == SPVJIT_TIER_OPT && s.quick_dispatches == 1 && s.opt_dispatches == 1,
          "the large dispatch ran the optimized code (tier %d; %llu quick, %llu optimized)", s.dispatch_tier,
          (unsigned long long)s.quick_dispatches, (unsigned long long)s.opt_dispatches);
    CHECK(api_first_mismatch(c, large.want, (size_t)large.n * large.n, 1e-5f, 1e-5f) < 0, "large dispatch vs C");
    free(c);
    spvjit_kernel_destroy(k);
    mm_data_free(&small);
    mm_data_free(&large);
    spvjit_module_destroy(m);
}

/* --- what each tier option does ------------------------------------------------------------------------ */

TEST(api_tiers_quick_stays_opt_waits)
{
    spvjit_module *m = tier_module(SPVJIT_TIER_DEFAULT, NULL, "kernels/mm.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    mm_data d;
    mm_data_init(&d, 32, 15);
    float *c = malloc(sizeof(float) * d.n * d.n);
    spvjit_kernel *q = build_mm(m, 16, SPVJIT_TIER_QUICK), *o = build_mm(m, 16, SPVJIT_TIER_OPT);
    REQUIRE(q && o, "builds");
    CHECK(!stats_of(o).from_cache, "quick and opt do not share code");
    spvjit_kernel_stats so = stats_of(o);
    CHECK(so.tier == SPVJIT_TIER_OPT && !so.opt_pending && so.opt_ready_ms > 0 && so.passes_ms > 0,
          "opt: optimized code when the build returns (tier %d, ready %.1f ms)", so.tier, so.opt_ready_ms);
    CHECK(spvjit_kernel_wait_optimized(q) == SPVJIT_OK, "wait on a quick kernel returns at once");
    for (int i = 0; i < 3; i++)
        CHECK(mm_dispatch(q, &d, c, 16) == SPVJIT_OK, "dispatch");
    spvjit_kernel_stats sq = stats_of(q);
    CHECK(sq.tier == SPVJIT_TIER_QUICK && sq.quick_dispatches == 3 && sq.opt_dispatches == 0 && sq.opt_ready_ms == 0 &&
              !sq.opt_pending,
          "quick: stays quick (tier %d, %llu/%llu dispatches)", sq.tier, (unsigned long long)sq.quick_dispatches,
          (unsigned long long)sq.opt_dispatches);
    CHECK(api_first_mismatch(c, d.want, 32 * 32, 1e-5f, 1e-5f) < 0, "quick vs C");
    /* auto after opt: the same code, optimized at once; opt after auto waits for it */
    spvjit_kernel *a = build_mm(m, 16, SPVJIT_TIER_AUTO);
    CHECK(a && stats_of(a).from_cache && stats_of(a).tier == SPVJIT_TIER_OPT,
          "auto after opt: a hit on optimized code");
    spvjit_kernel *a8 = build_mm(m, 8, SPVJIT_TIER_AUTO), *o8 = build_mm(m, 8, SPVJIT_TIER_OPT);
    CHECK(o8 && stats_of(o8).from_cache && stats_of(o8).tier == SPVJIT_TIER_OPT,
          "opt after auto: the auto build's code, waited for");
    spvjit_kernel *ks[] = { q, o, a, a8, o8 };
    for (int i = 0; i < 5; i++)
        spvjit_kernel_destroy(ks[i]);
    free(c);
    mm_data_free(&d);
    spvjit_module_destroy(m);
}

/* --- sub-groups on each tier ------------------------------------------------------------------------- */

/* A kernel that cannot observe its sub-groups runs one work-item at a time on
 * the quick tier and as SIMD lanes on the optimized one (the same results:
 * the switch test and the seed runs above); one that observes them has the
 * same sub-groups on both, the native size or the one asked for. */
TEST(api_tiers_subgroup_sizes)
{
    static const struct {
        const char *file;
        bool observes;
        uint32_t asked;
    } cases[] = {
        { "kernels/saxpy.comp.spv", false, 0 },
        { "kernels/mm.comp.spv", false, 0 },
        { "../bench/kernels/sgreduce.comp.spv", true, 0 },
        { "kernels/saxpy.comp.spv", false, 4 },
    };
    uint32_t native = spvjit_native_subgroup_size();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spvjit_module *m = tier_module(SPVJIT_TIER_AUTO, NULL, cases[i].file);
        REQUIRE(m, "load %s: %s", cases[i].file, spvjit_last_error());
        api_tier_hold_for_tests(true);
        spvjit_kernel *k = NULL;
        spvjit_build_options bo = { .subgroup_size = cases[i].asked };
        spvjit_status st = spvjit_kernel_build(m, "main", NULL, &bo, &k);
        spvjit_kernel_stats q = stats_of(k);
        api_tier_hold_for_tests(false);
        CHECK(st == SPVJIT_OK, "build %s: %s", cases[i].file, spvjit_last_error());
        uint32_t want_opt = cases[i].asked ? cases[i].asked : native;
        uint32_t want_quick = cases[i].asked || cases[i].observes ? want_opt : 1;
        CHECK(q.tier == SPVJIT_TIER_QUICK && q.subgroup_size == want_quick, "%s quick code: sub-groups of %u, not %u",
              cases[i].file, q.subgroup_size, want_quick);
        CHECK(spvjit_kernel_wait_optimized(k) == SPVJIT_OK, "optimized: %s", spvjit_last_error());
        spvjit_kernel_stats o = stats_of(k);
        CHECK(o.tier == SPVJIT_TIER_OPT && o.subgroup_size == want_opt, "%s optimized code: sub-groups of %u, not %u",
              cases[i].file, o.subgroup_size, want_opt);
        spvjit_kernel_destroy(k);
        spvjit_module_destroy(m);
    }
}

/* --- the disk cache holds optimized code only ---------------------------------------------------------- */

static int kobj_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".kobj") != NULL;
    if (d)
        closedir(d);
    return n;
}

TEST(api_tiers_disk_cache_holds_no_quick_code)
{
    char *dir = test_temp_dir("tiers-disk");
    REQUIRE(dir, "mkdtemp");
    mm_data d;
    mm_data_init(&d, 48, 16);
    float *c = malloc(sizeof(float) * d.n * d.n);
    /* quick builds, and auto builds whose optimized code never arrived, store nothing */
    for (int round = 0; round < 2; round++) {
        spvjit_module *m = tier_module(round ? SPVJIT_TIER_AUTO : SPVJIT_TIER_QUICK, dir, "kernels/mm.comp.spv");
        REQUIRE(m, "load: %s", spvjit_last_error());
        api_tier_hold_for_tests(round == 1);
        spvjit_kernel *k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
        CHECK(k && mm_dispatch(k, &d, c, 16) == SPVJIT_OK && stats_of(k).dispatch_tier == SPVJIT_TIER_QUICK,
              "round %d: quick code ran", round);
        spvjit_kernel_destroy(k);
        spvjit_module_destroy(m);
        api_tier_hold_for_tests(false);
        CHECK(kobj_files(dir) == 0, "round %d: %d files: quick code on disk", round, kobj_files(dir));
    }
    /* the optimized code is stored when it arrives; a later context starts with it */
    spvjit_module *m = tier_module(SPVJIT_TIER_AUTO, dir, "kernels/mm.comp.spv");
    REQUIRE(m, "load");
    spvjit_kernel *k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
    CHECK(k && spvjit_kernel_wait_optimized(k) == SPVJIT_OK && kobj_files(dir) == 1, "stored: %d files",
          kobj_files(dir));
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    m = tier_module(SPVJIT_TIER_AUTO, dir, "kernels/mm.comp.spv");
    REQUIRE(m, "load");
    k = build_mm(m, 16, SPVJIT_TIER_DEFAULT);
    spvjit_kernel_stats s = stats_of(k);
    CHECK(k && s.from_cache && s.tier == SPVJIT_TIER_OPT && !s.opt_pending && s.opt_ready_ms > 0,
          "a second process starts optimized (hit %d, tier %d)", s.from_cache, s.tier);
    CHECK(k && mm_dispatch(k, &d, c, 16) == SPVJIT_OK &&
              api_first_mismatch(c, d.want, (size_t)d.n * d.n, 1e-5f, 1e-5f) < 0,
          "disk-loaded code vs C");
    spvjit_kernel_destroy(k);
    /* a quick build next to it: compiled, not loaded */
    k = build_mm(m, 16, SPVJIT_TIER_QUICK);
    s = stats_of(k);
    CHECK(k && !s.from_cache && s.tier == SPVJIT_TIER_QUICK && kobj_files(dir) == 1, "quick build: its own compile");
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    free(c);
    mm_data_free(&d);
    test_remove_dir(dir);
    free(dir);
}

/* --- builds in parallel: a family of specializations ------------------------------------------------- */

TEST(api_tiers_async_builds_of_a_family)
{
    spvjit_module *m = tier_module(SPVJIT_TIER_DEFAULT, NULL, "kernels/saxpy.comp.spv");
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { N = 8, LEN = 300 };
    spvjit_build_event *ev[N];
    for (int i = 0; i < N; i++) {
        spvjit_specs *s = NULL;
        spvjit_specs_create(&s);
        spvjit_spec_set_f32(s, 0, 0.25f * (float)(i + 1));
        CHECK(spvjit_kernel_build_async(m, NULL, s, NULL, &ev[i]) == SPVJIT_OK, "async build %d: %s", i,
              spvjit_last_error());
        spvjit_specs_destroy(s); /* the values were copied */
    }
    uint64_t seed = 17;
    float *x = api_rand_floats(&seed, LEN, -2, 2);
    uint32_t n = LEN;
    for (int i = 0; i < N; i++) {
        spvjit_kernel *k = NULL;
        CHECK(spvjit_build_wait(ev[i], &k) == SPVJIT_OK && k, "wait %d: %s", i, spvjit_last_error());
        if (!k)
            continue;
        float y[LEN], want[LEN];
        for (int j = 0; j < LEN; j++)
            y[j] = want[j] = (float)j * 0.5f;
        ref_saxpy(0.25f * (float)(i + 1), x, want, LEN, true);
        spvjit_bind_buffer(k, 0, 0, x, sizeof(float) * LEN);
        spvjit_bind_buffer(k, 0, 1, y, sizeof y);
        spvjit_set_push_constants(k, &n, 4);
        CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (LEN + 63) / 64, 1, 1 } }) == SPVJIT_OK,
              "dispatch %d: %s", i, spvjit_last_error());
        CHECK(api_first_mismatch(y, want, LEN, 1e-6f, 1e-6f) < 0, "member %d vs C", i);
        spvjit_kernel_destroy(k);
    }
    /* errors: an argument at once, a build's own from the wait */
    spvjit_build_event *bad = NULL;
    spvjit_specs *s = NULL;
    spvjit_specs_create(&s);
    spvjit_spec_set_u32(s, 7, 1);
    CHECK(spvjit_kernel_build_async(m, NULL, s, NULL, &bad) == SPVJIT_ERROR_SPEC_CONSTANT && !bad &&
              strstr(spvjit_last_error(), "SpecId 7"),
          "an unknown SpecId is refused at once: %s", spvjit_last_error());
    CHECK(spvjit_kernel_build_async(m, "nope", NULL, NULL, &bad) == SPVJIT_ERROR_NOT_FOUND && !bad,
          "an unknown entry point is refused at once");
    CHECK(spvjit_build_wait(NULL, NULL) == SPVJIT_ERROR_INVALID_ARGUMENT, "NULL event");
    spvjit_specs_destroy(s);
    free(x);
    spvjit_module_destroy(m);
}

/* --- code in the process's JIT ---------------------------------------------------------------------- */

/* Every kernel's code lives in the one JIT of the process, in a JITDylib of
 * its own that the next kernel reuses once the code is freed: many kernels
 * alive at once, then freed and built again with other values, each computes
 * its own values (none runs another's code, none a freed one). */
TEST(api_tiers_code_reuses_jit_dylibs)
{
    /* a memory cache of one entry: a destroyed kernel's code is freed at once */
    spvjit_context *ctx = NULL;
    spvjit_context_options co = { .cache_bytes = 1, .disk_cache_dir = "", .defaults.tier = SPVJIT_TIER_QUICK };
    REQUIRE(spvjit_context_create(&co, &ctx) == SPVJIT_OK, "context: %s", spvjit_last_error());
    spvjit_module *m = api_load(ctx, "kernels/saxpy.comp.spv");
    spvjit_context_destroy(ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { K = 12, LEN = 130 };
    uint64_t seed = 23;
    float *x = api_rand_floats(&seed, LEN, -3, 3);
    uint32_t n = LEN;
    for (int round = 0; round < 3; round++) {
        spvjit_kernel *ks[K] = { NULL };
        for (int i = 0; i < K; i++) {
            spvjit_specs *s = NULL;
            spvjit_specs_create(&s);
            spvjit_spec_set_f32(s, 0, (float)(round * K + i) + 0.5f); /* never seen before: a compile */
            CHECK(spvjit_kernel_build(m, NULL, s, NULL, &ks[i]) == SPVJIT_OK, "build: %s", spvjit_last_error());
            spvjit_specs_destroy(s);
        }
        for (int i = 0; i < K; i++) {
            if (!ks[i])
                continue;
            float y[LEN], want[LEN];
            for (int j = 0; j < LEN; j++)
                y[j] = want[j] = (float)j;
            ref_saxpy((float)(round * K + i) + 0.5f, x, want, LEN, true);
            spvjit_bind_buffer(ks[i], 0, 0, x, sizeof(float) * LEN);
            spvjit_bind_buffer(ks[i], 0, 1, y, sizeof y);
            spvjit_set_push_constants(ks[i], &n, 4);
            CHECK(spvjit_dispatch(ks[i], &(spvjit_dispatch_info){ .groups = { (LEN + 63) / 64, 1, 1 } }) == SPVJIT_OK &&
                      api_first_mismatch(y, want, LEN, 1e-6f, 1e-6f) < 0,
                  "round %d kernel %d: not its own values", round, i);
        }
        for (int i = 0; i < K; i += 2) /* freed out of order: the idle JITDylibs come back mixed */
            spvjit_kernel_destroy(ks[i]);
        for (int i = 1; i < K; i += 2)
            spvjit_kernel_destroy(ks[i]);
    }
    free(x);
    spvjit_module_destroy(m);
}
