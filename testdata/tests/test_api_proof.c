/* testdata/tests/test_api_proof.c — memory=robust's proofs (jit/guard_versions.h):
 * the optimized code runs a row of work-groups without the bounds checks it
 * proves for all of them, and hands a group it cannot prove to the quick
 * tier's fully checked code (jit/abi.h).  Each pattern of
 * testdata/jit/proof.comp and proof.cl runs on sizes no multiple of the
 * local size, with buffers holding exactly what the guards allow: the
 * results match a C reference computed here, and the count of handed-back
 * groups (spvjit_kernel_stats.fallback_groups) is what the guards make it —
 * none where they keep every access in bounds (the analysis narrows values
 * by the branches on the way to an access), exactly the groups that reach
 * past the end where a guard is one too wide (and their store is dropped, as
 * robustBufferAccess2 says).  On the quick tier nothing is proven and
 * nothing handed back; the results are the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"
#include "harness.h"
#include "lib/spvjit.h"

static spvjit_kernel *build(spvjit_context *ctx, const char *rel, const char *entry, int pattern)
{
    spvjit_module *m = api_load(ctx, rel);
    spvjit_specs *specs = NULL;
    spvjit_kernel *k = NULL;
    spvjit_build_options o = { .memory = SPVJIT_MEMORY_ROBUST, .tier = api_suite_tier() };
    if (!m || spvjit_specs_create(&specs) != SPVJIT_OK ||
        (pattern >= 0 && spvjit_spec_set_i32(specs, 0, pattern) != SPVJIT_OK) ||
        spvjit_kernel_build(m, entry, specs, &o, &k) != SPVJIT_OK)
        fprintf(stderr, "build %s %s %d: %s\n", rel, entry ? entry : "", pattern, spvjit_last_error());
    spvjit_specs_destroy(specs);
    spvjit_module_destroy(m);
    return k;
}

static uint64_t fallback_groups(const spvjit_kernel *k)
{
    spvjit_kernel_stats st;
    return spvjit_kernel_stats_get(k, &st) == SPVJIT_OK ? st.fallback_groups : UINT64_MAX;
}

/* The C reference of proof.comp's pattern p on a w x h image (n = w * h
 * elements in, n out, out starting as `init`). */
static void reference(int p, const float *in, float *out, uint32_t w, uint32_t h)
{
    uint32_t n = w * h;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = i % w, y = i / w;
        switch (p) {
        case 0:
            out[i] = 2.0f * in[i];
            break;
        case 1:
            out[i] = i + 1 < n ? in[i + 1] : 0.0f;
            break;
        case 2: {
            /* work-item (x, y) adds in[y*w + t + x % 16] over the tiles t < w */
            float acc = 0.0f;
            for (uint32_t t = 0; t < w; t += 16)
                acc += t + x % 16 < w ? in[y * w + t + x % 16] : 0.0f;
            out[i] = acc;
            break;
        }
        case 3: {
            /* the group's tree sum (its 64 items: 16 x 4, 0 past the end),
             * plus the inclusive prefix sum of the local index */
            uint32_t gx = x / 16, gy = y / 4;
            float t[64];
            for (uint32_t l = 0; l < 64; l++) {
                uint32_t xx = gx * 16 + l % 16, yy = gy * 4 + l / 16;
                t[l] = xx < w && yy < h ? in[yy * w + xx] : 0.0f;
            }
            for (uint32_t stride = 32; stride > 0; stride >>= 1)
                for (uint32_t l = 0; l < stride; l++)
                    t[l] += t[l + stride];
            uint32_t lid = (y % 4) * 16 + x % 16;
            out[i] = t[0] + (float)(lid * (lid + 1) / 2);
            break;
        }
        default:
            out[i] = 1.0f;
            break;
        }
    }
}

/* Pattern 4's groups (16 x 4) with an item at i = w * h, one past the end:
 * those the optimized code must hand back; *boxed: those whose box of
 * indices, [lowest y * w + lowest x, highest y * w + highest x], reaches it,
 * which interval arithmetic cannot tell from them (at most those go back). */
static uint64_t groups_reaching_n(uint32_t w, uint32_t h, uint32_t gx, uint32_t gy, uint64_t *boxed)
{
    uint64_t n = (uint64_t)w * h, count = 0;
    *boxed = 0;
    for (uint32_t by = 0; by < gy; by++)
        for (uint32_t bx = 0; bx < gx; bx++) {
            bool reaches = false;
            for (uint32_t ly = 0; ly < 4 && !reaches; ly++)
                for (uint32_t lx = 0; lx < 16 && !reaches; lx++)
                    reaches = (uint64_t)(by * 4 + ly) * w + bx * 16 + lx == n;
            count += reaches;
            *boxed += (uint64_t)(by * 4 + 3) * w + bx * 16 + 15 >= n;
        }
    return count;
}

