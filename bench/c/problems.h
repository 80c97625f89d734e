/* bench/c/problems.h — the benchmark problems every runner shares.
 *
 * One table of cases (kernel + variant + the specialization values that make
 * the variant), the problem sizes, the random inputs (fixed seed), the plain C
 * single-threaded reference results and the check against them, and a launch
 * description (buffers, spec constants, push words, local size, work-group
 * count) that the Vulkan and OpenCL peers turn into API calls.  The interface
 * matches the kernels' sources: testdata/kernels/{mm,conv3x3,reduce,saxpy}.comp
 * and .cl, bench/kernels/{scan,sgreduce}.comp and .cl.
 */
#ifndef BENCH_PROBLEMS_H
#define BENCH_PROBLEMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum bench_kernel_id { BK_MM, BK_CONV3X3, BK_REDUCE, BK_SAXPY, BK_SCAN, BK_SGREDUCE, BK_COUNT } bench_kernel_id;

typedef struct bench_case {
    bench_kernel_id kernel;
    const char *name;    /* kernel name, also the source file stem: "mm" */
    const char *variant; /* "bs16", "dense", ... */
    uint32_t group;      /* mm: block size BS; reduce, scan, sgreduce: work-group size */
    float conv_k[9];     /* conv3x3 coefficients, row-major */
    float saxpy_a;       /* saxpy factor */
    bool subgroups;      /* uses sub-group operations (a runner without them prints check=skip) */
} bench_case;

extern const bench_case bench_cases[];
extern const size_t bench_case_count;

typedef struct bench_sizes {
    uint32_t mm_n;           /* N x N matrices */
    uint32_t conv_w, conv_h; /* image */
    uint32_t vec_n;          /* reduce, saxpy, scan, sgreduce elements */
} bench_sizes;

/* "full" is the benchmark (N=1024, 2048x2048, 2^24); "small" a quick smoke run. */
bool bench_sizes_named(const char *name, bench_sizes *out);

/* Host data of one case: inputs and the reference outputs (all malloc'd). */
typedef struct bench_data {
    float *in[2];     /* mm: A, B; conv3x3/reduce/scan: src; saxpy: x, y0 */
    size_t in_len[2]; /* floats; 0 when unused */
    float *ref[2];    /* expected outputs (scan: dst, group sums) */
    size_t ref_len[2];
} bench_data;

/* Inputs and reference for case c; reuses the previous result when only the
 * variant's launch shape differs (mm's block size does not change C = A*B).
 * The pointer stays valid until the next call or bench_data_release(). */
const bench_data *bench_data_for(const bench_case *c, const bench_sizes *s);
void bench_data_release(void);

/* Compares got against the reference output `which` (0 or 1) with the
 * kernel's tolerance; on a mismatch writes the first bad index and values to
 * why and returns false. */
bool bench_check(const bench_case *c, const bench_data *d, int which, const float *got, char *why, size_t why_len);

/* Throughput of one run of ms milliseconds, and its unit. */
double bench_throughput(const bench_case *c, const bench_sizes *s, double ms, const char **unit);

/* --- launch description for the API peers ------------------------------ */

typedef struct bench_buffer {
    const float *init; /* initial contents (len floats), NULL: zeros */
    size_t len;        /* floats */
    int ref_index;     /* which reference output it must equal, -1: none */
} bench_buffer;

/* Whether a timed run must start by restoring the buffer: only one the kernel
 * both reads and writes (saxpy's y).  The others are set once before the
 * first run, as the C ceiling's are: inputs are only read and outputs wholly
 * overwritten, so every run does the same work, and no runner times its
 * kernel behind a fresh copy of megabytes of dirty cache lines. */
static inline bool bench_buffer_reset_each_run(const bench_buffer *b)
{
    return b->init && b->ref_index >= 0;
}

typedef struct bench_spec {
    uint32_t id;
    uint32_t bits; /* the 32-bit value (float bits when is_float) */
    bool is_float;
} bench_spec;

typedef struct bench_launch {
    bench_buffer buf[3]; /* binding i = kernel argument i */
    int nbuf;
    bench_spec spec[9];
    int nspec;
    uint32_t push[2]; /* push-constant words = the scalar kernel arguments after the buffers */
    int npush;
    uint32_t local[2];          /* local size x, y (z = 1) */
    uint32_t groups[2];         /* work-groups x, y */
    uint32_t cl_scratch_floats; /* OpenCL: a trailing __local float * argument of this many floats, 0: none */
} bench_launch;

void bench_launch_for(const bench_case *c, const bench_sizes *s, const bench_data *d, bench_launch *out);

/* Deterministic random numbers (xorshift64*). */
uint64_t bench_rand_u64(uint64_t *state);
float bench_rand_float(uint64_t *state, float lo, float hi);

#endif
