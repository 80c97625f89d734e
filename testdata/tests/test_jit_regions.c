/* testdata/tests/test_jit_regions.c — barriers compiled away (jit/regions.h).
 *
 * Every barrier kernel runs through both paths: regions (the default: one
 * wg_range_fn per range of groups, no fibers) and fibers
 * (spvjit_options.barriers = JIT_BARRIER_MODE_FIBERS), on random data against plain C references: the seed kernels mm and reduce, and
 * testdata/jit/regions_* (barriers in loops, in a called function, in nested
 * loops, a work-group scan, a smaller last OpenCL group, uniform loops whose
 * trip counts are push constants / kernel arguments, uniform values stored
 * under varying control).  Divergent kernels must give the executor's error,
 * the same words on both paths.  IR checks: the uniform tile counter of mm and
 * stride of reduce are one slot per group (no gathers, no per-item arrays). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/executor.h"
#include "test_jit_util.h"
#include "testdata/kernels/reference.h"

static float *rand_floats(uint64_t *s, size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = test_rand_float(s, -2.0f, 2.0f);
    return p;
}

static bool near(float a, float b, float tol)
{
    return a == b || (a - b < 0 ? b - a : a - b) <= tol * (1 + (b < 0 ? -b : b));
}

/* The IR after the passes (and before them), kept by the emit hook. */
static char *opt_ir, *raw_ir;
static void keep_ir(void *user, const char *what, const char *text)
{
    (void)user;
    if (!strcmp(what, "opt-ir")) {
        free(opt_ir);
        opt_ir = strdup(text);
    }
    if (!strcmp(what, "ir")) {
        free(raw_ir);
        raw_ir = strdup(text);
    }
}

static unsigned count_of(const char *s, const char *needle)
{
    unsigned n = 0;
    for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Compiles with the given path; checks the facts say which one was taken. */
static jit_kernel *compile_path(const spv_module *m, const char *entry, spvjit_options o, bool fibers)
{
    o.opt_level = 3;
    o.barriers = fibers ? JIT_BARRIER_MODE_FIBERS : JIT_BARRIER_MODE_AUTO;
    jit_kernel *k = tj_compile(m, entry, &o);
    if (!k)
        return NULL;
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    CHECK(f->uses_barriers && f->barrier_regions == !fibers, "%s: barriers %d regions %d",
          fibers ? "fibers" : "regions", f->uses_barriers, f->barrier_regions);
    CHECK(fibers ? (!spvjit_kernel_wg_range_fn(k) && spvjit_kernel_item_fn(k))
                 : (spvjit_kernel_wg_range_fn(k) && !spvjit_kernel_item_fn(k)),
          "%s: exactly one of wg_range_fn / item_fn", fibers ? "fibers" : "regions");
    return k;
}

/* Runs a dispatch through the executor (one thread, so the first failing group
 * is the first one); returns 0 or -1 with the message in diag. */
static int run(const jit_kernel *k, const tj_dispatch *d, spv_diag *diag)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    tj_fallback fb;
    spvjit_exec_kernel ek = tj_exec_kernel(k, d->extra_wg_mem, &fb);
    spvjit_exec_range r = { 0 };
    if (f->is_kernel) {
        r.kind = SPVJIT_RANGE_NDRANGE;
        r.work_dim = d->work_dim;
        for (int i = 0; i < 3; i++)
            r.global_size[i] = i < (int)d->work_dim ? d->global_size[i] : 1;
    } else {
        r.kind = SPVJIT_RANGE_GROUPS;
        memcpy(r.group_count, d->groups, sizeof r.group_count);
    }
    spvjit_exec_data data = { .args = d->args,
                              .arg_sizes = tj_arg_sizes(d),
                              .push_constants = d->push,
                              .spec_values = d->spec_values,
                              .nthreads = 1 };
    diag->msg[0] = 0;
    int rc = spvjit_exec_dispatch(&ek, &r, &data, diag);
    tj_fallback_free(&fb);
    return rc;
}

