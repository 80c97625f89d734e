/* testdata/tests/test_api_disk_kernels.c — the on-disk kernel cache end to end.
 *
 * A context with a cache directory stores what it compiles; a fresh context
 * on the same directory loads it instead of compiling (stats: from_cache) and
 * computes exactly the bits a fresh compile computes (and the C reference's
 * values): Shader and Kernel flavour, barriers compiled into regions and
 * barrier-free, local sizes fixed and chosen at dispatch.  A corrupted file
 * is ignored and rebuilt; other spec values or another host (a fake CPU
 * identity through the test hook) miss.  The seed mm's cold compile, disk
 * load and memory hit are printed, never asserted. */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api_test_util.h"
#include "lib/disk_cache.h"
#include "testdata/kernels/reference.h"

/* Cache files (*.kobj) in dir; the first one's path in first (if given). */
static int cache_files(const char *dir, char *first, size_t len)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 5, ".kobj"))
            continue;
        if (!n && first)
            snprintf(first, len, "%s/%s", dir, e->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

static spvjit_context *disk_ctx(const char *dir)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options o = { .disk_cache_dir = dir, .defaults.tier = SPVJIT_TIER_AUTO }; /* the default */
    return spvjit_context_create(&o, &ctx) == SPVJIT_OK ? ctx : NULL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* --- one kernel run, whatever the context --------------------------------------------------- */

typedef enum { K_MM_COMP, K_REDUCE_CL, K_SAXPY_COMP, K_SAXPY_CL } kernel_case;

typedef struct run_out {
    float *out; /* the result buffer (malloc'd) */
    size_t n;
    spvjit_kernel_stats stats;
    double build_ms; /* spvjit_kernel_build, wall */
} run_out;

/* Builds and runs one case with spec value `v` (mm: BS, reduce: work-group
 * size, saxpy: a as float bits) on inputs from `seed`; checks the reference. */
static bool run_case(spvjit_context *ctx, kernel_case kc, uint32_t v, uint64_t seed, run_out *r)
{
    static const char *files[] = { "kernels/mm.comp.spv", "kernels/reduce.cl.spv", "kernels/saxpy.comp.spv",
                                   "kernels/saxpy.cl.spv" };
    memset(r, 0, sizeof *r);
    spvjit_module *m = api_load(ctx, files[kc]);
    if (!m) {
        CHECK(0, "%s: %s", files[kc], spvjit_last_error());
        return false;
    }
    spvjit_specs *s;
    spvjit_specs_create(&s);
    if (kc == K_MM_COMP)
        spvjit_spec_set_u32(s, 0, v);
    if (kc == K_SAXPY_COMP || kc == K_SAXPY_CL)
        spvjit_spec_set(s, 0, SPVJIT_TYPE_F32, v);
    spvjit_kernel *k = NULL;
    double t0 = now_ms();
    spvjit_status st = spvjit_kernel_build(m, NULL, s, NULL, &k);
    r->build_ms = now_ms() - t0;
    CHECK(st == SPVJIT_OK, "%s: build: %s", files[kc], spvjit_last_error());
    bool ok = st == SPVJIT_OK;
    float *want = NULL;
    long bad = -1;
    if (ok && kc == K_MM_COMP) {
        uint32_t n = 45, g = (n + v - 1) / v;
        size_t nn = (size_t)n * n;
        float *a = api_rand_floats(&seed, nn, -1, 1), *b = api_rand_floats(&seed, nn, -1, 1);
        r->out = calloc(nn, 4);
        r->n = nn;
        want = calloc(nn, 4);
        ref_mm(a, b, want, n, true); /* mm.comp */
        spvjit_bind_buffer(k, 0, 0, a, nn * 4);
        spvjit_bind_buffer(k, 0, 1, b, nn * 4);
        spvjit_bind_buffer(k, 0, 2, r->out, nn * 4);
        spvjit_set_push_constants(k, &n, 4);
        st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { g, g, 1 } });
        bad = api_first_mismatch(r->out, want, nn, 1e-4f, 1e-5f);
        free(a);
        free(b);
    } else if (ok && kc == K_REDUCE_CL) {
        uint32_t n = 1000, groups = ref_reduce_groups(n, v);
        float *src = api_rand_floats(&seed, n, -1, 1);
        r->out = calloc(groups, 4);
        r->n = groups;
        want = calloc(groups, 4);
        ref_reduce(src, n, v, want);
        spvjit_set_arg_buffer(k, 0, src, (size_t)n * 4);
        spvjit_set_arg_buffer(k, 1, r->out, (size_t)groups * 4);
        spvjit_set_arg_value(k, 2, &n, 4);
        spvjit_set_arg_local(k, 3, (size_t)v * 4);
        st = spvjit_dispatch(k, &(spvjit_dispatch_info){
                                    .work_dim = 1, .global_size = { (uint64_t)groups * v }, .local_size = { v } });
        bad = api_first_mismatch(r->out, want, groups, 1e-5f, 1e-6f);
        free(src);
    } else if (ok) {
        float a;
        memcpy(&a, &v, 4);
        uint32_t n = 777;
        float *x = api_rand_floats(&seed, n, -4, 4);
        r->out = api_rand_floats(&seed, n, -4, 4);
        r->n = n;
        want = malloc(n * 4);
        memcpy(want, r->out, n * 4);
        ref_saxpy(a, x, want, n, kc == K_SAXPY_COMP);
        if (kc == K_SAXPY_COMP) {
            spvjit_bind_buffer(k, 0, 0, x, n * 4);
            spvjit_bind_buffer(k, 0, 1, r->out, n * 4);
            spvjit_set_push_constants(k, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { (n + 63) / 64, 1, 1 } });
        } else {
            spvjit_set_arg_buffer(k, 0, x, n * 4);
            spvjit_set_arg_buffer(k, 1, r->out, n * 4);
            spvjit_set_arg_value(k, 2, &n, 4);
            st = spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { n } });
        }
        bad = api_first_mismatch(r->out, want, n, 1e-6f, 1e-6f);
        free(x);
    }
    if (ok) {
        CHECK(st == SPVJIT_OK, "%s: dispatch: %s", files[kc], spvjit_last_error());
        CHECK(bad < 0, "%s (%u): out[%ld] = %g, expected %g", files[kc], v, bad, bad < 0 ? 0 : r->out[bad],
              bad < 0 ? 0 : want[bad]);
        /* an auto build stores its optimized code when that arrives; the stats say which code ran */
        CHECK(spvjit_kernel_wait_optimized(k) == SPVJIT_OK, "%s: optimized tier: %s", files[kc], spvjit_last_error());
        spvjit_kernel_stats_get(k, &r->stats); /* after the dispatch: local sizes chosen there count */
        ok = st == SPVJIT_OK && bad < 0;
    }
    free(want);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(s);
    spvjit_module_destroy(m);
    return ok;
}

