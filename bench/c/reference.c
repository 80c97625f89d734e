/* bench/c/reference.c — the single-threaded plain C reference (see reference.h). */
#include "bench/c/reference.h"

#include <stdlib.h>
#include <string.h>

void bench_ref_mm(const float *a, const float *b, float *c, uint32_t n)
{
    /* i-k-j order: row i of c accumulates a[i][k] * row k of b, k ascending,
     * which is the per-element summation order of the blocked kernel too. */
    for (uint32_t i = 0; i < n; ++i) {
        float *crow = c + (size_t)i * n;
        memset(crow, 0, sizeof(float) * n);
        for (uint32_t k = 0; k < n; ++k) {
            float aik = a[(size_t)i * n + k];
            const float *brow = b + (size_t)k * n;
            for (uint32_t j = 0; j < n; ++j)
                crow[j] += aik * brow[j];
        }
    }
}

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void bench_ref_conv3x3(const float *src, float *dst, uint32_t w, uint32_t h, const float k[9])
{
    int iw = (int)w, ih = (int)h;
    for (int y = 0; y < ih; ++y)
        for (int x = 0; x < iw; ++x) {
            float acc = 0.0f;
            for (int j = 0; j < 3; ++j) {
                int sy = clamp_int(y + j - 1, 0, ih - 1);
                for (int i = 0; i < 3; ++i) {
                    int sx = clamp_int(x + i - 1, 0, iw - 1);
                    acc += k[j * 3 + i] * src[(size_t)sy * w + (size_t)sx];
                }
            }
            dst[(size_t)y * w + (size_t)x] = acc;
        }
}

void bench_ref_reduce(const float *src, float *partial, uint32_t n, uint32_t wg)
{
    float *s = malloc(sizeof(float) * wg);
    if (!s)
        abort();
    uint32_t groups = (n + wg - 1) / wg;
    for (uint32_t g = 0; g < groups; ++g) {
        for (uint32_t l = 0; l < wg; ++l) {
            size_t i = (size_t)g * wg + l;
            s[l] = i < n ? src[i] : 0.0f;
        }
        for (uint32_t stride = wg / 2; stride > 0; stride >>= 1)
            for (uint32_t l = 0; l < stride; ++l)
                s[l] += s[l + stride];
        partial[g] = s[0];
    }
    free(s);
}

void bench_ref_saxpy(const float *x, const float *y0, float *y, uint32_t n, float a)
{
    for (uint32_t i = 0; i < n; ++i)
        y[i] = a * x[i] + y0[i];
}

void bench_ref_scan(const float *src, float *dst, float *sums, uint32_t n, uint32_t wg)
{
    uint32_t groups = (n + wg - 1) / wg;
    for (uint32_t g = 0; g < groups; ++g) {
        float run = 0.0f;
        for (uint32_t l = 0; l < wg; ++l) {
            size_t i = (size_t)g * wg + l;
            if (i < n) {
                run += src[i];
                dst[i] = run;
            }
        }
        sums[g] = run;
    }
}
