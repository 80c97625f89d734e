/* bench/c/ceiling_vector.c — the one-dimensional kernels: reduce, saxpy, scan.
 * Work units are the kernels' work-groups (chunks of them for OpenMP's
 * dynamic schedule); sums use `omp simd reduction`. */
#include "bench/c/ceiling.h"

#include <stddef.h>

#define GROUPS_PER_CHUNK 16 /* 16 x 256 floats = 16 KiB of input per scheduled unit */

static void reduce_wg256(const float *restrict src, float *restrict partial, uint32_t n)
{
    enum { WG = 256 };
    uint32_t groups = (n + WG - 1) / WG;
#pragma omp parallel for schedule(dynamic, GROUPS_PER_CHUNK)
    for (uint32_t g = 0; g < groups; ++g) {
        size_t base = (size_t)g * WG;
        size_t len = n - base < WG ? n - base : WG;
        const float *p = src + base;
        float s = 0.0f;
        if (len == WG) {
#pragma omp simd reduction(+ : s)
            for (size_t i = 0; i < WG; ++i) /* literal trip count */
                s += p[i];
        } else {
#pragma omp simd reduction(+ : s)
            for (size_t i = 0; i < len; ++i)
                s += p[i];
        }
        partial[g] = s;
    }
}

bool ceiling_reduce(uint32_t wg, const float *src, float *partial, uint32_t n)
{
    if (wg != 256)
        return false;
    reduce_wg256(src, partial, n);
    return true;
}

static void saxpy_a2_5(const float *restrict x, float *restrict y, uint32_t n)
{
    const float a = 2.5f; /* the spec value as a literal */
    enum { CHUNK = 64 * 256 };
#pragma omp parallel for schedule(dynamic)
    for (uint32_t c = 0; c < (n + CHUNK - 1) / CHUNK; ++c) {
        size_t lo = (size_t)c * CHUNK, hi = lo + CHUNK < n ? lo + CHUNK : n;
#pragma omp simd
        for (size_t i = lo; i < hi; ++i)
            y[i] = a * x[i] + y[i];
    }
}

bool ceiling_saxpy(float a, const float *x, float *y, uint32_t n)
{
    if (a != 2.5f)
        return false;
    saxpy_a2_5(x, y, n);
    return true;
}

static void scan_wg256(const float *restrict src, float *restrict dst, float *restrict sums, uint32_t n)
{
    enum { WG = 256 };
    uint32_t groups = (n + WG - 1) / WG;
#pragma omp parallel for schedule(dynamic, GROUPS_PER_CHUNK)
    for (uint32_t g = 0; g < groups; ++g) {
        size_t base = (size_t)g * WG;
        size_t len = n - base < WG ? n - base : WG;
        float run = 0.0f;
        for (size_t i = 0; i < len; ++i) { /* a scan is a dependency chain */
            run += src[base + i];
            dst[base + i] = run;
        }
        sums[g] = run;
    }
}

bool ceiling_scan(uint32_t wg, const float *src, float *dst, float *sums, uint32_t n)
{
    if (wg != 256)
        return false;
    scan_wg256(src, dst, sums, n);
    return true;
}