/* Every pattern on sizes the group does not divide (and one it does), twice,
 * in three layers of groups in z from base group z 1 (the kernel ignores z:
 * each layer does the same): the count of handed-back groups adds up.  A call
 * of the range function spanning rows asks the proof once for a box holding
 * all its groups (jit/group_range.c); the layers make those boxes span z, and
 * a box that missed a group reaching past the end would let its store
 * through (the guard values past the end would change). */
TEST(proof_patterns_shader)
{
    static const uint32_t sizes[][2] = { { 67, 45 }, { 64, 16 }, { 15, 3 }, { 200, 7 } };
    const uint32_t layers = 3;
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    bool opt = !test_quick_tier();
    for (int p = 0; p <= 4; p++) {
        spvjit_kernel *k = build(ctx, "jit/proof.comp.spv", NULL, p);
        REQUIRE(k, "pattern %d", p);
        uint64_t want_fallback = 0, at_most = 0; /* handed-back groups so far: exactly, or (pattern 4) in between */
        for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            uint32_t w = sizes[si][0], h = sizes[si][1], n = w * h, gx = (w + 15) / 16, gy = (h + 3) / 4;
            uint64_t seed = 9000 + 31 * p + si;
            float *in = api_rand_floats(&seed, n, -4.0f, 4.0f), *out = calloc(n + 64, 4), *want = calloc(n + 64, 4);
            REQUIRE(in && out && want, "out of memory");
            for (uint32_t i = n; i < n + 64; i++)
                out[i] = want[i] = 7.0f; /* past the bound range: must stay */
            reference(p, in, want, w, h);
            uint32_t push[2] = { w, h };
            REQUIRE(spvjit_bind_buffer(k, 0, 0, in, 4ull * n) == SPVJIT_OK &&
                        spvjit_bind_buffer(k, 0, 1, out, 4ull * n) == SPVJIT_OK &&
                        spvjit_set_push_constants(k, push, sizeof push) == SPVJIT_OK,
                    "bind: %s", spvjit_last_error());
            for (int rep = 0; rep < 2; rep++)
                REQUIRE(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { gx, gy, layers },
                                                                    .base_group = { 0, 0, 1 } }) == SPVJIT_OK,
                        "pattern %d %ux%u: %s", p, w, h, spvjit_last_error());
            long bad = api_first_mismatch(out, want, n + 64, 1e-5f, 1e-5f);
            CHECK(bad < 0, "pattern %d %ux%u: element %ld: %g, want %g", p, w, h, bad, bad < 0 ? 0.0 : out[bad],
                  bad < 0 ? 0.0 : want[bad]);
            uint64_t boxed = 0, reaching = groups_reaching_n(w, h, gx, gy, &boxed);
            want_fallback += opt && p == 4 ? 2 * layers * reaching : 0;
            at_most += opt && p == 4 ? 2 * layers * boxed : 0;
            uint64_t got = fallback_groups(k);
            CHECK(got >= want_fallback && got <= (at_most > want_fallback ? at_most : want_fallback),
                  "pattern %d %ux%u (%s tier): %llu work-groups handed back, want %llu (at most %llu)", p, w, h,
                  opt ? "optimized" : "quick", (unsigned long long)got, (unsigned long long)want_fallback,
                  (unsigned long long)at_most);
            free(in);
            free(out);
            free(want);
        }
        if (opt && p == 4)
            CHECK(want_fallback > 0, "pattern 4 never reached past its buffer: the test is wrong");
        spvjit_kernel_destroy(k);
    }
    spvjit_context_destroy(ctx);
}

/* OpenCL ids (size_t) compared wide, truncated to uint, in 2-D; NDRanges the
 * local size does not divide; nothing handed back. */
