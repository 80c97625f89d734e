/* testdata/tests/test_jit_glsl.c — GLSL compute kernels (testdata/jit/glsl_*.comp)
 * through the JIT, against plain C on random inputs: push constants with std430
 * structs, std140 uniforms, GLSL.std.450 math, sub-group operations (with
 * sub-groups of 1 and of the native SIMD width),
 * control flow, loop-control hints (checked in the lowered IR), a pointer to a
 * column of a row-major matrix, OpArrayLength through a descriptor array, and
 * shared-memory atomics with barriers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

/* push constants, std430: n @0, scale @4, item @16 {dir @16, w @28, off @32}, 48 bytes */
typedef struct pc_block {
    uint32_t n;
    float scale;
    uint32_t pad[2];
    float dir[3];
    float w;
    int32_t off[2];
    uint32_t pad2[2];
} pc_block;
/* uniform, std140: coef[4] stride 16 @0, shift @64, m2 columns @80 and @96 (stride 16) */
typedef struct u_block {
    float coef[4][4];
    float shift[2];
    float pad[2];
    float m2[2][4];
} u_block;

static bool near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * (fabs(want) + 1e-3);
}

/* The sub-group of item i (lx = i % LS in its group) has the items of its
 * group whose lx / W is the same; the active ones are those below n. */
static void subgroup_refs(const float *x, int i, int ls, int n, unsigned w, double *r6, double *r7)
{
    int g0 = i / ls * ls, s0 = g0 + (i - g0) / (int)w * (int)w, s1 = s0 + (int)w < g0 + ls ? s0 + (int)w : g0 + ls;
    double sum = 0, excl = 0, mx = -INFINITY;
    int first = -1, pos = 0;
    for (int j = s0; j < s1 && j < n; j++) {
        first = first < 0 ? j : first;
        sum += x[j];
        excl += j < i ? x[j] : 0;
        mx = x[j] > mx ? x[j] : mx;
        pos += x[j] > 0;
    }
    *r6 = sum + excl * 100.0 + w * 1000.0 + (i == first ? 10000.0 : 0.0) + pos * 100000.0;
    *r7 = x[first] - mx;
}

static void pipeline_classes(jit_simd simd)
{
    _Static_assert(sizeof(pc_block) == 48 && sizeof(u_block) == 112, "std430/std140 block layouts");
    spv_module *m = tj_load("jit/glsl_misc.comp.spv");
    REQUIRE(m, "load");
    tj_texts cap = { 0 };
    spvjit_options o = { .opt_level = 3, .emit = tj_keep_text, .emit_user = &cap, .emit_ir = true, .simd = simd };
    jit_kernel *k = tj_compile(m, NULL, &o);
    REQUIRE(k, "compile: %s", tj_last_error);
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    unsigned w = f->subgroup_size;
    /* the push constants needed end with item.off (32 + 8): the block's 8 bytes of
     * tail padding need not be given (Vulkan asks a range to cover the members) */
    CHECK(f->nslots == 6 && f->push_constant_size == 40 && !f->uses_barriers, "facts: %u slots, push %llu", f->nslots,
          (unsigned long long)f->push_constant_size);
    bool off = simd == JIT_SIMD_OFF || tj_simd_forced_off();
    CHECK(off == (w == 1), "sub-groups of %u with simd %s", w, off ? "off" : "on");
    /* loop-control hints reach LLVM as llvm.loop metadata (the vectorizer
     * unrolls the [[unroll]] loop itself and keeps [[dont_unroll]] on its loop) */
    CHECK(cap.ir && strstr(cap.ir, "llvm.loop.unroll.disable") && (w > 1 || strstr(cap.ir, "llvm.loop.unroll.full")),
          "lowered IR lacks the loop-control metadata");
    free(cap.ir);

    enum { GROUPS = 7, LS = 16, N = GROUPS * LS - 5 };
    uint64_t s = 2024;
    pc_block pc = { .n = N, .scale = 0.75f, .dir = { 0.5f, -1.25f, 2.0f }, .w = 1.5f, .off = { 7, -3 } };
    u_block u;
    memset(&u, 0, sizeof u);
    for (int j = 0; j < 4; j++)
        u.coef[j][0] = test_rand_float(&s, -2.0f, 2.0f);
    u.shift[0] = 9.0f;
    u.shift[1] = -0.5f;
    u.m2[0][0] = 1.0f;
    u.m2[0][1] = 0.25f;
    u.m2[1][0] = 2.0f;
    u.m2[1][1] = -3.0f;
    float *x = malloc(GROUPS * LS * 4), *out = malloc(24 * GROUPS * LS * 4), *rm = malloc(GROUPS * LS * 64);
    float *rm0 = malloc(GROUPS * LS * 64);
    int32_t d0[5] = { 11, 1, 2, 3, 4 }, d1[9] = { -22, 0, 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < GROUPS * LS; i++)
        x[i] = test_rand_float(&s, -3.0f, 3.0f);
    for (int i = 0; i < 24 * GROUPS * LS; i++)
        out[i] = -12345.0f;
    for (int i = 0; i < GROUPS * LS * 16; i++)
        rm0[i] = rm[i] = test_rand_float(&s, -10.0f, 10.0f);
    void *args[6] = { &u, x, out, rm, d0, d1 };
    uint64_t sizes[6] = { sizeof u,  GROUPS * LS * 4ull, 24ull * GROUPS * LS * 4, GROUPS * LS * 64ull,
                          sizeof d0, sizeof d1 };
    tj_dispatch d = {
        .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .push = &pc, .groups = { GROUPS, 1, 1 }
    };
    REQUIRE(tj_run(k, &d) == 0, "run");
    int bad = 0;
    for (int i = 0; i < GROUPS * LS; i++) {
        const float *r = out + 24 * i;
        if (i >= N) { /* returned early */
            for (int j = 0; j < 16; j++)
                bad += r[j] != -12345.0f;
            continue;
        }
        double v = x[i];
        int e;
        double mant = frexp(v, &e);
        double dl = sqrt(0.25 + 1.5625 + 4.0);
        double sm = v <= -1 ? 0 : v >= 1 ? 1 : ((v + 1) / 2) * ((v + 1) / 2) * (3 - 2 * ((v + 1) / 2));
        double want[11] = { sin(v) + exp(v * 0.5) + pow(fabs(v) + 1.0, 1.5),
                            v * 0.75 + 1.0 +
                                (v < -1  ? -1
                                 : v > 1 ? 1
                                         : v) +
                                (v + (2.0 - v) * 0.25),
                            sm + atan2(v, 2.0) + 1.0 / sqrt(fabs(v) + 1.0),
                            mant + e * 10.0,
                            fabs(v) * dl + (0.5 - 2.5 + 6.0) * 1.5 + 10.0,
                            u.coef[i & 3][0] * v - 0.5 + (0.25 * v - 3.0),
                            0, /* the sub-group results, below */
                            0,
                            0,
                            0,
                            0 };
        subgroup_refs(x, i, LS, N, w, &want[6], &want[7]);
        int kk = i % 7;
        want[8] = kk == 0 ? 1.0 : kk <= 2 ? v : kk == 5 ? -v + 3.0 : kk == 6 ? 3.0 : 7.0;
        float sf = 0.0f;
        for (int j = 0; j < 20; j++) {
            if (j == i % 5)
                continue;
            if (j > 12 + kk)
                break;
            sf += (float)j * x[i];
        }
        want[9] = sf;
        float t = 0.0f;
        for (int j = 0; j < 4; j++)
            t += u.coef[j][0] * (float)(j + 1);
        want[10] = t;
        for (int j = 0; j < 11; j++)
            if (!near(r[j], want[j], 2e-5) && bad++ < 8)
                CHECK(0, "W=%u item %d result %d: got %.9g, expected %.9g (v=%.9g)", w, i, j, r[j], want[j], v);
        /* row-major mat4: element (column c, row q) at q*16 + c*4 bytes */
        int c = i & 3, c2 = (c + 1) & 3;
        for (int q = 0; q < 4; q++) {
            float col = rm0[16 * i + 4 * q + c];
            if (r[11 + q] != col && bad++ < 8)
                CHECK(0, "item %d column %d row %d: got %g, expected %g", i, c, q, r[11 + q], col);
            float w2 = col * 2.0f + (float)(q + 1);
            if (rm[16 * i + 4 * q + c2] != w2 && bad++ < 8)
                CHECK(0, "item %d stored column %d row %d: got %g, expected %g", i, c2, q, rm[16 * i + 4 * q + c2], w2);
        }
        for (int q = 0; q < 16; q++)
            if ((q & 3) != c2 && rm[16 * i + q] != rm0[16 * i + q] && bad++ < 8)
                CHECK(0, "item %d: matrix element %d changed", i, q);
        double len = 9.0 + 5.0 * 1000.0 + ((i & 1) ? d1[0] : d0[0]);
        if (r[15] != len && bad++ < 8)
            CHECK(0, "item %d array lengths: got %g, expected %g", i, r[15], len);
    }
    CHECK(bad == 0, "%d wrong", bad);
    free(x);
    free(out);
    free(rm);
    free(rm0);
    spvjit_kernel_free(k);
    spv_module_free(m);
}

