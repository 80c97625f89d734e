/* bench/c/reference.h — plain, single-threaded C versions of the benchmark
 * kernels: the independent answer every runner is checked against.  Written
 * for clarity, not speed, and compiled without -march=native or FP
 * contraction so they do not share code generation with the C ceiling.
 */
#ifndef BENCH_REFERENCE_H
#define BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

/* c = a * b, row-major n x n; each element summed over k in ascending order. */
void bench_ref_mm(const float *a, const float *b, float *c, uint32_t n);

/* 3x3 convolution, clamp-to-edge, taps summed row by row (j outer, i inner). */
void bench_ref_conv3x3(const float *src, float *dst, uint32_t w, uint32_t h, const float k[9]);

/* partial[g] = sum of src[g*wg .. g*wg+wg-1] (0 past n) in the kernel's tree order. */
void bench_ref_reduce(const float *src, float *partial, uint32_t n, uint32_t wg);

/* y[i] = a * x[i] + y0[i]. */
void bench_ref_saxpy(const float *x, const float *y0, float *y, uint32_t n, float a);

/* Inclusive prefix sum within each group of wg elements (sequential order);
 * sums[g] = the group's total (0 past n). */
void bench_ref_scan(const float *src, float *dst, float *sums, uint32_t n, uint32_t wg);

#endif
