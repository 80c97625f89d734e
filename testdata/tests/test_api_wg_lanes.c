/* testdata/tests/test_api_wg_lanes.c — work-group memory read and written by
 * sub-groups at lane offsets that are not multiples of the vector, with lanes
 * partly active (testdata/jit/wg_lanes.comp): the vector code's whole-vector
 * forms for work-group memory (jit/simd_memory.c: aligned pairs and a lane
 * permutation for loads, whole-vector stores that rewrite inactive lanes'
 * bytes as they are) against the computation in plain C, bit for bit.
 *
 * Group sizes that are whole sub-groups and that are not (a partial last
 * sub-group), shifts below, at and past the sub-group size, forwards and
 * backwards; every memory mode; the native sub-group size (the whole-vector
 * forms where the host has them), 8, 4 and the scalar path; regions and
 * fibers.  The tree reduction at the end is reduce.comp's pattern. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"
#include "harness.h"
#include "lib/spvjit.h"

enum { GROUPS = 3 };

/* wg_lanes.comp for group size ls and shift k on x (GROUPS * ls values):
 * y (GROUPS * ls) and r (GROUPS). */
static void reference(uint32_t ls, uint32_t k, const float *x, float *y, float *r)
{
    float *s = malloc(ls * sizeof *s), *a = malloc(ls * sizeof *a);
    int32_t *t = malloc((ls + 7) * sizeof *t);
    float pad[3] = { -1.0f, -2.0f, -3.0f };
    for (uint32_t g = 0; g < GROUPS; g++) {
        for (uint32_t l = 0; l < ls; l++) {
            s[l] = x[g * ls + l];
            t[l] = (int32_t)l * 3 - 7;
        }
        for (uint32_t j = 0; j < 7; j++)
            t[ls + j] = 1000 + (int32_t)j;
        for (uint32_t l = 0; l < ls; l++) {
            float sum = (l >= k ? s[l - k] : 0.0f) + (l + k < ls ? s[l + k] : 0.0f);
            a[l] = sum + (float)t[l + 7 - k % 8];
        }
        for (uint32_t l = 0; l < ls; l++)
            if (l % 3 != 1)
                s[l] = a[l];
        for (uint32_t l = 0; l < ls; l++)
            y[g * ls + l] = s[l] + pad[l % 3];
        uint32_t p = 1;
        while (p < ls)
            p *= 2;
        for (uint32_t stride = p / 2; stride > 0; stride >>= 1)
            for (uint32_t l = 0; l < stride && l + stride < ls; l++)
                s[l] += s[l + stride];
        r[g] = s[0];
    }
    free(s);
    free(a);
    free(t);
}

TEST(wg_lanes_against_c)
{
    static const uint32_t sizes[][2] = { { 64, 5 }, { 100, 17 }, { 256, 1 }, { 37, 16 },
                                         { 48, 8 }, { 16, 3 },   { 200, 33 } };
    static const uint32_t sg_sizes[] = { SPVJIT_SUBGROUP_SIZE_NATIVE, 8, 4, 1 };
    static const spvjit_memory modes[] = { SPVJIT_MEMORY_ROBUST, SPVJIT_MEMORY_UNCHECKED, SPVJIT_MEMORY_CHECK };
    spvjit_context *ctx = NULL;
    spvjit_module *m = api_ctx_load("jit/wg_lanes.comp.spv", &ctx);
    REQUIRE(m, "wg_lanes.comp: %s", spvjit_last_error());
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t ls = sizes[si][0], k = sizes[si][1], n = GROUPS * ls;
        uint64_t seed = 1000 + si;
        float *x = api_rand_floats(&seed, n, -8.0f, 8.0f);
        float *want_y = malloc(n * sizeof *want_y), want_r[GROUPS];
        reference(ls, k, x, want_y, want_r);
        spvjit_specs *specs = NULL;
        REQUIRE(spvjit_specs_create(&specs) == SPVJIT_OK && spvjit_spec_set_u32(specs, 0, ls) == SPVJIT_OK &&
                    spvjit_spec_set_u32(specs, 1, k) == SPVJIT_OK,
                "specs: %s", spvjit_last_error());
        /* every mode and fibers at the native size, the others robust; the
         * variants built at once (spvjit_kernel_build_async), then run in turn */
        enum { NVARIANTS = 4 + (sizeof sg_sizes / sizeof sg_sizes[0] - 1) };
        spvjit_build_event *ev[NVARIANTS];
        char what[NVARIANTS][96];
        unsigned nv = 0;
        for (size_t gi = 0; gi < sizeof sg_sizes / sizeof sg_sizes[0]; gi++)
            for (size_t mi = 0; mi < (gi ? 1 : sizeof modes / sizeof modes[0]); mi++)
                for (int fibers = 0; fibers <= (gi == 0 && mi == 0); fibers++, nv++) {
                    spvjit_build_options o = { .tier = api_suite_tier(),
                                               .memory = modes[mi],
                                               .subgroup_size = sg_sizes[gi],
                                               .simd = sg_sizes[gi] == 1 ? SPVJIT_SIMD_OFF : SPVJIT_SIMD_AUTO,
                                               .barriers = fibers ? SPVJIT_BARRIERS_FIBERS : SPVJIT_BARRIERS_AUTO };
                    snprintf(what[nv], sizeof what[nv], "LS %u K %u, sub-group size %d, memory mode %zu%s", ls, k,
                             gi ? (int)sg_sizes[gi] : -1, mi, fibers ? ", fibers" : "");
                    REQUIRE(nv < NVARIANTS && spvjit_kernel_build_async(m, NULL, specs, &o, &ev[nv]) == SPVJIT_OK,
                            "%s: build: %s", what[nv], spvjit_last_error());
                }
        for (unsigned v = 0; v < nv; v++) {
            spvjit_kernel *kern = NULL;
            if (spvjit_build_wait(ev[v], &kern) != SPVJIT_OK) {
                CHECK(0, "%s: build: %s", what[v], spvjit_last_error());
                continue;
            }
            float *y = calloc(n, sizeof *y), r[GROUPS] = { 0 };
            REQUIRE(spvjit_bind_buffer(kern, 0, 0, x, n * sizeof *x) == SPVJIT_OK &&
                        spvjit_bind_buffer(kern, 0, 1, y, n * sizeof *y) == SPVJIT_OK &&
                        spvjit_bind_buffer(kern, 0, 2, r, sizeof r) == SPVJIT_OK,
                    "%s: bind: %s", what[v], spvjit_last_error());
            spvjit_status st = spvjit_dispatch(kern, &(spvjit_dispatch_info){ .groups = { GROUPS, 1, 1 } });
            CHECK(st == SPVJIT_OK, "%s: dispatch: %s", what[v], spvjit_last_error());
            long bad = -1;
            for (uint32_t i = 0; i < n && bad < 0; i++)
                if (memcmp(&y[i], &want_y[i], sizeof *y))
                    bad = (long)i;
            CHECK(st != SPVJIT_OK || bad < 0, "%s: y[%ld] = %.9g, C %.9g", what[v], bad, bad < 0 ? 0.0 : y[bad],
                  bad < 0 ? 0.0 : want_y[bad]);
            for (uint32_t g = 0; g < GROUPS && st == SPVJIT_OK; g++)
                CHECK(!memcmp(&r[g], &want_r[g], sizeof r[g]), "%s: r[%u] = %.9g, C %.9g", what[v], g, r[g], want_r[g]);
            free(y);
            spvjit_kernel_destroy(kern);
        }
        spvjit_specs_destroy(specs);
        free(x);
        free(want_y);
    }
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
}
