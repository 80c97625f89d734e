/* testdata/tests/test_jit_aos.c — a vector per work-item in a row
 * (testdata/jit/aos_rows.{comp,cl}): the vectorizer loads and stores the
 * sub-group's vectors as one run of memory, its elements every n-th
 * (jit/simd_memory.c, row_elements), where the lanes' vectors are known to
 * lie in a row (Shader: an affine index) or a run-time test says so (Kernel:
 * a 32-bit id, which might wrap).  Every vector type of the kernels (float4,
 * int2, char4, short2, long2, and 3-element vectors, whose padding keeps
 * them out of a row; GLSL structs and arrays, split into their members
 * before) against C, at sub-group sizes 4 to 64, with work-items returning
 * early and a divergent second store, over a smaller last OpenCL group. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_jit_util.h"

static const unsigned sub_group_sizes[] = { 0 /* native */, 4, 16, 32, 64 };

enum { NSIZES = sizeof sub_group_sizes / sizeof sub_group_sizes[0] };

/* Compiles m at every size of sub_group_sizes, at once (tj_compile_all);
 * row[i]: build i's lanes load their float4s as one run of 4 × lanes floats
 * ("v32f32" at 8). */
static void build_all(const spv_module *m, uint32_t local, jit_kernel **k, bool *row)
{
    tj_texts ir[NSIZES] = { 0 };
    tj_build b[NSIZES];
    for (unsigned i = 0; i < NSIZES; i++) {
        b[i] = (tj_build){ .m = m,
                           .o = { .opt_level = 3,
                                  .subgroup_size = sub_group_sizes[i],
                                  .emit = tj_keep_text,
                                  .emit_user = &ir[i],
                                  .emit_opt_ir = true } };
        b[i].o.local_size[0] = local; /* Kernel flavour; the Shader module gives its own */
    }
    REQUIRE(tj_compile_all(b, NSIZES, k), "compile: %s", tj_last_error);
    for (unsigned i = 0; i < NSIZES; i++) {
        char name[64];
        snprintf(name, sizeof name, "llvm.masked.load.v%uf32", 4 * spvjit_kernel_facts_of(k[i])->subgroup_size);
        row[i] = ir[i].opt && strstr(ir[i].opt, name);
        free(ir[i].opt);
    }
}

/* Small multiples of 1/4: their products with s = 0.75 and sums are exact,
 * so a fused multiply-add and a multiply then an add agree. */
static float quarter(uint64_t *seed)
{
    return (float)((int)(test_rand_u64(seed) % 64) - 32) / 4.0f;
}

