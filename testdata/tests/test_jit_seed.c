/* testdata/tests/test_jit_seed.c — the seed kernels (testdata/kernels) through
 * the JIT, both flavours, specialized and unspecialized, against the plain C
 * references of testdata/kernels/reference.h on random inputs; each runs on
 * the scalar path (simd off, at the suite's tier) and with sub-groups as SIMD
 * lanes (on the optimized tier: the quick one runs these kernels, which cannot
 * observe their sub-groups, one work-item at a time), and the two give the
 * same bits (their arithmetic is the same: no sub-group operation reorders a
 * floating-point sum).  Also: the other JIT tests on the scalar path (a child
 * run with SPVJIT_TEST_SIMD=off). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "test_jit_util.h"
#include "testdata/kernels/reference.h"

static float *rand_floats(uint64_t *s, size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = test_rand_float(s, -2.0f, 2.0f);
    return p;
}

/* The path the current run takes, and the scalar path's output to compare with. */
static jit_simd g_simd;
static jit_tier g_tier;
static void *g_scalar_out;

/* Runs call on the scalar path, then with SIMD lanes. */
#define BOTH_PATHS(call)                                                                                               \
    do {                                                                                                               \
        g_simd = JIT_SIMD_OFF;                                                                                         \
        g_tier = JIT_TIER_AUTO;                                                                                        \
        call;                                                                                                          \
        g_simd = JIT_SIMD_AUTO;                                                                                        \
        g_tier = JIT_TIER_OPT;                                                                                         \
        call;                                                                                                          \
        free(g_scalar_out);                                                                                            \
        g_scalar_out = NULL;                                                                                           \
    } while (0)

/* The scalar path keeps its output; the SIMD path's must have the same bits. */
static void same_on_both_paths(const char *what, const jit_kernel *k, const float *out, size_t n)
{
    if (g_simd == JIT_SIMD_OFF) {
        CHECK(spvjit_kernel_facts_of(k)->subgroup_size == 1, "%s: simd off runs sub-groups of %u", what,
              spvjit_kernel_facts_of(k)->subgroup_size);
        free(g_scalar_out);
        g_scalar_out = malloc(n * 4);
        memcpy(g_scalar_out, out, n * 4);
        return;
    }
    CHECK(spvjit_kernel_facts_of(k)->subgroup_size > 1, "%s: not vectorized", what);
    if (!g_scalar_out)
        return;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&out[i], (const float *)g_scalar_out + i, 4)) {
            CHECK(0, "%s: sub-groups of %u give %.9g at %zu, the scalar path %.9g", what,
                  spvjit_kernel_facts_of(k)->subgroup_size, out[i], i, ((const float *)g_scalar_out)[i]);
            return;
        }
}