/* The definition of the machine of a full group in optimized IR (jit/region_loops.c), or NULL. */
static const char *machine_ir(const char *ir)
{
    for (const char *d = ir ? strstr(ir, "\ndefine ") : NULL; d; d = strstr(d + 1, "\ndefine ")) {
        const char *eol = strchr(d + 1, '\n'), *name = strstr(d, "@spvjit.group.full(");
        if (name && (!eol || name < eol))
            return d;
    }
    return NULL;
}

/* --- the seed kernels ------------------------------------------------------------------- */

static void mm_case(const char *file, uint32_t bs, uint32_t n, bool fibers, bool check_vector)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    uint32_t id = 0;
    uint64_t bits = bs;
    spv_module *sm = tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    /* the vector checks are those of the work-item loops (LLVM's loop vectorizer), on the optimized tier */
    spvjit_options o = { .emit = check_vector ? keep_ir : NULL,
                         .emit_opt_ir = check_vector,
                         .simd = check_vector ? JIT_SIMD_OFF : JIT_SIMD_AUTO,
                         .tier = check_vector ? JIT_TIER_OPT : JIT_TIER_AUTO };
    if (cl) {
        o.local_size[0] = o.local_size[1] = bs;
        o.local_size[2] = 1;
    }
    jit_kernel *k = compile_path(sm, cl ? "mm" : NULL, o, fibers);
    REQUIRE(k, "compile: %s", tj_last_error);
    if (check_vector) {
        /* the region loops of a group's machine vectorize across work-items */
        const char *wg = machine_ir(opt_ir);
        CHECK(wg && (strstr(wg, "fmul <") || strstr(wg, "fmul nnan ninf nsz <") || strstr(wg, "@llvm.fmuladd.v")) &&
                  strstr(wg, "x float>"),
              "no vector arithmetic in the group machine");
        /* the tile counter t is uniform (one slot, not one per item): the tile
         * loads at t + tx are contiguous, and no region needs a divergence check */
        CHECK(wg && !strstr(wg, "gather"), "gathers in the group machine (tile loads indexed per item?)");
        CHECK(wg && !strstr(wg, "call void %"), "a divergence check left in the group machine");
        free(opt_ir);
        opt_ir = NULL;
    }
    uint64_t s = 1234 + bs + n;
    float *a = rand_floats(&s, (size_t)n * n), *b = rand_floats(&s, (size_t)n * n);
    float *c = calloc((size_t)n * n, 4), *ref = malloc((size_t)n * n * 4);
    ref_mm(a, b, ref, n, !cl);
    uint32_t groups = (n + bs - 1) / bs;
    void *sargs[3] = { a, b, c };
    void *kargs[4] = { &a, &b, &c, &n };
    uint64_t sizes[3] = { n * n * 4ull, n * n * 4ull, n * n * 4ull };
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .groups = { groups, groups, 1 },
                      .work_dim = 2,
                      .global_size = { groups * bs, groups * bs, 1 } };
    spv_diag diag;
    REQUIRE(run(k, &d, &diag) == 0, "run: %s", diag.msg);
    int bad = 0;
    for (uint32_t i = 0; i < n * n; i++)
        bad += !near(c[i], ref[i], 1e-4f);
    CHECK(bad == 0, "%s bs %u n %u %s: %d of %u wrong", file, bs, n, fibers ? "fibers" : "regions", bad, n * n);
    free(a);
    free(b);
    free(c);
    free(ref);
    spvjit_kernel_free(k);
    spv_module_free(sm);
    spv_module_free(m);
}