TEST(jit_glsl_pipeline_classes)
{
    pipeline_classes(JIT_SIMD_OFF);
    pipeline_classes(JIT_SIMD_AUTO);
}

TEST(jit_glsl_shared_atomics)
{
    spv_module *m = tj_load("jit/glsl_shared.comp.spv");
    REQUIRE(m, "load");
    jit_kernel *k = tj_compile(m, NULL, NULL);
    REQUIRE(k, "compile: %s", tj_last_error);
    enum { G = 6, LS = 32 };
    uint64_t s = 8;
    int32_t *v = malloc(G * LS * 4), *o = calloc(8 * G, 4);
    for (int i = 0; i < G * LS; i++)
        v[i] = (int32_t)test_rand_u64(&s);
    void *args[2] = { v, o };
    uint64_t sizes[2] = { G * LS * 4ull, 8ull * G * 4 };
    tj_dispatch d = { .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .groups = { G, 1, 1 } };
    REQUIRE(tj_run(k, &d) == 0, "run");
    for (int g = 0; g < G; g++) {
        int32_t mn = INT32_MAX, mx = INT32_MIN, or_ = 0, and_ = -1;
        uint32_t umx = 0;
        for (int l = 0; l < LS; l++) {
            int32_t x = v[g * LS + l];
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
            or_ |= x;
            and_ &= x;
            umx = (uint32_t)x > umx ? (uint32_t)x : umx;
        }
        const int32_t *r = o + 8 * g;
        /* exchange: every value but the last one written is returned exactly once, plus the initial 0 */
        int32_t final = r[7], sum_prev = r[6];
        CHECK(r[0] == mn && r[1] == mx && r[2] == or_ && r[3] == and_ && (uint32_t)r[4] == umx,
              "group %d: min/max/or/and/umax %d %d %d %d %u", g, r[0], r[1], r[2], r[3], (uint32_t)r[4]);
        CHECK(r[5] == 1, "group %d: %d compare-and-swap winners", g, r[5]);
        CHECK(final >= 1 && final <= LS && sum_prev + final == LS * (LS + 1) / 2, "group %d: exchange %d + %d", g,
              sum_prev, final);
    }
    free(v);
    free(o);
    spvjit_kernel_free(k);
    spv_module_free(m);
}