TEST(proof_patterns_kernel)
{
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    static const char *const entries[] = { "wide_id", "narrow_id", "rows" };
    for (int e = 0; e < 3; e++) {
        spvjit_kernel *k = build(ctx, "jit/proof.cl.spv", entries[e], -1);
        REQUIRE(k, "%s", entries[e]);
        bool two_d = e == 2;
        uint32_t w = two_d ? 37 : 1000, h = two_d ? 21 : 1, n = w * h;
        uint64_t seed = 777 + e;
        float *in = api_rand_floats(&seed, n, -2.0f, 2.0f), *out = calloc(n, 4);
        REQUIRE(in && out, "out of memory");
        REQUIRE(spvjit_set_arg_buffer(k, 0, in, 4ull * n) == SPVJIT_OK &&
                    spvjit_set_arg_buffer(k, 1, out, 4ull * n) == SPVJIT_OK &&
                    spvjit_set_arg_value(k, 2, two_d ? &w : &n, 4) == SPVJIT_OK &&
                    (!two_d || spvjit_set_arg_value(k, 3, &h, 4) == SPVJIT_OK),
                "set args: %s", spvjit_last_error());
        spvjit_dispatch_info di = { .work_dim = two_d ? 2 : 1,
                                    .global_size = { two_d ? 48 : 1024, two_d ? 24 : 1, 1 },
                                    .local_size = { two_d ? 16 : 64, two_d ? 4 : 1, 1 } };
        REQUIRE(spvjit_dispatch(k, &di) == SPVJIT_OK, "%s: %s", entries[e], spvjit_last_error());
        long bad = -1;
        for (uint32_t i = 0; i < n && bad < 0; i++) {
            float want = e == 0 ? in[i] * 3.0f : e == 1 ? in[i] + 1.0f : in[i] - 1.0f;
            if (out[i] != want)
                bad = i;
        }
        CHECK(bad < 0, "%s: element %ld wrong", entries[e], bad);
        CHECK(fallback_groups(k) == 0, "%s: %llu work-groups handed back, want none", entries[e],
              (unsigned long long)fallback_groups(k));
        free(in);
        free(out);
        spvjit_kernel_destroy(k);
    }
    spvjit_context_destroy(ctx);
}

/* The work-group kernels of the benchmarks on an element count no multiple of
 * their 256-item groups: reduce's halving stride and the reduction through
 * sub-group operations (s[gl_SubgroupID], a loop to gl_NumSubgroups), the
 * scan's doubling offsets (s[lid - off] under lid >= off): their work-group
 * memory accesses and their buffers' all proven, nothing handed back. */
TEST(proof_work_group_kernels)
{
    static const char *const files[] = { "kernels/reduce.comp.spv", "../bench/kernels/sgreduce.comp.spv",
                                         "../bench/kernels/scan.comp.spv" };
    spvjit_context *ctx = api_ctx(0);
    REQUIRE(ctx, "context");
    for (int f = 0; f < 3; f++) {
        spvjit_kernel *k = build(ctx, files[f], NULL, -1);
        REQUIRE(k, "%s", files[f]);
        uint32_t n = 256 * 37 + 101, groups = (n + 255) / 256;
        uint64_t seed = 4242 + f;
        float *in = api_rand_floats(&seed, n, -1.0f, 1.0f), *out = calloc(n, 4), *sums = calloc(groups, 4);
        REQUIRE(in && out && sums, "out of memory");
        bool scan = f == 2;
        REQUIRE(spvjit_bind_buffer(k, 0, 0, in, 4ull * n) == SPVJIT_OK &&
                    spvjit_bind_buffer(k, 0, 1, scan ? out : sums, scan ? 4ull * n : 4ull * groups) == SPVJIT_OK &&
                    (!scan || spvjit_bind_buffer(k, 0, 2, sums, 4ull * groups) == SPVJIT_OK) &&
                    spvjit_set_push_constants(k, &n, 4) == SPVJIT_OK,
                "bind %s: %s", files[f], spvjit_last_error());
        REQUIRE(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { groups, 1, 1 } }) == SPVJIT_OK, "%s: %s",
                files[f], spvjit_last_error());
        uint32_t bad = 0;
        for (uint32_t g = 0; g < groups; g++) {
            double run = 0.0; /* each group's (prefix) sums, in double: the kernels add in tree order */
            for (uint32_t i = g * 256; i < (g + 1) * 256 && i < n; i++) {
                run += in[i];
                bad += scan && fabs(out[i] - run) > 1e-4 * (1 + fabs(run));
            }
            bad += fabs(sums[g] - run) > 1e-4 * (1 + fabs(run));
        }
        CHECK(bad == 0, "%s: %u sums wrong", files[f], bad);
        CHECK(fallback_groups(k) == 0, "%s: %llu work-groups handed back, want none", files[f],
              (unsigned long long)fallback_groups(k));
        free(in);
        free(out);
        free(sums);
        spvjit_kernel_destroy(k);
    }
    spvjit_context_destroy(ctx);
}

