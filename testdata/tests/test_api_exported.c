/* testdata/tests/test_api_exported.c — exported SPIR-V functions called from C.
 *
 * testdata/jit/exports.cl (OpenCL C → SPIR-V, functions with Linkage Export)
 * through the JIT alone (spvjit_compile_function: the native pointer called
 * with its C signature, no libffi) and through spvjit_call_exported (libffi,
 * N lanes, uniform and varying arguments), against the same functions
 * written in C, on random inputs.  What host C cannot call (a vector, a
 * work-group barrier) is refused with a message.  The module also holds two
 * kernels: each builds and runs on its own. */
#include <stdio.h>

#include "api_test_util.h"
#include "lib/call_exported.h"
#include "test_jit_util.h"

#define EXPORTS "jit/exports.cl.spv"

/* The C counterparts. */
static float c_axpb(float a, float x, float b)
{
    float m = a * x;
    return m + b;
}
static int32_t c_clampi(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}
static uint64_t c_mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    return x ^ (x >> 27);
}
static uint64_t c_hash2(uint64_t a, uint32_t b)
{
    return c_mix64(a + b);
}
static double c_lerp(double a, double b, double t)
{
    double d = b - a;
    double m = d * t;
    return a + m;
}
static uint8_t c_addsat8(uint8_t a, uint8_t b)
{
    return a + b > 255 ? 255 : (uint8_t)(a + b);
}

static uint32_t export_id(const spv_module *m, const char *name)
{
    uint32_t id = api_find_export(m, name);
    CHECK(id, "%s is not exported", name);
    return id;
}

/* --- the JIT alone: native pointers with C signatures ---------------------------------- */

TEST_TIER_FREE(jit_compile_function_c_signatures)
{
    spv_module *m = tj_load(EXPORTS);
    REQUIRE(m, "load");
    spv_diag d;
    jit_kernel *o1 = NULL, *o2 = NULL, *o3 = NULL, *o4 = NULL, *o5 = NULL;
    spvjit_options o = { .opt_level = 3 };
    float (*axpb)(float, float, float) =
        (float (*)(float, float, float))spvjit_compile_function(m, export_id(m, "axpb"), &o, &o1, &d);
    REQUIRE(axpb && o1, "axpb: %s", d.msg);
    int32_t (*clampi)(int32_t, int32_t, int32_t) =
        (int32_t(*)(int32_t, int32_t, int32_t))spvjit_compile_function(m, export_id(m, "clampi"), &o, &o2, &d);
    REQUIRE(clampi, "clampi: %s", d.msg);
    uint64_t (*hash2)(uint64_t, uint32_t) =
        (uint64_t(*)(uint64_t, uint32_t))spvjit_compile_function(m, export_id(m, "hash2"), &o, &o3, &d);
    REQUIRE(hash2, "hash2: %s", d.msg);
    int32_t (*pick)(bool, int32_t, int32_t) =
        (int32_t(*)(bool, int32_t, int32_t))spvjit_compile_function(m, export_id(m, "pick"), &o, &o4, &d);
    REQUIRE(pick, "pick: %s", d.msg);
    bool (*is_neg)(float) = (bool (*)(float))spvjit_compile_function(m, export_id(m, "is_neg"), &o, &o5, &d);
    REQUIRE(is_neg, "is_neg: %s", d.msg);

    uint64_t seed = 77;
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        float a = test_rand_float(&seed, -8, 8), x = test_rand_float(&seed, -8, 8), b = test_rand_float(&seed, -8, 8);
        int32_t v = (int32_t)test_rand_u64(&seed), lo = -(int32_t)(test_rand_u64(&seed) % 100000),
                hi = (int32_t)(test_rand_u64(&seed) % 100000);
        uint64_t h = test_rand_u64(&seed);
        uint32_t h2 = (uint32_t)test_rand_u64(&seed);
        bool c = test_rand_u64(&seed) & 1;
        bad += axpb(a, x, b) != c_axpb(a, x, b);
        bad += clampi(v, lo, hi) != c_clampi(v, lo, hi);
        bad += clampi(v % 200000, lo, hi) != c_clampi(v % 200000, lo, hi);
        bad += hash2(h, h2) != c_hash2(h, h2);
        bad += pick(c, v, lo) != (c ? v : lo);
        bad += is_neg(a) != (a < 0);
    }
    CHECK(bad == 0, "%d of 1200 calls differ from C", bad);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(o1);
    CHECK(f->is_kernel && !f->uses_barriers, "facts of a function");
    spvjit_kernel_free(o1);
    spvjit_kernel_free(o2);
    spvjit_kernel_free(o3);
    spvjit_kernel_free(o4);
    spvjit_kernel_free(o5);
    spv_module_free(m);
}