TEST(jit_aos_rows_glsl)
{
    enum { LS = 24, GROUPS = 7, N = LS * GROUPS, USED = N - 13 };
    spv_module *m = tj_load("jit/aos_rows.comp.spv");
    REQUIRE(m, "load");
    jit_kernel *built[NSIZES];
    bool rows[NSIZES];
    build_all(m, 0, built, rows);
    for (size_t wi = 0; wi < NSIZES; wi++) {
        jit_kernel *k = built[wi];
        unsigned w = spvjit_kernel_facts_of(k)->subgroup_size;
        CHECK(w == 1 || rows[wi], "W=%u: the vec4s are not loaded as one run", w);
        uint64_t seed = 77 + w;
        float a[N][4], b[N][4], b0[N][4], p[N][3], p0[N][3], d[N][2], d0[N][2];
        int32_t c[N][2], c0[N][2];
        uint32_t u[N][4], u0[N][4];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < 4; j++) {
                a[i][j] = quarter(&seed);
                b0[i][j] = b[i][j] = quarter(&seed);
                u0[i][j] = u[i][j] = (uint32_t)test_rand_u64(&seed);
            }
            for (int j = 0; j < 3; j++)
                p0[i][j] = p[i][j] = quarter(&seed);
            for (int j = 0; j < 2; j++) {
                d0[i][j] = d[i][j] = quarter(&seed);
                c0[i][j] = c[i][j] = (int32_t)test_rand_u64(&seed);
            }
        }
        struct {
            uint32_t n;
            float s;
        } pc = { USED, 0.75f };
        void *args[6] = { a, b, c, p, d, u };
        uint64_t sizes[6] = { sizeof a, sizeof b, sizeof c, sizeof p, sizeof d, sizeof u };
        tj_dispatch disp = {
            .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .push = &pc, .groups = { GROUPS, 1, 1 }
        };
        REQUIRE(tj_run(k, &disp) == 0, "run W=%u", w);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            float wb[4], wp[3], wd[2];
            int32_t wc[2];
            uint32_t wu[4];
            memcpy(wb, b0[i], sizeof wb), memcpy(wp, p0[i], sizeof wp), memcpy(wd, d0[i], sizeof wd);
            memcpy(wc, c0[i], sizeof wc), memcpy(wu, u0[i], sizeof wu);
            if (i < USED) {
                for (int j = 0; j < 4; j++)
                    wb[j] = a[i][j] * 0.75f + b0[i][3 - j];
                wc[0] = (int32_t)((uint32_t)c0[i][1] + (uint32_t)i), wc[1] = (int32_t)((uint32_t)c0[i][0] - (uint32_t)i);
                wp[0] = p0[i][1] + p0[i][2], wp[1] = p0[i][0] * 2.0f, wp[2] = p0[i][2] - a[i][0];
                wd[0] = d0[i][1], wd[1] = d0[i][0] + 0.75f;
                wu[0] = u0[i][2] ^ (uint32_t)i, wu[1] = u0[i][0] ^ (uint32_t)i, wu[2] = u0[i][1] ^ (uint32_t)i;
                if (i % 3 == 1) {
                    float t[4] = { wb[1] - 1, wb[2] - 1, wb[3] - 1, wb[0] - 1 };
                    memcpy(wb, t, sizeof wb);
                }
            }
            bool ok = !memcmp(wb, b[i], sizeof wb) && !memcmp(wc, c[i], sizeof wc) && !memcmp(wp, p[i], sizeof wp) &&
                      !memcmp(wd, d[i], sizeof wd) && !memcmp(wu, u[i], sizeof wu);
            if (!ok && bad++ < 3)
                CHECK(false, "W=%u item %d: b %g %g %g %g (want %g %g %g %g), c %d %d (want %d %d)", w, i, b[i][0],
                      b[i][1], b[i][2], b[i][3], wb[0], wb[1], wb[2], wb[3], c[i][0], c[i][1], wc[0], wc[1]);
        }
        CHECK(!bad, "W=%u: %d items differ from C", w, bad);
        spvjit_kernel_free(k);
    }
    spv_module_free(m);
}