TEST_TIER_FREE(regions_mm_comp_bs16_vectorized)
{
    mm_case("kernels/mm.comp.spv", 16, 53, false, true);
}
TEST(regions_mm_comp_bs16_fibers)
{
    mm_case("kernels/mm.comp.spv", 16, 53, true, false);
}
TEST(regions_mm_comp_bs4)
{
    mm_case("kernels/mm.comp.spv", 4, 30, false, false);
}
TEST(regions_mm_cl_bs8)
{
    mm_case("kernels/mm.cl.spv", 8, 37, false, false);
}
TEST(regions_mm_cl_bs8_fibers)
{
    mm_case("kernels/mm.cl.spv", 8, 37, true, false);
}

static void reduce_case(const char *file, uint32_t wg, bool fibers)
{
    spv_module *m = tj_load(file);
    REQUIRE(m, "load");
    bool cl = strstr(file, ".cl") != NULL;
    uint32_t id = 0;
    uint64_t bits = wg;
    spv_module *sm = cl ? m : tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = { 0 };
    if (cl)
        o.local_size[0] = wg, o.local_size[1] = o.local_size[2] = 1;
    jit_kernel *k = compile_path(sm, cl ? "reduce" : NULL, o, fibers);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t s = 77 + wg;
    uint32_t n = 5 * wg + 13, ng = ref_reduce_groups(n, wg);
    float *src = rand_floats(&s, n), *part = calloc(ng, 4), *ref = calloc(ng, 4);
    ref_reduce(src, n, wg, ref);
    uint64_t local_off = tj_local_offset(k);
    void *sargs[2] = { src, part };
    void *kargs[4] = { &src, &part, &n, &local_off };
    uint64_t sizes[4] = { n * 4ull, ng * 4ull, sizeof n, wg * 4ull }; /* Kernel: one per argument */
    tj_dispatch d = { .args = cl ? kargs : sargs,
                      .arg_sizes = sizes,
                      .nargs = TJ_COUNT(sizes),
                      .push = &n,
                      .groups = { ng, 1, 1 },
                      .work_dim = 1,
                      .global_size = { (uint64_t)ng * wg, 1, 1 },
                      .extra_wg_mem = cl ? tj_local_extra(k, wg * 4ull) : 0 };
    spv_diag diag;
    REQUIRE(run(k, &d, &diag) == 0, "run: %s", diag.msg);
    int bad = 0;
    for (uint32_t i = 0; i < ng; i++)
        bad += !near(part[i], ref[i], 1e-5f);
    CHECK(bad == 0, "%s wg %u %s: %d of %u partial sums wrong", file, wg, fibers ? "fibers" : "regions", bad, ng);
    free(src);
    free(part);
    free(ref);
    spvjit_kernel_free(k);
    if (sm != m)
        spv_module_free(sm);
    spv_module_free(m);
}

TEST(regions_reduce_comp)
{
    reduce_case("kernels/reduce.comp.spv", 128, false);
}

/* reduce's stride is uniform: no per-item array but next[] before the passes,
 * every region exit is uniform (no divergence check, no report call after). */
TEST_TIER_FREE(regions_reduce_stride_uniform)
{
    spv_module *m = tj_load("kernels/reduce.comp.spv");
    REQUIRE(m, "load");
    uint32_t id = 0;
    uint64_t bits = 256;
    spv_module *sm = tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    spvjit_options o = { .emit = keep_ir, .emit_ir = true, .emit_opt_ir = true, .tier = JIT_TIER_OPT };
    jit_kernel *k = compile_path(sm, NULL, o, false);
    REQUIRE(k, "compile: %s", tj_last_error);
    const char *wg = machine_ir(opt_ir);
    CHECK(raw_ir && count_of(raw_ir, "alloca [") == 1 && strstr(raw_ir, "%next = alloca ["),
          "per-item arrays besides next[]:\n%s", raw_ir ? raw_ir : "(no IR)");
    CHECK(wg && !strstr(wg, "call void %") && (strstr(wg, "fadd <") || strstr(wg, "fadd nnan ninf nsz <")),
          "the group machine: a divergence check, or no vector adds");
    free(opt_ir);
    free(raw_ir);
    opt_ir = raw_ir = NULL;
    spvjit_kernel_free(k);
    spv_module_free(sm);
    spv_module_free(m);
}
TEST(regions_reduce_comp_fibers)
{
    reduce_case("kernels/reduce.comp.spv", 128, true);
}
TEST(regions_reduce_cl)
{
    reduce_case("kernels/reduce.cl.spv", 32, false);
}

