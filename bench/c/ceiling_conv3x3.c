/* bench/c/ceiling_conv3x3.c — 3x3 convolution, clamp-to-edge, the algorithm of
 * conv3x3.comp, with the coefficients as literals (one function per variant).
 * Rows are the OpenMP work units (dynamic).  Interior pixels take a clamp-free
 * path that vectorizes; a zero tap is skipped at compile time (`if (K[t])`
 * on a constant), which is what specialization should reach: -O3 alone may not
 * drop 0*x, since 0*inf is NaN. */
#include "bench/c/ceiling.h"

#include <string.h>

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* K must be a constant array visible at the call (always inlined). */
static inline __attribute__((always_inline)) void conv_row(const float K[9], const float *restrict src,
                                                           float *restrict dst, int w, int h, int y)
{
    const float *r[3];
    for (int j = 0; j < 3; ++j)
        r[j] = src + (size_t)clampi(y + j - 1, 0, h - 1) * (size_t)w;
    float *out = dst + (size_t)y * (size_t)w;
    int edges[2] = { 0, w - 1 }; /* the edge columns clamp; equal when w == 1 */
    for (int e = 0; e < 2; ++e) {
        int x = edges[e];
        float acc = 0.0f;
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i)
                if (K[j * 3 + i] != 0.0f)
                    acc += K[j * 3 + i] * r[j][clampi(x + i - 1, 0, w - 1)];
        out[x] = acc;
    }
#pragma omp simd
    for (int x = 1; x < w - 1; ++x) {
        float acc = 0.0f;
        for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i)
                if (K[j * 3 + i] != 0.0f)
                    acc += K[j * 3 + i] * r[j][x + i - 1];
        out[x] = acc;
    }
}

#define DEFINE_CONV(NAME, ...)                                                                                         \
    static void conv_##NAME(const float *restrict src, float *restrict dst, int w, int h)                              \
    {                                                                                                                  \
        static const float K[9] = { __VA_ARGS__ };                                                                     \
        _Pragma("omp parallel for schedule(dynamic, 4)") for (int y = 0; y < h; ++y) conv_row(K, src, dst, w, h, y);   \
    }

/* The same coefficients as the cases in problems.c (checked there by the
 * reference comparison: a mismatch fails the check). */
DEFINE_CONV(dense, -0.125f, -0.125f, -0.125f, -0.125f, 2.0f, -0.125f, -0.125f, -0.125f, -0.125f)
DEFINE_CONV(sparse, 0.0f, 0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.0f)

bool ceiling_conv3x3(const char *variant, const float *src, float *dst, uint32_t w, uint32_t h)
{
    if (strcmp(variant, "dense") == 0)
        conv_dense(src, dst, (int)w, (int)h);
    else if (strcmp(variant, "sparse") == 0)
        conv_sparse(src, dst, (int)w, (int)h);
    else
        return false;
    return true;
}