static uint32_t f32bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* --- tests -------------------------------------------------------------------------------------- */

TEST(api_disk_cache_fresh_context_loads_identical_code)
{
    char *dir = test_temp_dir("diskk-test");
    REQUIRE(dir, "mkdtemp");
    static const struct {
        kernel_case kc;
        const char *name;
        float v;
        bool barriers;
    } cases[] = {
        { K_MM_COMP, "mm.comp (regions)", 16, true },
        { K_REDUCE_CL, "reduce.cl (regions, local size at dispatch)", 32, true },
        { K_SAXPY_COMP, "saxpy.comp (barrier-free)", 1.625f, false },
        { K_SAXPY_CL, "saxpy.cl (barrier-free, local size at dispatch)", -0.75f, false },
    };
    spvjit_context *plain = api_ctx(0); /* no disk cache: the fresh compile to compare with */
    REQUIRE(plain, "context");
    for (int i = 0; i < 4; i++) {
        uint32_t v =
            (cases[i].kc == K_SAXPY_COMP || cases[i].kc == K_SAXPY_CL) ? f32bits(cases[i].v) : (uint32_t)cases[i].v;
        uint64_t seed = 1000 + (uint64_t)i;
        run_out cold, warm, fresh;
        spvjit_context *a = disk_ctx(dir), *b = disk_ctx(dir);
        REQUIRE(a && b, "contexts");
        bool ok = run_case(a, cases[i].kc, v, seed, &cold);
        CHECK(!cold.stats.from_cache && cold.stats.local_size[0] && cold.stats.total_ms > 0 &&
                  cold.stats.uses_barriers == cases[i].barriers,
              "%s: cold build stats (from_cache %d, local size %u)", cases[i].name, cold.stats.from_cache,
              cold.stats.local_size[0]);
        CHECK(cache_files(dir, NULL, 0) == i + 1, "%s: %d cache files", cases[i].name, cache_files(dir, NULL, 0));
        ok = run_case(b, cases[i].kc, v, seed, &warm) && ok;
        CHECK(warm.stats.from_cache, "%s: a fresh context on the same directory compiled again", cases[i].name);
        CHECK(warm.stats.passes_ms == 0 && warm.stats.local_size[0] == cold.stats.local_size[0] &&
                  warm.stats.wg_memory_bytes == cold.stats.wg_memory_bytes,
              "%s: disk-loaded stats", cases[i].name);
        ok = run_case(plain, cases[i].kc, v, seed, &fresh) && ok;
        if (ok)
            CHECK(warm.n == fresh.n && !memcmp(warm.out, fresh.out, warm.n * 4) &&
                      !memcmp(cold.out, fresh.out, cold.n * 4),
                  "%s: disk-loaded code computes other bits than a "
                  "fresh compile",
                  cases[i].name);
        free(cold.out);
        free(warm.out);
        free(fresh.out);
        spvjit_context_destroy(a);
        spvjit_context_destroy(b);
    }
    spvjit_context_destroy(plain);
    test_remove_dir(dir);
    free(dir);
}