/* --- regions_mix.comp ---------------------------------------------------------------------- */

typedef struct mix_params {
    uint32_t iters, m, mode;
} mix_params;

/* The plain C reference of mode 0 for one group of `ls` items. */
static void ref_mix_group(const float *x, uint32_t ls, const mix_params *p, float *dst, uint32_t *scan)
{
    float *acc = malloc(ls * 4), *sh = malloc(ls * 4), (*priv)[4] = malloc(ls * sizeof *priv);
    for (uint32_t i = 0; i < ls; i++) {
        acc[i] = x[i];
        for (int k = 0; k < 4; k++)
            priv[i][k] = x[i] * (float)(k + 1);
    }
    for (uint32_t it = 0; it < p->iters; it++) {
        memcpy(sh, acc, ls * 4);
        for (uint32_t i = 0; i < ls; i++) {
            float left = sh[(i + ls - 1) % ls];
            priv[i][it % 4] += left;
            acc[i] = acc[i] * 0.5f + left;
        }
    }
    for (uint32_t i = 0; i < ls; i++)
        acc[i] = acc[i] + priv[i][0] + priv[i][1] * 2.0f + priv[i][2] * 3.0f + priv[i][3] * 4.0f;
    for (uint32_t l = 0; l < 3; l++) {
        for (uint32_t j = 0; j < p->m; j++) {
            memcpy(sh, acc, ls * 4);
            for (uint32_t i = 0; i < ls; i++)
                acc[i] += sh[(i + j + 1) % ls] * 0.25f;
        }
        for (uint32_t i = 0; i < ls; i++)
            acc[i] *= 0.5f;
    }
    uint32_t sum = 0;
    for (uint32_t i = 0; i < ls; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        sum += u & 0xFF;
        dst[i] = acc[i];
        scan[i] = sum;
    }
    free(acc);
    free(sh);
    free(priv);
}

typedef struct mix_kernel {
    spv_module *m, *sm;
    jit_kernel *k;
    uint32_t ls;
} mix_kernel;

static bool mix_compile(mix_kernel *mk, uint32_t ls, bool fibers)
{
    mk->ls = ls;
    mk->m = tj_load("jit/regions_mix.comp.spv");
    if (!mk->m)
        return false;
    uint32_t id = 0;
    uint64_t bits = ls;
    mk->sm = tj_specialize(mk->m, &id, &bits, 1);
    mk->k = mk->sm ? compile_path(mk->sm, NULL, (spvjit_options){ 0 }, fibers) : NULL;
    return mk->k != NULL;
}

static void mix_free(mix_kernel *mk)
{
    spvjit_kernel_free(mk->k);
    if (mk->sm)
        spv_module_free(mk->sm);
    if (mk->m)
        spv_module_free(mk->m);
}