static uint64_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* saxpy, Shader flavour: buffers by slot (set 0 binding 0, 1), n in push constants. */
static void saxpy_comp(bool unspec)
{
    spv_module *m = tj_load("kernels/saxpy.comp.spv");
    REQUIRE(m, "load");
    const float a = 1.75f;
    uint32_t id = 0;
    uint64_t bits = fbits(a);
    spv_module *sm = unspec ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = { .unspecialized = unspec, .opt_level = 3, .simd = g_simd, .tier = g_tier };
    jit_kernel *k = tj_compile(sm, NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    CHECK(f->nresources == 2 && f->nslots == 2 && f->push_constant_size == 4, "facts");
    CHECK(f->local_size[0] == 64 && !f->uses_barriers, "local size");
    uint64_t s = 42;
    uint32_t n = 1000;
    float *x = rand_floats(&s, n), *y = rand_floats(&s, n + 64), *ref = malloc((n + 64) * 4);
    memcpy(ref, y, (n + 64) * 4);
    ref_saxpy(a, x, ref, n, true); /* saxpy.comp: contracted */
    void *args[2] = { x, y };
    uint64_t sizes[2] = { n * 4ull, (n + 64) * 4ull };
    uint64_t *spec = unspec ? tj_spec_slots(m, k, &id, &bits, 1) : NULL;
    tj_dispatch d = { .args = args,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .spec_values = spec,
                      .groups = { (n + 63) / 64, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < n + 64; i++)
        bad += !tj_close(y[i], ref[i], 1e-6f);
    CHECK(bad == 0, "%d of %u wrong (y[0]=%g ref %g)", bad, n, y[0], ref[0]);
    same_on_both_paths("saxpy.comp", k, y, n + 64);
    free(x);
    free(y);
    free(ref);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_saxpy_comp_specialized)
{
    BOTH_PATHS(saxpy_comp(false));
}
TEST(jit_saxpy_comp_unspecialized)
{
    BOTH_PATHS(saxpy_comp(true));
}

/* saxpy, Kernel flavour: args[i] point to the argument values. */
static void saxpy_cl(bool unspec, uint32_t local)
{
    spv_module *m = tj_load("kernels/saxpy.cl.spv");
    REQUIRE(m, "load");
    const float a = -0.5f;
    uint32_t id = 0;
    uint64_t bits = fbits(a);
    spv_module *sm = unspec ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = {
        .unspecialized = unspec, .opt_level = 3, .local_size = { local, 1, 1 }, .simd = g_simd, .tier = g_tier
    };
    jit_kernel *k = tj_compile(sm, "saxpy", &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    CHECK(f->is_kernel && f->nparams == 3, "facts: %u params", f->nparams);
    CHECK(f->params[0].kind == SPVJIT_PARAM_GLOBAL_PTR && f->params[2].kind == SPVJIT_PARAM_VALUE &&
              f->params[2].size == 4,
          "param kinds");
    uint64_t s = 7;
    uint32_t n = 1001; /* not a multiple of the local size: a partial last group */
    float *x = rand_floats(&s, n), *y = rand_floats(&s, n), *ref = malloc(n * 4);
    memcpy(ref, y, n * 4);
    ref_saxpy(a, x, ref, n, false); /* saxpy.cl */
    void *args[3] = { &x, &y, &n };
    uint64_t *spec = unspec ? tj_spec_slots(m, k, &id, &bits, 1) : NULL;
    tj_dispatch d = { .args = args, .spec_values = spec, .work_dim = 1, .global_size = { n, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += !tj_close(y[i], ref[i], 1e-6f);
    CHECK(bad == 0, "%d of %u wrong", bad, n);
    same_on_both_paths("saxpy.cl", k, y, n);
    free(x);
    free(y);
    free(ref);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_saxpy_cl_specialized)
{
    BOTH_PATHS(saxpy_cl(false, 64));
}
TEST(jit_saxpy_cl_unspecialized)
{
    BOTH_PATHS(saxpy_cl(true, 32));
}

/* mm: barriers and work-group memory; BS specialized or read at run time. */
static void mm_run(const char *file, bool unspec, uint32_t bs, uint32_t n)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    uint32_t id = 0;
    uint64_t bits = bs;
    spv_module *sm = unspec ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_shape_value shape = { 0, bs };
    spvjit_options o = { .unspecialized = unspec,
                         .opt_level = 3,
                         .shape_values = &shape,
                         .nshape_values = 1,
                         .simd = g_simd,
                         .tier = g_tier };
    if (cl) {
        o.local_size[0] = o.local_size[1] = bs;
        o.local_size[2] = 1;
    }
    jit_kernel *k = tj_compile(sm, cl ? "mm" : NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    CHECK(f->uses_barriers && f->nbarrier_sites == 2, "barriers: %d sites %u", f->uses_barriers, f->nbarrier_sites);
    CHECK(f->local_size[0] == bs && f->local_size[1] == bs, "local size %u", f->local_size[0]);
    CHECK(f->wg_mem_size >= (cl ? 8192u : 8u * bs * bs), "wg memory %llu", (unsigned long long)f->wg_mem_size);
    uint64_t s = 99;
    float *a = rand_floats(&s, n * n), *b = rand_floats(&s, n * n), *c = calloc(n * n, 4), *ref = malloc(n * n * 4);
    ref_mm(a, b, ref, n, !cl);
    uint64_t *spec = unspec ? tj_spec_slots(m, k, &id, &bits, 1) : NULL;
    uint32_t groups = (n + bs - 1) / bs;
    void *sargs[3] = { a, b, c };
    void *kargs[4] = { &a, &b, &c, &n };
    uint64_t sizes[4] = { n * n * 4ull, n * n * 4ull, n * n * 4ull, sizeof n }; /* Kernel: one per argument */
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .spec_values = spec,
                      .groups = { groups, groups, 1 },
                      .work_dim = 2,
                      .global_size = { groups * bs, groups * bs, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < n * n; i++)
        bad += !tj_close(c[i], ref[i], 1e-4f);
    CHECK(bad == 0, "%s bs %u n %u: %d of %u wrong (c[0]=%g ref %g)", file, bs, n, bad, n * n, c[0], ref[0]);
    same_on_both_paths(file, k, c, n * n);
    free(a);
    free(b);
    free(c);
    free(ref);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_mm_comp_specialized)
{
    BOTH_PATHS(mm_run("kernels/mm.comp.spv", false, 8, 37));
}
TEST(jit_mm_comp_unspecialized)
{
    BOTH_PATHS(mm_run("kernels/mm.comp.spv", true, 4, 30));
}
TEST(jit_mm_cl_specialized)
{
    BOTH_PATHS(mm_run("kernels/mm.cl.spv", false, 8, 37));
}
TEST(jit_mm_cl_unspecialized)
{
    BOTH_PATHS(mm_run("kernels/mm.cl.spv", true, 4, 30));
}

/* reduce: a tree reduction with barriers; partial sums checked against ref_reduce. */
static void reduce_run(const char *file, bool unspec, uint32_t wg)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    uint32_t id = 0;
    uint64_t bits = wg;
    spv_module *sm = (unspec || cl) ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_shape_value shape = { 0, wg };
    spvjit_options o = { .unspecialized = unspec,
                         .opt_level = 3,
                         .shape_values = &shape,
                         .nshape_values = !cl,
                         .simd = g_simd,
                         .tier = g_tier };
    if (cl)
        o.local_size[0] = wg, o.local_size[1] = o.local_size[2] = 1;
    jit_kernel *k = tj_compile(sm, cl ? "reduce" : NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t s = 5;
    uint32_t n = 3 * wg + 17, ng = ref_reduce_groups(n, wg);
    float *src = rand_floats(&s, n), *part = calloc(ng, 4), *ref = calloc(ng, 4);
    ref_reduce(src, n, wg, ref);
    uint64_t *spec = (unspec && !cl) ? tj_spec_slots(m, k, &id, &bits, 1) : NULL;
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    uint64_t local_off = tj_local_offset(k);
    void *sargs[2] = { src, part };
    void *kargs[4] = { &src, &part, &n, &local_off };
    uint64_t sizes[4] = { n * 4ull, ng * 4ull, sizeof n, wg * 4ull }; /* Kernel: one per argument */
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .spec_values = spec,
                      .groups = { ng, 1, 1 },
                      .work_dim = 1,
                      .global_size = { (uint64_t)ng * wg, 1, 1 } };
    if (cl) {
        REQUIRE(f->nparams == 4 && f->params[3].kind == SPVJIT_PARAM_LOCAL_PTR, "local param");
        d.extra_wg_mem = tj_local_extra(k, wg * 4ull); /* the __local block after the static memory */
    }
    REQUIRE(tj_run(k, &d) == 0, "run");
    {
        int bad = 0;
        for (uint32_t i = 0; i < ng; i++)
            bad += !tj_close(part[i], ref[i], 1e-5f);
        CHECK(bad == 0, "%d of %u partial sums wrong (%g vs %g)", bad, ng, part[0], ref[0]);
    }
    same_on_both_paths(file, k, part, ng);
    free(src);
    free(part);
    free(ref);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_reduce_comp_specialized)
{
    BOTH_PATHS(reduce_run("kernels/reduce.comp.spv", false, 64));
}
TEST(jit_reduce_comp_unspecialized)
{
    BOTH_PATHS(reduce_run("kernels/reduce.comp.spv", true, 32));
}
TEST(jit_reduce_cl)
{
    BOTH_PATHS(reduce_run("kernels/reduce.cl.spv", false, 64));
}

/* One conv3x3 case: a w x h image, the .cl at local size lx x ly. */
typedef struct conv_case {
    uint32_t w, h, lx, ly;
    jit_memory memory;
    float kv[9];
} conv_case;

static void conv_run_case(const char *file, bool unspec, const conv_case *c);

/* conv3x3: spec composites with dynamic vector indexing (.comp), a Function
 * array and OpenCL.std s_clamp (.cl). */
static void conv_run(const char *file, bool unspec)
{
    conv_case c = { 37, 21, 8, 8, JIT_MEMORY_ROBUST, { 0.5f, 0, -1.0f, 0.25f, 2.0f, 0, 0, 0.125f, -0.75f } };
    conv_run_case(file, unspec, &c);
}

static void conv_run_case(const char *file, bool unspec, const conv_case *c)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    const float *kv = c->kv;
    uint32_t ids[9];
    uint64_t bits[9];
    for (int i = 0; i < 9; i++) {
        ids[i] = (uint32_t)i;
        bits[i] = fbits(kv[i]);
    }
    spv_module *sm = unspec ? m : tj_specialize(m, ids, bits, 9);
    REQUIRE(sm, "specialize");
    spvjit_options o = { .unspecialized = unspec, .opt_level = 3, .simd = g_simd, .tier = g_tier, .memory = c->memory };
    if (cl)
        o.local_size[0] = c->lx, o.local_size[1] = c->ly, o.local_size[2] = 1;
    jit_kernel *k = tj_compile(sm, cl ? "conv3x3" : NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t s = 11 + c->w * 131 + c->h;
    uint32_t w = c->w, h = c->h, wh[2] = { c->w, c->h };
    uint32_t lx = cl ? c->lx : 16, ly = cl ? c->ly : 16;
    float *src = rand_floats(&s, w * h), *dst = calloc(w * h, 4), *ref = malloc(w * h * 4);
    ref_conv3x3(src, ref, w, h, kv, !cl);
    uint64_t *spec = unspec ? tj_spec_slots(m, k, ids, bits, 9) : NULL;
    void *sargs[2] = { src, dst };
    void *kargs[4] = { &src, &dst, &w, &h };
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .push = wh,
                      .spec_values = spec,
                      .groups = { (w + lx - 1) / lx, (h + ly - 1) / ly, 1 },
                      .work_dim = 2,
                      .global_size = { w, h, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (uint32_t i = 0; i < w * h; i++)
        bad += !tj_close(dst[i], ref[i], 1e-5f);
    CHECK(bad == 0, "%s %ux%u (local %ux%u, memory %d): %d of %u wrong (%g vs %g)", file, w, h, lx, ly, (int)c->memory,
          bad, w * h, dst[0], ref[0]);
    same_on_both_paths(file, k, dst, w * h);
    free(src);
    free(dst);
    free(ref);
    free(spec);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(jit_conv3x3_comp_specialized)
{
    BOTH_PATHS(conv_run("kernels/conv3x3.comp.spv", false));
}
TEST(jit_conv3x3_comp_unspecialized)
{
    BOTH_PATHS(conv_run("kernels/conv3x3.comp.spv", true));
}
TEST(jit_conv3x3_cl_specialized)
{
    BOTH_PATHS(conv_run("kernels/conv3x3.cl.spv", false));
}
TEST(jit_conv3x3_cl_unspecialized)
{
    BOTH_PATHS(conv_run("kernels/conv3x3.cl.spv", true));
}

/* Clamped stencils at the image's edges: images narrower than a sub-group,
 * one pixel, odd sizes, rows that end inside a sub-group (the .cl at local
 * sizes whose rows are not a multiple of the sub-group, or span several rows
 * in one), random data and coefficients with zeros, unchecked and robust,
 * the SIMD path bit for bit as the scalar one and both against C. */
TEST(jit_conv3x3_image_edges)
{
    static const uint32_t sizes[][2] = { { 1, 1 }, { 2, 3 }, { 15, 2 }, { 16, 16 }, { 17, 5 }, { 33, 17 }, { 50, 3 } };
    static const uint32_t locals[][2] = { { 16, 2 }, { 5, 3 }, { 32, 1 } };
    static const jit_memory modes[2] = { JIT_MEMORY_UNCHECKED, JIT_MEMORY_ROBUST };
    uint64_t rng = 77;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] && !test_failed_now(); si++)
        for (int mi = 0; mi < 2 && !test_failed_now(); mi++) {
            conv_case c = { sizes[si][0], sizes[si][1], locals[si % 3][0], locals[si % 3][1], modes[mi], { 0 } };
            for (int t = 0; t < 9; t++) /* about a third of the taps zero */
                c.kv[t] = test_rand_u64(&rng) % 3 == 0 ? 0.0f : (float)(int)(test_rand_u64(&rng) % 17 - 8) / 8.0f;
            BOTH_PATHS(conv_run_case("kernels/conv3x3.comp.spv", false, &c));
            BOTH_PATHS(conv_run_case("kernels/conv3x3.cl.spv", false, &c));
        }
}

/* One child run of the tests on the scalar path (jit_tests_on_the_scalar_path). */
struct scalar_run {
    const char *tests; /* the child's NAME arguments */
    char cmd[4400];
    char *out;
    int status;
};

static void *run_scalar(void *arg)
{
    struct scalar_run *r = arg;
    r->status = test_run_capture(r->cmd, &r->out);
    return NULL;
}

/* The other JIT tests, their kernels compiled on the scalar path (the
 * defaults they leave become simd off), pass against the same references.
 * Two children, each half of the tests, run at once: they share nothing. */
TEST(jit_tests_on_the_scalar_path)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    REQUIRE(n > 0, "readlink /proc/self/exe");
    exe[n] = 0;
    struct scalar_run runs[2] = { { .tests = "jit_cl_ jit_glsl_ jit_alu_" },
                                  { .tests = "jit_ir_ jit_spec_ regions_" } };
    for (int i = 0; i < 2; i++)
        snprintf(runs[i].cmd, sizeof runs[i].cmd, "SPVJIT_TEST_SIMD=off '%s' %s %s 2>&1", exe,
                 test_tier_dependent_only() ? "--tier-dependent" : "", runs[i].tests);
    pthread_t second;
    bool threaded = !pthread_create(&second, NULL, run_scalar, &runs[1]);
    run_scalar(&runs[0]);
    if (threaded)
        pthread_join(second, NULL);
    else
        run_scalar(&runs[1]);
    for (int i = 0; i < 2; i++) {
        const char *out = runs[i].out, *sum = out ? strstr(out, " passed, ") : NULL, *num = sum;
        while (num && num > out && num[-1] >= '0' && num[-1] <= '9')
            num--;
        int passed = num && num != sum ? atoi(num) : 0;
        CHECK(runs[i].status == 0 && sum && !strncmp(sum, " passed, 0 failed", 17) && passed >= 5,
              "the JIT tests %s with SPVJIT_TEST_SIMD=off: exit %d, %d passed:\n%.3000s", runs[i].tests, runs[i].status,
              passed, out ? out : "");
        free(runs[i].out);
    }
}