TEST(api_disk_cache_corrupt_file_is_rebuilt)
{
    char *dir = test_temp_dir("diskk-test");
    REQUIRE(dir, "mkdtemp");
    run_out r;
    spvjit_context *a = disk_ctx(dir);
    REQUIRE(a, "context");
    run_case(a, K_MM_COMP, 8, 7, &r);
    free(r.out);
    spvjit_context_destroy(a);
    char path[1024];
    REQUIRE(cache_files(dir, path, sizeof path) == 1, "one cache file");
    struct stat st;
    REQUIRE(stat(path, &st) == 0 && st.st_size > 1000, "cache file size");

    /* a byte in the object, then a cut-off file: ignored, compiled again, the file rebuilt */
    for (int damage = 0; damage < 2; damage++) {
        if (damage == 0) {
            FILE *f = fopen(path, "r+b");
            REQUIRE(f, "open %s", path);
            fseek(f, st.st_size / 2, SEEK_SET);
            int c = fgetc(f);
            fseek(f, st.st_size / 2, SEEK_SET);
            fputc(c ^ 0x24, f);
            fclose(f);
        } else {
            REQUIRE(truncate(path, st.st_size - 100) == 0, "truncate");
        }
        spvjit_context *b = disk_ctx(dir);
        CHECK(run_case(b, K_MM_COMP, 8, 8, &r), "damage %d: results", damage);
        CHECK(!r.stats.from_cache, "damage %d: a damaged file was used", damage);
        free(r.out);
        spvjit_context_destroy(b);
        struct stat st2;
        CHECK(stat(path, &st2) == 0 && st2.st_size == st.st_size, "damage %d: the file was not rebuilt", damage);
        spvjit_context *c = disk_ctx(dir);
        CHECK(run_case(c, K_MM_COMP, 8, 9, &r) && r.stats.from_cache, "damage %d: the rebuilt file misses", damage);
        free(r.out);
        spvjit_context_destroy(c);
    }
    test_remove_dir(dir);
    free(dir);
}

TEST(api_disk_cache_other_values_or_host_miss)
{
    char *dir = test_temp_dir("diskk-test");
    REQUIRE(dir, "mkdtemp");
    run_out r;
    spvjit_context *a = disk_ctx(dir);
    REQUIRE(a, "context");
    CHECK(run_case(a, K_MM_COMP, 16, 1, &r) && !r.stats.from_cache, "first build");
    free(r.out);
    spvjit_context_destroy(a);

    spvjit_context *b = disk_ctx(dir);
    CHECK(run_case(b, K_MM_COMP, 8, 2, &r) && !r.stats.from_cache, "BS=8 is not BS=16's code");
    free(r.out);
    spvjit_context_destroy(b);
    CHECK(cache_files(dir, NULL, 0) == 2, "two files: %d", cache_files(dir, NULL, 0));

    /* the same module and values on "another CPU": a miss, and a file of its own */
    disk_cache_set_host_id_for_tests("cpu=fake-cpu;features=+sse2,-avx;spvjit=0.1.0;llvm=19.1.0");
    spvjit_context *c = disk_ctx(dir);
    CHECK(run_case(c, K_MM_COMP, 16, 3, &r) && !r.stats.from_cache, "another host's code was used");
    free(r.out);
    spvjit_context_destroy(c);
    CHECK(cache_files(dir, NULL, 0) == 3, "three files: %d", cache_files(dir, NULL, 0));
    disk_cache_set_host_id_for_tests(NULL);

    spvjit_context *d = disk_ctx(dir);
    CHECK(run_case(d, K_MM_COMP, 16, 4, &r) && r.stats.from_cache, "the real host's file misses");
    free(r.out);
    spvjit_context_destroy(d);
    test_remove_dir(dir);
    free(dir);
}