/* Runs `groups` groups in `mode`; mode 0 is checked against the reference. */
static int mix_run(mix_kernel *mk, uint32_t groups, uint32_t mode, spv_diag *diag)
{
    uint32_t n = groups * mk->ls;
    uint64_t s = 31 + mk->ls + mode;
    float *x = rand_floats(&s, n), *dst = calloc(n, 4), *rdst = calloc(n, 4);
    uint32_t *scan = calloc(n, 4), *rscan = calloc(n, 4);
    mix_params p = { .iters = 5 + mode, .m = 3, .mode = mode };
    void *args[3] = { x, dst, scan };
    uint64_t sizes[3] = { n * 4ull, n * 4ull, n * 4ull };
    tj_dispatch d = {
        .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .push = &p, .groups = { groups, 1, 1 }
    };
    int rc = run(mk->k, &d, diag);
    if (rc == 0 && mode == 0) {
        for (uint32_t g = 0; g < groups; g++)
            ref_mix_group(x + g * mk->ls, mk->ls, &p, rdst + g * mk->ls, rscan + g * mk->ls);
        int bad = 0, bad_scan = 0;
        for (uint32_t i = 0; i < n; i++) {
            bad += !near(dst[i], rdst[i], 1e-4f);
            bad_scan += scan[i] != rscan[i];
        }
        CHECK(bad == 0 && bad_scan == 0, "ls %u: %d of %u values and %d scans wrong (dst[1] %g ref %g)", mk->ls, bad, n,
              bad_scan, dst[1], rdst[1]);
    }
    free(x);
    free(dst);
    free(rdst);
    free(scan);
    free(rscan);
    return rc;
}

static void mix_case(uint32_t ls)
{
    mix_kernel reg = { 0 }, fib = { 0 };
    REQUIRE(mix_compile(&reg, ls, false) && mix_compile(&fib, ls, true), "compile: %s", tj_last_error);
    spv_diag dr, df;
    CHECK(mix_run(&reg, 3, 0, &dr) == 0, "regions: %s", dr.msg);
    CHECK(mix_run(&fib, 3, 0, &df) == 0, "fibers: %s", df.msg);
    /* divergence: an error, not a hang or a result, worded alike on both paths */
    for (uint32_t mode = 1; mode <= 3; mode++) {
        CHECK(mix_run(&reg, 3, mode, &dr) != 0, "mode %u: regions did not report divergence", mode);
        CHECK(mix_run(&fib, 3, mode, &df) != 0, "mode %u: fibers did not report divergence", mode);
        CHECK(strstr(dr.msg, "barrier divergence in work-group") && !strcmp(dr.msg, df.msg),
              "mode %u:\n  regions: %s\n  fibers:  %s", mode, dr.msg, df.msg);
    }
    char want[128];
    mix_run(&reg, 3, 1, &dr);
    snprintf(want, sizeof want, "%u work-items returned: (%u,0,0)", ls / 2, ls / 2);
    CHECK(strstr(dr.msg, "work-group (0,0,0)") && strstr(dr.msg, want), "mode 1: %s", dr.msg);
    mix_run(&reg, 3, 3, &dr);
    CHECK(strstr(dr.msg, "work-group (1,0,0)") && strstr(dr.msg, "1 work-item returned: (3,0,0)"), "mode 3: %s",
          dr.msg);
    mix_free(&reg);
    mix_free(&fib);
}

TEST(regions_mix_64)
{
    mix_case(64);
}
TEST(regions_mix_24)
{
    mix_case(24);
}

/* --- a smaller last OpenCL group ----------------------------------------------------------- */

static void partial_case(bool fibers)
{
    const uint32_t ls = 16, n = 3 * ls + 5;
    spv_module *m = tj_load("jit/regions_partial.cl.spv");
    REQUIRE(m, "load");
    spvjit_options o = { .local_size = { ls, 1, 1 } };
    jit_kernel *k = compile_path(m, "regions_partial", o, fibers);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t s = 555;
    float *src = rand_floats(&s, n), *dst = calloc(n, 4), *ref = calloc(n, 4);
    for (uint32_t g0 = 0; g0 < n; g0 += ls) {
        uint32_t cnt = n - g0 < ls ? n - g0 : ls;
        float sum = 0;
        for (uint32_t i = 0; i < cnt; i++)
            sum += src[g0 + i];
        for (uint32_t l = 0; l < cnt; l++)
            ref[g0 + cnt - 1 - l] = sum * (float)(l + 1);
    }
    uint64_t off = tj_local_offset(k);
    void *args[3] = { &src, &dst, &off };
    tj_dispatch d = {
        .args = args, .work_dim = 1, .global_size = { n, 1, 1 }, .extra_wg_mem = tj_local_extra(k, ls * 4ull)
    };
    spv_diag diag;
    REQUIRE(run(k, &d, &diag) == 0, "run: %s", diag.msg);
    int bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += !near(dst[i], ref[i], 1e-5f);
    CHECK(bad == 0, "%s: %d of %u wrong (last %g ref %g)", fibers ? "fibers" : "regions", bad, n, dst[n - 1],
          ref[n - 1]);
    free(src);
    free(dst);
    free(ref);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

TEST(regions_partial_group_cl)
{
    partial_case(false);
}
TEST(regions_partial_group_cl_fibers)
{
    partial_case(true);
}

/* --- work-group uniform values (regions_uniform.comp / .cl) -------------------------------- */

typedef struct uniform_params {
    uint32_t iters, step, a, b, k, mode;
} uniform_params;

static uint32_t rand_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(test_rand_u64(s) % n);
}