TEST_TIER_FREE(jit_compile_function_refusals)
{
    spv_module *m = tj_load(EXPORTS);
    REQUIRE(m, "load");
    spv_diag d;
    jit_kernel *owner = (jit_kernel *)1;
    d.msg[0] = 0;
    CHECK(!spvjit_compile_function(m, export_id(m, "vscale"), NULL, &owner, &d) && !owner && strstr(d.msg, "vscale") &&
              strstr(d.msg, "host C cannot pass"),
          "vector: %s", d.msg);
    d.msg[0] = 0;
    CHECK(!spvjit_compile_function(m, export_id(m, "sync_store"), NULL, &owner, &d) && !owner &&
              strstr(d.msg, "sync_store") && strstr(d.msg, "barrier"),
          "barrier: %s", d.msg);
    d.msg[0] = 0;
    CHECK(!spvjit_compile_function(m, 3, NULL, &owner, &d) && strstr(d.msg, "is not a function"), "id 3: %s", d.msg);
    spv_module_free(m);
    spv_module *s = tj_load("kernels/saxpy.comp.spv");
    REQUIRE(s, "load saxpy.comp");
    d.msg[0] = 0;
    CHECK(!spvjit_compile_function(s, s->funcs[0].id, NULL, &owner, &d) && strstr(d.msg, "Kernel-flavour"),
          "shader module: %s", d.msg);
    spv_module_free(s);
}

/* --- spvjit_call_exported: lanes, uniform and varying ------------------------------------- */