/* Cold compile vs disk load vs memory hit of the seed mm (printed, not asserted). */
TEST(api_disk_cache_mm_timings)
{
    char *dir = test_temp_dir("diskk-test");
    REQUIRE(dir, "mkdtemp");
    run_out cold, disk, mem;
    spvjit_context *a = disk_ctx(dir), *b = disk_ctx(dir);
    REQUIRE(a && b, "contexts");
    bool ok = run_case(a, K_MM_COMP, 16, 5, &cold);
    ok = run_case(b, K_MM_COMP, 16, 5, &disk) && ok;
    ok = run_case(b, K_MM_COMP, 16, 5, &mem) && ok;
    CHECK(ok && !cold.stats.from_cache && disk.stats.from_cache && mem.stats.from_cache, "cache path");
    printf("  mm.comp BS=16: cold compile %.1f ms, disk load %.2f ms (link %.2f), memory hit %.1f us\n", cold.build_ms,
           disk.build_ms, disk.stats.codegen_ms, mem.build_ms * 1e3);
    free(cold.out);
    free(disk.out);
    free(mem.out);
    spvjit_context_destroy(a);
    spvjit_context_destroy(b);
    test_remove_dir(dir);
    free(dir);
}

/* --- many processes on one directory ---------------------------------------------------------- */

/* The floats `spvjit run --print` wrote after its "binding" line, into v (up to n); how many. */
static size_t printed_floats(const char *out, float *v, size_t n)
{
    const char *p = out ? strstr(out, "binding 0:1") : NULL;
    p = p ? strchr(p, '\n') : NULL;
    size_t k = 0;
    while (p && k < n) {
        char *end;
        float f = strtof(p, &end);
        if (end == p) {
            p++;
            while (*p == ' ' || *p == '\n')
                p++;
            if (!*p || !(*p == '-' || (*p >= '0' && *p <= '9')))
                break;
            continue;
        }
        v[k++] = f;
        p = end;
    }
    return k;
}

/* 20 processes fill one cache directory at once (4 keys, 5 writers each), then
 * 20 more load it: every result is right, every second-wave build is a disk
 * hit, and the directory holds 4 whole entries and no temporary file. */
TEST_TIER_FREE(api_disk_cache_twenty_processes)
{
    const char *bin = getenv("SPVJIT_BIN");
    REQUIRE(bin && *bin, "SPVJIT_BIN is not set");
    char *dir = test_temp_dir("disk-procs");
    REQUIRE(dir, "mkdtemp");
    static const float as[4] = { 0.5f, 1.5f, 2.5f, -3.0f };
    enum { N = 256, PROCS = 20 };
    for (int wave = 0; wave < 2; wave++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && for i in $(seq 0 %d); do "
                 "case $((i %% 4)) in 0) a=%g;; 1) a=%g;; 2) a=%g;; 3) a=%g;; esac; "
                 "(XDG_CACHE_HOME='%s' SPVJIT_TIER=opt '%s' run '%s' -D 0=$a --groups %d,1,1 "
                 "--buffer 0:0=iota:f32:%d --buffer 0:1=const:f32:1:%d --push u32:%d --print 0:1:f32 --repeat 1 "
                 "> out.$i 2>&1; echo $? > rc.$i) & done; wait",
                 dir, PROCS - 1, as[0], as[1], as[2], as[3], dir, bin, test_data_path("kernels/saxpy.comp.spv"), N / 64,
                 N, N, N);
        char *ignored = NULL;
        test_run_capture(cmd, &ignored);
        free(ignored);
        for (int i = 0; i < PROCS; i++) {
            char path[800];
            snprintf(path, sizeof path, "%s/rc.%d", dir, i);
            char *rc = test_read_file(path, NULL);
            snprintf(path, sizeof path, "%s/out.%d", dir, i);
            char *out = test_read_file(path, NULL);
            float got[N];
            size_t k = printed_floats(out, got, N);
            long bad = -1;
            for (size_t j = 0; j < N && bad < 0; j++)
                if (k != N || got[j] != as[i % 4] * (float)j + 1.0f)
                    bad = (long)j;
            CHECK(rc && atoi(rc) == 0 && bad < 0, "wave %d process %d: exit %s, %zu values, first wrong at %ld: %.300s",
                  wave, i, rc ? rc : "?", k, bad, out ? out : "");
            CHECK(wave == 0 || (out && strstr(out, "cache hit")), "wave 2 process %d compiled again: %.200s", i,
                  out ? out : "");
            free(rc);
            free(out);
        }
    }
    char sub[700];
    snprintf(sub, sizeof sub, "%s/spvjit", dir);
    DIR *d = opendir(sub);
    int entries = 0, others = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".kobj"))
            entries++;
        else
            others++;
    }
    if (d)
        closedir(d);
    CHECK(entries == 4 && others == 0, "%d entries (4 keys) and %d other files in the cache", entries, others);
    test_remove_dir(dir);
    free(dir);
}