TEST(jit_aos_rows_opencl)
{
    enum { LS = 16, N = 7 * LS - 5, USED = N - 9 };
    spv_module *m = tj_load("jit/aos_rows.cl.spv");
    REQUIRE(m, "load");
    jit_kernel *built[NSIZES];
    bool rows[NSIZES];
    build_all(m, LS, built, rows);
    for (size_t wi = 0; wi < NSIZES; wi++) {
        jit_kernel *k = built[wi];
        unsigned w = spvjit_kernel_facts_of(k)->subgroup_size;
        CHECK(w == 1 || rows[wi], "W=%u: the float4s are not loaded as one run", w);
        uint64_t seed = 91 + w;
        static float a[N][4], b[N][4], b0[N][4];
        static int32_t c[N][2], c0[N][2], h[N][4], h0[N][4];
        static int8_t e[N][4], e0[N][4];
        static int16_t f[N][2], f0[N][2];
        static int64_t g[N][2], g0[N][2];
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < 4; j++) {
                a[i][j] = quarter(&seed);
                b0[i][j] = b[i][j] = quarter(&seed);
                e0[i][j] = e[i][j] = (int8_t)test_rand_u64(&seed);
                h0[i][j] = h[i][j] = (int32_t)test_rand_u64(&seed);
            }
            for (int j = 0; j < 2; j++) {
                c0[i][j] = c[i][j] = (int32_t)test_rand_u64(&seed);
                f0[i][j] = f[i][j] = (int16_t)test_rand_u64(&seed);
                g0[i][j] = g[i][j] = (int64_t)(test_rand_u64(&seed) >> 8) - ((int64_t)1 << 55);
            }
        }
        uint32_t n = USED;
        float s = 0.75f;
        void *pa = a, *pb = b, *pcc = c, *pe = e, *pf = f, *pg = g, *ph = h;
        void *args[9] = { &pa, &pb, &pcc, &pe, &pf, &pg, &ph, &n, &s };
        uint64_t sizes[9] = { sizeof a, sizeof b, sizeof c, sizeof e, sizeof f, sizeof g, sizeof h, 4, 4 };
        tj_dispatch disp = {
            .args = args, .arg_sizes = sizes, .nargs = TJ_COUNT(sizes), .work_dim = 1, .global_size = { N, 1, 1 }
        };
        REQUIRE(tj_run(k, &disp) == 0, "run W=%u", w);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            float wb[4];
            int32_t wc[2], wh[4];
            int8_t we[4];
            int16_t wf[2];
            int64_t wg[2];
            memcpy(wb, b0[i], sizeof wb), memcpy(wc, c0[i], sizeof wc), memcpy(wh, h0[i], sizeof wh);
            memcpy(we, e0[i], sizeof we), memcpy(wf, f0[i], sizeof wf), memcpy(wg, g0[i], sizeof wg);
            if (i < USED) {
                const int8_t add[4] = { 1, 2, 3, (int8_t)i };
                for (int j = 0; j < 4; j++) {
                    wb[j] = a[i][j] * 0.75f + b0[i][3 - j];
                    we[j] = (int8_t)(uint8_t)((uint8_t)e0[i][3 - j] + (uint8_t)add[j]);
                }
                wc[0] = (int32_t)((uint32_t)c0[i][1] + (uint32_t)i), wc[1] = (int32_t)((uint32_t)c0[i][0] - (uint32_t)i);
                wf[0] = (int16_t)(uint16_t)((uint16_t)f0[i][1] - (uint16_t)i);
                wf[1] = (int16_t)(uint16_t)((uint16_t)f0[i][0] - 3u);
                wg[0] = (int64_t)((uint64_t)g0[i][1] * 3u), wg[1] = (int64_t)((uint64_t)g0[i][0] * (uint64_t)i);
                wh[0] = h0[i][2] ^ i, wh[1] = h0[i][0] ^ i, wh[2] = h0[i][1] ^ i;
                if (i % 3 == 1) {
                    float t[4] = { wb[1] - 1, wb[2] - 1, wb[3] - 1, wb[0] - 1 };
                    memcpy(wb, t, sizeof wb);
                }
            }
            /* int3's fourth element is padding: the kernel's store may write it */
            bool ok = !memcmp(wb, b[i], sizeof wb) && !memcmp(wc, c[i], sizeof wc) && !memcmp(we, e[i], sizeof we) &&
                      !memcmp(wf, f[i], sizeof wf) && !memcmp(wg, g[i], sizeof wg) && !memcmp(wh, h[i], 12);
            if (!ok && bad++ < 3)
                CHECK(false, "W=%u item %d: b %g %g %g %g (want %g %g %g %g), e %d %d %d %d (want %d %d %d %d)", w, i,
                      b[i][0], b[i][1], b[i][2], b[i][3], wb[0], wb[1], wb[2], wb[3], e[i][0], e[i][1], e[i][2],
                      e[i][3], we[0], we[1], we[2], we[3]);
        }
        CHECK(!bad, "W=%u: %d items differ from C", w, bad);
        spvjit_kernel_free(k);
    }
    spv_module_free(m);
}
