/* testdata/kernels/reference.h — plain C references for the seed kernels.
 *
 * Each function computes what the kernel of the same name (mm, conv3x3,
 * reduce, saxpy; .comp and .cl alike) computes, in the same order of
 * floating-point operations.  `fused`: each multiply and the add that uses
 * it round once (fmaf), as spvjit contracts them in Shader modules (the
 * .comp kernels carry no NoContraction: jit/contract.h); else they round
 * twice, as in the Kernel modules (.cl, built without contraction), so a JIT
 * that neither reassociates nor fuses reproduces them bit for bit.  Products
 * and sums are separate statements so that C's own contraction
 * (`-ffp-contract=on`, clang's default) cannot turn them into an fma; compile
 * with -ffp-contract=off (GCC's default with -std=c17) to be sure.  Tests
 * should still compare with a small tolerance (another JIT, another order).
 *
 * Layouts are row-major, sizes are element counts.  See testdata/README.md.
 */
#ifndef SPVJIT_TESTDATA_REFERENCE_H
#define SPVJIT_TESTDATA_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The modules' default specialization values. */
#define REF_MM_BS_DEFAULT 16u      /* mm: SpecId 0 */
#define REF_REDUCE_WG_DEFAULT 256u /* reduce.comp: SpecId 0 */
#define REF_SAXPY_A_DEFAULT 2.0f   /* saxpy: SpecId 0 */
/* conv3x3: SpecIds 0..8, K[j*3+i] = tap at row offset j-1, column offset i-1. */
#define REF_CONV3X3_K_DEFAULT                                                                                          \
    {                                                                                                                  \
        0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f                                      \
    }

/* a * b + c: rounded once (fused) or twice. */
static inline float ref_madd(float a, float b, float c, bool fused)
{
    if (fused)
        return fmaf(a, b, c);
    float p = a * b;
    return p + c;
}

/* C = A * B, all n x n.  c[r*n+col] = sum over k = 0..n-1, in increasing k,
 * of a[r*n+k] * b[k*n+col], starting from 0.0f.  The tiled kernel adds the
 * same products in the same order (its zero padding past n adds +0.0f), so
 * the block size does not change the result. */
static inline void ref_mm(const float *a, const float *b, float *c, uint32_t n, bool fused)
{
    for (size_t r = 0; r < n; ++r) {
        for (size_t col = 0; col < n; ++col) {
            float acc = 0.0f;
            for (size_t k = 0; k < n; ++k)
                acc = ref_madd(a[r * n + k], b[k * n + col], acc, fused);
            c[r * n + col] = acc;
        }
    }
}

static inline size_t ref_clamp_index(long v, long hi)
{
    return (size_t)(v < 0 ? 0 : v > hi ? hi : v);
}

/* 3x3 convolution with clamp-to-edge, w x h image, w, h >= 1:
 * dst[y*w+x] = sum over j = 0..2 (outer), i = 0..2 (inner) of
 *   k[j*3+i] * src[clamp(y+j-1, 0, h-1) * w + clamp(x+i-1, 0, w-1)],
 * accumulated in that order from 0.0f. */
static inline void ref_conv3x3(const float *src, float *dst, uint32_t w, uint32_t h, const float k[9], bool fused)
{
    for (long y = 0; y < (long)h; ++y) {
        for (long x = 0; x < (long)w; ++x) {
            float acc = 0.0f;
            for (long j = 0; j < 3; ++j) {
                size_t sy = ref_clamp_index(y + j - 1, (long)h - 1);
                for (long i = 0; i < 3; ++i) {
                    size_t sx = ref_clamp_index(x + i - 1, (long)w - 1);
                    acc = ref_madd(k[j * 3 + i], src[sy * w + sx], acc, fused);
                }
            }
            dst[(size_t)y * w + (size_t)x] = acc;
        }
    }
}

/* Number of partial sums reduce writes for n inputs and work-group size wg. */
static inline uint32_t ref_reduce_groups(uint32_t n, uint32_t wg)
{
    return (uint32_t)(((uint64_t)n + wg - 1) / wg);
}

/* Work-group tree reduction: for every group g < ref_reduce_groups(n, wg),
 * s[i] = src[g*wg+i] (0.0f past n), then for stride = wg/2, wg/4, ..., 1:
 * s[i] = s[i] + s[i+stride] for i < stride; partial[g] = s[0].
 * wg must be a power of two >= 1.  Returns 0, or -1 (wg not a power of two,
 * or out of memory) without writing. */
static inline int ref_reduce(const float *src, uint32_t n, uint32_t wg, float *partial)
{
    if (wg == 0 || (wg & (wg - 1)) != 0)
        return -1;
    float *s = malloc((size_t)wg * sizeof *s);
    if (!s)
        return -1;
    uint32_t groups = ref_reduce_groups(n, wg);
    for (uint32_t g = 0; g < groups; ++g) {
        for (uint32_t i = 0; i < wg; ++i) {
            uint64_t gid = (uint64_t)g * wg + i;
            s[i] = gid < n ? src[gid] : 0.0f;
        }
        for (uint32_t stride = wg / 2; stride > 0; stride >>= 1)
            for (uint32_t i = 0; i < stride; ++i)
                s[i] = s[i] + s[i + stride];
        partial[g] = s[0];
    }
    free(s);
    return 0;
}

/* y[i] = a * x[i] + y[i] for i < n. */
static inline void ref_saxpy(float a, const float *x, float *y, uint32_t n, bool fused)
{
    for (size_t i = 0; i < n; ++i)
        y[i] = ref_madd(a, x[i], y[i], fused);
}

#endif
