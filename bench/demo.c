/* bench/demo.c — `make demo`: the project's point on one screen.
 *
 * The seed blocked matrix multiply (testdata/kernels/mm.comp.spv, spec id 0 =
 * block size BS) at N = 1024, compiled twice through the public API: with BS
 * specialized to 16 (a literal: the inner loop unrolls and vectorizes) and
 * unspecialized (BS read at run time).  Both are checked against the plain C
 * reference; the run times are medians of a few dispatches.
 *
 *   demo [MODULE.spv] [N] [RUNS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/spvjit.h"
#include "testdata/kernels/reference.h"

#define BS 16u

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    double build_ms, run_ms, max_rel_err;
    bool ok;
} result;

static int fail(const char *what)
{
    fprintf(stderr, "demo: %s: %s\n", what, spvjit_last_error());
    return 1;
}

/* Builds mm with BS (specialized or not), runs it `runs` times, checks it. */
static int run_variant(spvjit_module *m, bool unspecialized, uint32_t n, int runs, const float *a, const float *b,
                       const float *want, result *r)
{
    spvjit_specs *specs;
    spvjit_specs_create(&specs);
    spvjit_spec_set_u32(specs, 0, BS);
    spvjit_kernel *k = NULL;
    double t0 = now_ms();
    /* the optimized tier: the compile column is what the runs run */
    spvjit_build_options bo = { .unspecialized = unspecialized, .tier = SPVJIT_TIER_OPT };
    spvjit_status st = spvjit_kernel_build(m, "main", specs, &bo, &k);
    r->build_ms = now_ms() - t0;
    spvjit_specs_destroy(specs);
    if (st != SPVJIT_OK)
        return fail("build");
    size_t nn = (size_t)n * n;
    float *c = calloc(nn, sizeof *c);
    spvjit_bind_buffer(k, 0, 0, (void *)a, nn * 4);
    spvjit_bind_buffer(k, 0, 1, (void *)b, nn * 4);
    spvjit_bind_buffer(k, 0, 2, c, nn * 4);
    spvjit_set_push_constants(k, &n, sizeof n);
    uint32_t groups = (n + BS - 1) / BS;
    spvjit_dispatch_info d = { .groups = { groups, groups, 1 } };
    double *times = calloc((size_t)runs, sizeof *times);
    for (int i = 0; i < runs && st == SPVJIT_OK; i++) {
        memset(c, 0, nn * 4);
        t0 = now_ms();
        st = spvjit_dispatch(k, &d);
        times[i] = now_ms() - t0;
    }
    if (st != SPVJIT_OK) {
        free(c);
        free(times);
        spvjit_kernel_destroy(k);
        return fail("dispatch");
    }
    qsort(times, (size_t)runs, sizeof *times, cmp_double);
    r->run_ms = times[runs / 2];
    r->max_rel_err = 0;
    r->ok = true;
    for (size_t i = 0; i < nn; i++) {
        double e = fabs((double)c[i] - want[i]) / fmax(fabs((double)want[i]), 1e-3);
        if (!(e <= 1e-4))
            r->ok = false;
        if (e > r->max_rel_err || e != e)
            r->max_rel_err = e;
    }
    free(c);
    free(times);
    spvjit_kernel_destroy(k);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "testdata/kernels/mm.comp.spv";
    uint32_t n = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 1024;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    if (n == 0 || runs < 1)
        return fprintf(stderr, "usage: demo [MODULE.spv] [N] [RUNS]\n"), 2;

    spvjit_context *ctx;
    spvjit_module *m;
    if (spvjit_context_create(&(spvjit_context_options){ .disk_cache_dir = "" }, &ctx) != SPVJIT_OK)
        return fail("context");
    if (spvjit_module_load_file(ctx, path, &m) != SPVJIT_OK)
        return fail("load");

    size_t nn = (size_t)n * n;
    float *a = malloc(nn * 4), *b = malloc(nn * 4), *want = malloc(nn * 4);
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < nn; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        a[i] = (float)((s * 0x2545F4914F6CDD1Dull) >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        b[i] = (float)((s * 0x2545F4914F6CDD1Dull) >> 40) / (float)(1 << 24) * 2.0f - 1.0f;
    }
    printf("spvjit %s demo: blocked matrix multiply C = A*B, N = %u, block size BS = %u\n", spvjit_version(), n, BS);
    printf("module %s (spec id 0 = BS: work-group size and tile length)\n\n", path);
    double t0 = now_ms();
    ref_mm(a, b, want, n, !strstr(path, ".cl")); /* a Shader module's contract (jit/contract.h) */
    double ref_ms = now_ms() - t0;

    result spec, unspec;
    if (run_variant(m, false, n, runs, a, b, want, &spec) || run_variant(m, true, n, runs, a, b, want, &unspec))
        return 1;

    /* The same values again: a cache lookup, not a compile. */
    spvjit_specs *specs;
    spvjit_specs_create(&specs);
    spvjit_spec_set_u32(specs, 0, BS);
    spvjit_kernel *k = NULL;
    t0 = now_ms();
    spvjit_kernel_build(m, "main", specs, NULL, &k);
    double hit_ms = now_ms() - t0;
    spvjit_kernel_stats ks = { 0 };
    spvjit_kernel_stats_get(k, &ks);
    spvjit_kernel_destroy(k);
    spvjit_specs_destroy(specs);

    double gflop = 2.0 * n * (double)n * n / 1e9;
    printf("%-26s %12s %16s %9s   %s\n", "", "compile", "run (median)", "GFLOP/s", "vs C reference");
    printf("%-26s %9.1f ms %13.1f ms %9.2f   %s (max rel err %.1e)\n", "specialized (BS = 16)", spec.build_ms,
           spec.run_ms, gflop / (spec.run_ms / 1e3), spec.ok ? "ok" : "WRONG", spec.max_rel_err);
    printf("%-26s %9.1f ms %13.1f ms %9.2f   %s (max rel err %.1e)\n", "unspecialized", unspec.build_ms, unspec.run_ms,
           gflop / (unspec.run_ms / 1e3), unspec.ok ? "ok" : "WRONG", unspec.max_rel_err);
    printf("%-26s %12s %13.1f ms %9.2f   (plain C, one thread)\n", "C reference", "", ref_ms, gflop / (ref_ms / 1e3));
    printf("\nspeedup from specializing: %.2fx    (median of %d runs each)\n", unspec.run_ms / spec.run_ms, runs);
    printf("rebuild with the same values: %.3f ms (%s)\n", hit_ms, ks.from_cache ? "cache hit" : "compiled");

    free(a);
    free(b);
    free(want);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return spec.ok && unspec.ok ? 0 : 1;
}