/* The plain C reference of regions_uniform.comp mode 0, one group of `ls` items. */
static void ref_uniform_group(const float *x, uint32_t ls, const uniform_params *p, float *dst, uint32_t *tag)
{
    for (uint32_t l = 0; l < ls; l++) {
        uint32_t w = l % 3 == 1 ? p->b : p->a;
        uint32_t last = (l & 3) ? p->a + p->k : 7;
        uint32_t u = p->k > 2 ? p->k * 2 : p->k;
        uint32_t flag = l < p->iters ? p->b : 0;
        float acc = 0;
        for (uint32_t t = 0; t < p->iters * p->step; t += p->step)
            acc += x[(l + t + 1) % ls] + (float)t;
        dst[l] = acc;
        tag[l] = w * 1000000u + last * 1000u + u + flag * 100000000u;
    }
}

static int uniform_run(const jit_kernel *k, uint32_t ls, uint32_t groups, const uniform_params *p, spv_diag *diag)
{
    uint32_t n = groups * ls;
    uint64_t s = 4242 + ls + p->iters;
    float *x = rand_floats(&s, n), *dst = calloc(n, 4), *rdst = calloc(n, 4);
    uint32_t *tag = calloc(n, 4), *rtag = calloc(n, 4);
    void *args[3] = { x, dst, tag };
    uint64_t sizes[3] = { n * 4ull, n * 4ull, n * 4ull };
    tj_dispatch d = {
        .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .push = p, .groups = { groups, 1, 1 }
    };
    int rc = run(k, &d, diag);
    if (rc == 0 && p->mode == 0) {
        for (uint32_t g = 0; g < groups; g++)
            ref_uniform_group(x + g * ls, ls, p, rdst + g * ls, rtag + g * ls);
        int bad = 0, bad_tag = 0;
        for (uint32_t i = 0; i < n; i++) {
            bad += !near(dst[i], rdst[i], 1e-5f);
            bad_tag += tag[i] != rtag[i];
        }
        CHECK(bad == 0 && bad_tag == 0, "ls %u iters %u step %u: %d of %u sums and %d tags wrong (tag[1] %u ref %u)",
              ls, p->iters, p->step, bad, n, bad_tag, tag[1], rtag[1]);
    }
    free(x);
    free(dst);
    free(rdst);
    free(tag);
    free(rtag);
    return rc;
}

/* Uniform values stored under varying control stay per item; a uniform loop
 * with barriers takes its trip count from push constants; divergence through a
 * uniform-valued but per-item value is still reported, alike on both paths. */
