/* bench/c/ceiling.h — the "C ceiling": each benchmark algorithm written in
 * plain C, compiled ahead of time with gcc -O3 -march=native -fopenmp, with
 * every specialization value a compile-time literal (what a perfect
 * specializer could reach), parallelised with OpenMP schedule(dynamic) over
 * the same units a work-group covers.  The thread count is OpenMP's
 * (omp_set_num_threads by the caller).
 */
#ifndef BENCH_CEILING_H
#define BENCH_CEILING_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/c/problems.h"

/* Runs case c once on the inputs of d, writing out[0] (and out[1] for scan).
 * For saxpy out[0] must hold y0 on entry (y is updated in place).
 * Returns false if the case has no ceiling version (unknown variant). */
bool ceiling_run(const bench_case *c, const bench_sizes *s, const bench_data *d, float *out[2]);

/* The kernels, one per specialization (see the .c files). */
bool ceiling_mm(uint32_t bs, const float *a, const float *b, float *c, uint32_t n);
bool ceiling_conv3x3(const char *variant, const float *src, float *dst, uint32_t w, uint32_t h);
bool ceiling_reduce(uint32_t wg, const float *src, float *partial, uint32_t n);
bool ceiling_saxpy(float a, const float *x, float *y, uint32_t n);
bool ceiling_scan(uint32_t wg, const float *src, float *dst, float *sums, uint32_t n);

#endif