TEST(api_call_exported_lanes_against_c)
{
    spvjit_context *ctx;
    spvjit_module *m = api_ctx_load(EXPORTS, &ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { N = 37 };
    uint64_t seed = 4711;
    spvjit_status st;

    /* axpb: a, x varying; b uniform */
    float a[N], x[N], b = test_rand_float(&seed, -3, 3), r[N + 1];
    for (int i = 0; i < N; i++) {
        a[i] = test_rand_float(&seed, -10, 10);
        x[i] = test_rand_float(&seed, -10, 10);
    }
    r[N] = 12345.0f;
    spvjit_call_arg fa[3] = { { a, sizeof a, true }, { x, sizeof x, true }, { &b, sizeof b, false } };
    st = spvjit_call_exported(m, "axpb", NULL, N, fa, 3, r, N * sizeof *r);
    REQUIRE(st == SPVJIT_OK, "axpb: %s", spvjit_last_error());
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += r[i] != c_axpb(a[i], x[i], b);
    CHECK(bad == 0 && r[N] == 12345.0f, "axpb: %d lanes differ (or wrote past the results)", bad);

    /* clampi: v varying, lo/hi uniform; then everything varying */
    int32_t v[N], lo[N], hi[N], ri[N], ulo = -500, uhi = 700;
    for (int i = 0; i < N; i++) {
        v[i] = (int32_t)(test_rand_u64(&seed) % 4001) - 2000;
        lo[i] = -(int32_t)(test_rand_u64(&seed) % 1000);
        hi[i] = (int32_t)(test_rand_u64(&seed) % 1000);
    }
    spvjit_call_arg ca[3] = { { v, sizeof v, true }, { &ulo, 4, false }, { &uhi, 4, false } };
    CHECK(spvjit_call_exported(m, "clampi", NULL, N, ca, 3, ri, sizeof ri) == SPVJIT_OK, "clampi: %s",
          spvjit_last_error());
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += ri[i] != c_clampi(v[i], ulo, uhi);
    CHECK(bad == 0, "clampi uniform bounds: %d lanes differ", bad);
    spvjit_call_arg cv[3] = { { v, sizeof v, true }, { lo, sizeof lo, true }, { hi, sizeof hi, true } };
    CHECK(spvjit_call_exported(m, "clampi", NULL, N, cv, 3, ri, sizeof ri) == SPVJIT_OK, "clampi: %s",
          spvjit_last_error());
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += ri[i] != c_clampi(v[i], lo[i], hi[i]);
    CHECK(bad == 0, "clampi varying: %d lanes differ", bad);

    /* scale: a varying pointer (one element per lane), a uniform factor; then a
     * uniform pointer: every lane scales the same element */
    float p[N], want[N], s = -1.5f;
    float *ptrs[N];
    for (int i = 0; i < N; i++) {
        p[i] = want[i] = test_rand_float(&seed, -5, 5);
        want[i] = want[i] * s;
        ptrs[i] = &p[i];
    }
    spvjit_call_arg sa[2] = { { ptrs, sizeof ptrs, true }, { &s, sizeof s, false } };
    CHECK(spvjit_call_exported(m, "scale", NULL, N, sa, 2, NULL, 0) == SPVJIT_OK, "scale: %s", spvjit_last_error());
    CHECK(!memcmp(p, want, sizeof p), "scale through varying pointers");
    float one = 3.0f, two = 2.0f, expect = 3.0f;
    float *onep = &one;
    for (int i = 0; i < 5; i++)
        expect *= two;
    spvjit_call_arg su[2] = { { &onep, sizeof onep, false }, { &two, sizeof two, false } };
    CHECK(spvjit_call_exported(m, "scale", NULL, 5, su, 2, NULL, 0) == SPVJIT_OK && one == expect,
          "scale through a uniform pointer: %g, expected %g", one, expect);

    /* hash2 (64-bit), lerp (double), addsat8 (8-bit), pick (bool in), is_neg (bool out) */
    uint64_t ha[N], hr[N];
    uint32_t hb = (uint32_t)test_rand_u64(&seed);
    double la[N], lb = 10.0, lt[N], lr[N];
    uint8_t u8a[N], u8b[N], u8r[N], cond[N], neg[N];
    int32_t pa = 111, pb[N], pr[N];
    for (int i = 0; i < N; i++) {
        ha[i] = test_rand_u64(&seed);
        la[i] = test_rand_float(&seed, -100, 100);
        lt[i] = test_rand_float(&seed, 0, 1);
        u8a[i] = (uint8_t)test_rand_u64(&seed);
        u8b[i] = (uint8_t)test_rand_u64(&seed);
        cond[i] = test_rand_u64(&seed) & 1;
        pb[i] = (int32_t)test_rand_u64(&seed);
    }
    spvjit_call_arg hargs[2] = { { ha, sizeof ha, true }, { &hb, sizeof hb, false } };
    spvjit_call_arg largs[3] = { { la, sizeof la, true }, { &lb, sizeof lb, false }, { lt, sizeof lt, true } };
    spvjit_call_arg uargs[2] = { { u8a, sizeof u8a, true }, { u8b, sizeof u8b, true } };
    spvjit_call_arg pargs[3] = { { cond, sizeof cond, true }, { &pa, sizeof pa, false }, { pb, sizeof pb, true } };
    spvjit_call_arg nargs[1] = { { a, sizeof a, true } };
    CHECK(spvjit_call_exported(m, "hash2", NULL, N, hargs, 2, hr, sizeof hr) == SPVJIT_OK, "hash2: %s",
          spvjit_last_error());
    CHECK(spvjit_call_exported(m, "lerp", NULL, N, largs, 3, lr, sizeof lr) == SPVJIT_OK, "lerp: %s",
          spvjit_last_error());
    CHECK(spvjit_call_exported(m, "addsat8", NULL, N, uargs, 2, u8r, sizeof u8r) == SPVJIT_OK, "addsat8: %s",
          spvjit_last_error());
    CHECK(spvjit_call_exported(m, "pick", NULL, N, pargs, 3, pr, sizeof pr) == SPVJIT_OK, "pick: %s",
          spvjit_last_error());
    CHECK(spvjit_call_exported(m, "is_neg", NULL, N, nargs, 1, neg, sizeof neg) == SPVJIT_OK, "is_neg: %s",
          spvjit_last_error());
    int bh = 0, bl = 0, bu = 0, bp = 0, bn = 0;
    for (int i = 0; i < N; i++) {
        bh += hr[i] != c_hash2(ha[i], hb);
        bl += lr[i] != c_lerp(la[i], lb, lt[i]);
        bu += u8r[i] != c_addsat8(u8a[i], u8b[i]);
        bp += pr[i] != (cond[i] ? pa : pb[i]);
        bn += neg[i] != (a[i] < 0);
    }
    CHECK(!bh && !bl && !bu && !bp && !bn,
          "lanes differing from C: hash2 %d, lerp %d, addsat8 %d, pick %d, "
          "is_neg %d",
          bh, bl, bu, bp, bn);

    /* what host C cannot call, and values for spec constants the module lacks */
    spvjit_call_arg sync_args[2] = { { &onep, sizeof onep, false }, { &two, sizeof two, false } };
    CHECK(spvjit_call_exported(m, "sync_store", NULL, 1, sync_args, 2, NULL, 0) == SPVJIT_ERROR_UNSUPPORTED &&
              strstr(spvjit_last_error(), "barrier"),
          "sync_store: %s", spvjit_last_error());
    spvjit_specs *sp;
    spvjit_specs_create(&sp);
    spvjit_spec_set_u32(sp, 7, 1);
    CHECK(spvjit_call_exported(m, "axpb", sp, N, fa, 3, r, N * sizeof *r) == SPVJIT_ERROR_SPEC_CONSTANT, "SpecId 7: %s",
          spvjit_last_error());
    spvjit_specs_destroy(sp);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* 16-bit values, read-only pointers with a varying length, and generic
 * pointers the function writes its results through, one pair per lane. */
TEST(api_call_exported_pointers_against_c)
{
    spvjit_context *ctx;
    spvjit_module *m = api_ctx_load(EXPORTS, &ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { N = 41 };
    uint64_t seed = 1234;

    int16_t s16a[N], s16b[N], s16r[N];
    for (int i = 0; i < N; i++) {
        s16a[i] = (int16_t)test_rand_u64(&seed);
        s16b[i] = (int16_t)(test_rand_u64(&seed) % 2001 - 1000);
    }
    spvjit_call_arg dargs[2] = { { s16a, sizeof s16a, true }, { s16b, sizeof s16b, true } };
    CHECK(spvjit_call_exported(m, "absdiff16", NULL, N, dargs, 2, s16r, sizeof s16r) == SPVJIT_OK, "absdiff16: %s",
          spvjit_last_error());
    int bad = 0;
    for (int i = 0; i < N; i++) {
        int d = s16a[i] > s16b[i] ? s16a[i] - s16b[i] : s16b[i] - s16a[i];
        bad += s16r[i] != (int16_t)d; /* OpenCL C short arithmetic wraps at 16 bits */
    }
    CHECK(bad == 0, "absdiff16: %d lanes differ from C", bad);

    /* dot_n over prefixes: lane i sums the first n[i] products */
    float va[N], vb[N], dots[N];
    uint32_t lens[N];
    const float *pa = va, *pb = vb;
    for (int i = 0; i < N; i++) {
        va[i] = test_rand_float(&seed, -2, 2);
        vb[i] = test_rand_float(&seed, -2, 2);
        lens[i] = (uint32_t)(N - i);
    }
    spvjit_call_arg nargs[3] = { { &pa, sizeof pa, false }, { &pb, sizeof pb, false }, { lens, sizeof lens, true } };
    CHECK(spvjit_call_exported(m, "dot_n", NULL, N, nargs, 3, dots, sizeof dots) == SPVJIT_OK, "dot_n: %s",
          spvjit_last_error());
    bad = 0;
    for (int i = 0; i < N; i++) {
        float want = 0.0f;
        for (uint32_t k = 0; k < lens[i]; k++) {
            float prod = va[k] * vb[k];
            want += prod;
        }
        bad += dots[i] != want;
    }
    CHECK(bad == 0, "dot_n: %d lanes differ from C", bad);

    /* minmax: lane i over p[0 .. n[i]), results through its own pair of pointers */
    int32_t data[N], lo[N], hi[N];
    int32_t *lop[N], *hip[N];
    const int32_t *dp = data;
    for (int i = 0; i < N; i++) {
        data[i] = (int32_t)test_rand_u64(&seed);
        lens[i] = (uint32_t)i + 1;
        lop[i] = &lo[i];
        hip[i] = &hi[i];
    }
    spvjit_call_arg margs[4] = {
        { &dp, sizeof dp, false }, { lens, sizeof lens, true }, { lop, sizeof lop, true }, { hip, sizeof hip, true }
    };
    CHECK(spvjit_call_exported(m, "minmax", NULL, N, margs, 4, NULL, 0) == SPVJIT_OK, "minmax: %s",
          spvjit_last_error());
    bad = 0;
    int32_t wl = data[0], wh = data[0];
    for (int i = 0; i < N; i++) {
        wl = data[i] < wl ? data[i] : wl;
        wh = data[i] > wh ? data[i] : wh;
        bad += lo[i] != wl || hi[i] != wh;
    }
    CHECK(bad == 0, "minmax: %d lanes differ from C", bad);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}

/* The two kernels of exports.cl, each built alone: only what it reaches is compiled. */
TEST(api_two_kernels_in_one_module)
{
    spvjit_context *ctx;
    spvjit_module *m = api_ctx_load(EXPORTS, &ctx);
    REQUIRE(m, "load: %s", spvjit_last_error());
    enum { N = 100 };
    uint64_t seed = 31;
    float p[N], want[N], s = 0.5f, v = 2.25f;
    for (int i = 0; i < N; i++) {
        p[i] = test_rand_float(&seed, -9, 9);
        want[i] = p[i] * s;
    }
    spvjit_kernel *k = NULL;
    REQUIRE(spvjit_kernel_build(m, "scale_all", NULL, NULL, &k) == SPVJIT_OK, "scale_all: %s", spvjit_last_error());
    spvjit_set_arg_buffer(k, 0, p, sizeof p);
    spvjit_set_arg_value(k, 1, &s, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { N } }) == SPVJIT_OK,
          "dispatch: %s", spvjit_last_error());
    CHECK(!memcmp(p, want, sizeof p), "scale_all");
    spvjit_kernel_destroy(k);
    REQUIRE(spvjit_kernel_build(m, "fill", NULL, NULL, &k) == SPVJIT_OK, "fill: %s", spvjit_last_error());
    spvjit_set_arg_buffer(k, 0, p, sizeof p);
    spvjit_set_arg_value(k, 1, &v, 4);
    CHECK(spvjit_dispatch(k, &(spvjit_dispatch_info){ .work_dim = 1, .global_size = { N - 1 } }) == SPVJIT_OK,
          "dispatch: %s", spvjit_last_error());
    int bad = 0;
    for (int i = 0; i < N - 1; i++)
        bad += p[i] != v;
    CHECK(bad == 0 && p[N - 1] == want[N - 1], "fill: %d wrong", bad);
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}