static void uniform_case(uint32_t ls)
{
    spv_module *m = tj_load("jit/regions_uniform.comp.spv");
    REQUIRE(m, "load");
    uint32_t id = 0;
    uint64_t bits = ls;
    spv_module *sm = tj_specialize(m, &id, &bits, 1);
    REQUIRE(sm, "specialize");
    jit_kernel *reg = compile_path(sm, NULL, (spvjit_options){ 0 }, false);
    jit_kernel *fib = compile_path(sm, NULL, (spvjit_options){ 0 }, true);
    REQUIRE(reg && fib, "compile: %s", tj_last_error);
    uint64_t s = 99 + ls;
    for (int rep = 0; rep < 4; rep++) {
        uniform_params p = { .iters = rand_below(&s, 9),
                             .step = 1 + rand_below(&s, 5),
                             .a = 1 + rand_below(&s, 90),
                             .b = 1 + rand_below(&s, 9),
                             .k = rand_below(&s, 7) };
        if (rep == 0)
            p.iters = ls + 3; /* every item sets flag */
        spv_diag dr, df;
        CHECK(uniform_run(reg, ls, 3, &p, &dr) == 0, "regions: %s", dr.msg);
        CHECK(uniform_run(fib, ls, 3, &p, &df) == 0, "fibers: %s", df.msg);
    }
    uniform_params p = { .b = 5, .mode = 1 };
    spv_diag dr, df;
    CHECK(uniform_run(reg, ls, 2, &p, &dr) != 0, "mode 1: regions did not report divergence");
    CHECK(uniform_run(fib, ls, 2, &p, &df) != 0, "mode 1: fibers did not report divergence");
    CHECK(strstr(dr.msg, "barrier divergence in work-group (0,0,0)") && !strcmp(dr.msg, df.msg),
          "mode 1:\n  regions: %s\n  fibers:  %s", dr.msg, df.msg);
    spvjit_kernel_free(reg);
    spvjit_kernel_free(fib);
    spv_module_free(sm);
    spv_module_free(m);
}

TEST(regions_uniform_64)
{
    uniform_case(64);
}
TEST(regions_uniform_24)
{
    uniform_case(24);
}

/* The same uniform loop in OpenCL C: trip count and stride are kernel
 * arguments, and the last group is smaller (get_local_size differs there). */
static void uniform_cl_case(bool fibers)
{
    const uint32_t ls = 16, n = 4 * ls + 7;
    spv_module *m = tj_load("jit/regions_uniform.cl.spv");
    REQUIRE(m, "load");
    jit_kernel *k = compile_path(m, "regions_uniform", (spvjit_options){ .local_size = { ls, 1, 1 } }, fibers);
    REQUIRE(k, "compile: %s", tj_last_error);
    uint64_t s = 777;
    float *src = rand_floats(&s, n), *dst = calloc(n, 4), *ref = calloc(n, 4);
    for (int rep = 0; rep < 3; rep++) {
        uint32_t iters = 1 + rand_below(&s, 12), step = 1 + rand_below(&s, 4);
        for (uint32_t g0 = 0; g0 < n; g0 += ls) {
            uint32_t cnt = n - g0 < ls ? n - g0 : ls;
            for (uint32_t l = 0; l < cnt; l++) {
                float acc = 0;
                for (uint32_t t = 0; t < iters * step; t += step)
                    acc += src[g0 + (l + t + 1) % cnt] + (float)t;
                ref[g0 + l] = acc;
            }
        }
        void *args[4] = { &src, &dst, &iters, &step };
        tj_dispatch d = { .args = args, .work_dim = 1, .global_size = { n, 1, 1 } };
        spv_diag diag;
        REQUIRE(run(k, &d, &diag) == 0, "run: %s", diag.msg);
        int bad = 0;
        for (uint32_t i = 0; i < n; i++)
            bad += !near(dst[i], ref[i], 1e-5f);
        CHECK(bad == 0, "%s iters %u step %u: %d of %u wrong (last %g ref %g)", fibers ? "fibers" : "regions", iters,
              step, bad, n, dst[n - 1], ref[n - 1]);
    }
    free(src);
    free(dst);
    free(ref);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

TEST(regions_uniform_cl)
{
    uniform_cl_case(false);
}
TEST(regions_uniform_cl_fibers)
{
    uniform_cl_case(true);
}