/* testdata/jit/band.comp: a barrier-free 16 x 4 x 2 kernel without work-group
 * memory, whose groups run in bands (jit/group_range.h: a row of work-items
 * of every group of a row of groups, then the next row).  On sizes the group
 * does not divide and one it does, with two threads taking ranges that start
 * mid-row: every in-image item runs exactly once with its own ids and reads
 * (a clamped 3-tap stencil, against C here), and the one-too-wide guard's
 * item at i == n is handed back and stores nothing (sentinels past `tail`),
 * exactly where the size has such an item: whole layers or rows of groups,
 * or one group of a row whose others run in bands. */
TEST(proof_bands)
{
    static const uint32_t sizes[][3] = { { 37, 9, 3 }, { 64, 8, 2 }, { 200, 13, 1 }, { 16, 4, 4 }, { 37, 8, 2 } };
    spvjit_context *ctx = NULL;
    REQUIRE(spvjit_context_create(&(spvjit_context_options){ .threads = 2, .disk_cache_dir = "" }, &ctx) == SPVJIT_OK,
            "context: %s", spvjit_last_error());
    bool opt = !test_quick_tier();
    spvjit_kernel *k = build(ctx, "jit/band.comp.spv", NULL, -1);
    REQUIRE(k, "band.comp");
    uint64_t handed = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t sx = sizes[si][0], sy = sizes[si][1], sz = sizes[si][2], n = sx * sy * sz;
        uint32_t gx = (sx + 15) / 16, gy = (sy + 3) / 4, gz = (sz + 1) / 2;
        uint32_t *src = malloc(4ull * n), *o = calloc(4ull * n, 4), *tail = malloc(4ull * (n + 64));
        REQUIRE(src && o && tail, "out of memory");
        uint64_t seed = 77 + si;
        for (uint32_t i = 0; i < n; i++)
            src[i] = (uint32_t)(test_rand_u64(&seed) % 1000);
        for (uint32_t i = 0; i < n + 64; i++)
            tail[i] = 0xdeadbeefu;
        uint32_t push[3] = { sx, sy, sz };
        REQUIRE(spvjit_bind_buffer(k, 0, 0, src, 4ull * n) == SPVJIT_OK &&
                    spvjit_bind_buffer(k, 0, 1, o, 16ull * n) == SPVJIT_OK &&
                    spvjit_bind_buffer(k, 0, 2, tail, 4ull * n) == SPVJIT_OK &&
                    spvjit_set_push_constants(k, push, sizeof push) == SPVJIT_OK,
                "bind: %s", spvjit_last_error());
        REQUIRE(spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { gx, gy, gz } }) == SPVJIT_OK, "%ux%ux%u: %s",
                sx, sy, sz, spvjit_last_error());
        uint32_t bad = 0, first_bad = UINT32_MAX;
        for (uint32_t z = 0; z < sz; z++)
            for (uint32_t y = 0; y < sy; y++)
                for (uint32_t x = 0; x < sx; x++) {
                    uint32_t i = x + sx * (y + sy * z), row = i - x;
                    uint32_t l = row + (x ? x - 1 : 0), r = row + (x + 1 < sx ? x + 1 : sx - 1);
                    uint32_t want[4] = { (x / 16) | (y / 4) << 10 | (z / 2) << 20,
                                         (x % 16) | (y % 4) << 10 | (z % 2) << 20, src[l] + 2 * src[i] + src[r], 1 };
                    bool ok = !memcmp(&o[4 * i], want, sizeof want) && tail[i] == i + 1;
                    bad += !ok;
                    first_bad = !ok && first_bad == UINT32_MAX ? i : first_bad;
                }
        CHECK(bad == 0, "%ux%ux%u: %u items wrong, the first i = %u", sx, sy, sz, bad, first_bad);
        uint32_t touched = 0;
        for (uint32_t i = n; i < n + 64; i++)
            touched += tail[i] != 0xdeadbeefu;
        CHECK(touched == 0, "%ux%ux%u: %u words past the bound tail changed", sx, sy, sz, touched);
        /* an item at i == n: (0, sy, sz - 1), (0, 0, sz) or (sx, sy - 1, sz - 1), dispatched where
         * the group does not divide that size (37 x 8 x 2: only in the last group of the last
         * row, whose other groups are proven one by one) */
        bool reaches = sx % 16 || sy % 4 || sz % 2;
        uint64_t now = fallback_groups(k);
        CHECK(opt ? (reaches ? now > handed : now == handed) : now == 0,
              "%ux%ux%u (%s tier): %llu work-groups handed back so far, %llu before", sx, sy, sz,
              opt ? "optimized" : "quick", (unsigned long long)now, (unsigned long long)handed);
        handed = now;
        free(src);
        free(o);
        free(tail);
    }
    spvjit_kernel_destroy(k);
    spvjit_context_destroy(ctx);
}
