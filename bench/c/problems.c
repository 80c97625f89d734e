/* bench/c/problems.c — cases, sizes, inputs, references, checks, launches. */
#include "bench/c/problems.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/c/reference.h"

/* The variants.  Spec values differ from the kernels' defaults on purpose, so a
 * runner that ignored them fails its check. */
const bench_case bench_cases[] = {
    { .kernel = BK_MM, .name = "mm", .variant = "bs8", .group = 8 },
    { .kernel = BK_MM, .name = "mm", .variant = "bs16", .group = 16 },
    { .kernel = BK_MM, .name = "mm", .variant = "bs32", .group = 32 },
    /* dense: a sharpen filter, all nine taps non-zero */
    { .kernel = BK_CONV3X3,
      .name = "conv3x3",
      .variant = "dense",
      .conv_k = { -0.125f, -0.125f, -0.125f, -0.125f, 2.0f, -0.125f, -0.125f, -0.125f, -0.125f } },
    /* sparse: the four edge neighbours, five of nine taps (corners, centre) zero */
    { .kernel = BK_CONV3X3,
      .name = "conv3x3",
      .variant = "sparse",
      .conv_k = { 0.0f, 0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.0f, 0.25f, 0.0f } },
    { .kernel = BK_REDUCE, .name = "reduce", .variant = "wg256", .group = 256 },
    { .kernel = BK_SAXPY, .name = "saxpy", .variant = "a2.5", .saxpy_a = 2.5f },
    { .kernel = BK_SCAN, .name = "scan", .variant = "wg256", .group = 256 },
    /* reduce's partial sums through sub-group operations (the order depends on the sub-group size) */
    { .kernel = BK_SGREDUCE, .name = "sgreduce", .variant = "wg256", .group = 256, .subgroups = true },
};
const size_t bench_case_count = sizeof(bench_cases) / sizeof(bench_cases[0]);

bool bench_sizes_named(const char *name, bench_sizes *out)
{
    if (strcmp(name, "full") == 0) {
        *out = (bench_sizes){ .mm_n = 1024, .conv_w = 2048, .conv_h = 2048, .vec_n = 1u << 24 };
        return true;
    }
    if (strcmp(name, "small") == 0) {
        /* deliberately not multiples of the group sizes: exercises the edges */
        *out = (bench_sizes){ .mm_n = 100, .conv_w = 67, .conv_h = 45, .vec_n = 5000 };
        return true;
    }
    return false;
}

uint64_t bench_rand_u64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

float bench_rand_float(uint64_t *state, float lo, float hi)
{
    /* 24 random bits: every value is an exact float in [0, 1) */
    float u = (float)(bench_rand_u64(state) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

static float *alloc_floats(size_t n)
{
    float *p = malloc(sizeof(float) * (n ? n : 1));
    if (!p) {
        fprintf(stderr, "bench: out of memory (%zu floats)\n", n);
        exit(2);
    }
    return p;
}

static float *random_floats(size_t n, uint64_t seed)
{
    float *p = alloc_floats(n);
    uint64_t st = seed;
    for (size_t i = 0; i < n; ++i)
        p[i] = bench_rand_float(&st, -1.0f, 1.0f);
    return p;
}

/* One cached data set: mm's reference is shared by its three block sizes,
 * which saves two 1024^3 reference products per runner. */
static bench_data cached;
static const bench_case *cached_case;
static bench_sizes cached_sizes;

void bench_data_release(void)
{
    for (int i = 0; i < 2; ++i) {
        free(cached.in[i]);
        free(cached.ref[i]);
    }
    memset(&cached, 0, sizeof(cached));
    cached_case = NULL;
}

static bool same_data(const bench_case *a, const bench_case *b)
{
    if (a == b)
        return true;
    /* mm's result does not depend on the block size */
    return a->kernel == BK_MM && b->kernel == BK_MM;
}

const bench_data *bench_data_for(const bench_case *c, const bench_sizes *s)
{
    if (cached_case && same_data(cached_case, c) && memcmp(&cached_sizes, s, sizeof(*s)) == 0)
        return &cached;
    bench_data_release();
    bench_data *d = &cached;
    uint64_t seed = 0x5eed0000u + (uint64_t)c->kernel;
    switch (c->kernel) {
    case BK_MM: {
        size_t nn = (size_t)s->mm_n * s->mm_n;
        d->in[0] = random_floats(nn, seed);
        d->in[1] = random_floats(nn, seed + 100);
        d->in_len[0] = d->in_len[1] = nn;
        d->ref[0] = alloc_floats(nn);
        d->ref_len[0] = nn;
        bench_ref_mm(d->in[0], d->in[1], d->ref[0], s->mm_n);
        break;
    }
    case BK_CONV3X3: {
        size_t np = (size_t)s->conv_w * s->conv_h;
        d->in[0] = random_floats(np, seed);
        d->in_len[0] = np;
        d->ref[0] = alloc_floats(np);
        d->ref_len[0] = np;
        bench_ref_conv3x3(d->in[0], d->ref[0], s->conv_w, s->conv_h, c->conv_k);
        break;
    }
    case BK_REDUCE:
    case BK_SGREDUCE: {
        size_t groups = (s->vec_n + c->group - 1) / c->group;
        d->in[0] = random_floats(s->vec_n, seed);
        d->in_len[0] = s->vec_n;
        d->ref[0] = alloc_floats(groups);
        d->ref_len[0] = groups;
        bench_ref_reduce(d->in[0], d->ref[0], s->vec_n, c->group);
        break;
    }
    case BK_SAXPY:
        d->in[0] = random_floats(s->vec_n, seed);
        d->in[1] = random_floats(s->vec_n, seed + 100);
        d->in_len[0] = d->in_len[1] = s->vec_n;
        d->ref[0] = alloc_floats(s->vec_n);
        d->ref_len[0] = s->vec_n;
        bench_ref_saxpy(d->in[0], d->in[1], d->ref[0], s->vec_n, c->saxpy_a);
        break;
    case BK_SCAN: {
        size_t groups = (s->vec_n + c->group - 1) / c->group;
        d->in[0] = random_floats(s->vec_n, seed);
        d->in_len[0] = s->vec_n;
        d->ref[0] = alloc_floats(s->vec_n);
        d->ref_len[0] = s->vec_n;
        d->ref[1] = alloc_floats(groups);
        d->ref_len[1] = groups;
        bench_ref_scan(d->in[0], d->ref[0], d->ref[1], s->vec_n, c->group);
        break;
    }
    default:
        fprintf(stderr, "bench: unknown kernel id %d\n", (int)c->kernel);
        exit(2);
    }
    cached_case = c;
    cached_sizes = *s;
    return d;
}

bool bench_check(const bench_case *c, const bench_data *d, int which, const float *got, char *why, size_t why_len)
{
    /* |got - ref| <= atol + rtol * |ref|.  Runners sum in other orders (SIMD
     * lanes, FMA contraction), so exact equality is not expected; an indexing
     * bug gives errors of the size of the inputs (~0.1 .. 1), far above these. */
    double atol, rtol;
    switch (c->kernel) {
    case BK_MM:
        atol = 2e-3;
        rtol = 1e-5;
        break; /* 1024-term dot products, |c| ~ 10 */
    case BK_CONV3X3:
        atol = 1e-5;
        rtol = 1e-5;
        break; /* nine terms */
    case BK_SAXPY:
        atol = 1e-6;
        rtol = 1e-6;
        break; /* one rounding more or less (FMA) */
    default:
        atol = 2e-4;
        rtol = 1e-5;
        break; /* reduce, scan, sgreduce: up to 256 terms */
    }
    const float *ref = d->ref[which];
    for (size_t i = 0; i < d->ref_len[which]; ++i) {
        double diff = fabs((double)got[i] - (double)ref[i]);
        if (!(diff <= atol + rtol * fabs((double)ref[i]))) { /* also catches NaN */
            snprintf(why, why_len, "%s %s: output %d element %zu is %.9g, expected %.9g", c->name, c->variant, which, i,
                     (double)got[i], (double)ref[i]);
            return false;
        }
    }
    return true;
}

double bench_throughput(const bench_case *c, const bench_sizes *s, double ms, const char **unit)
{
    double sec = ms * 1e-3;
    switch (c->kernel) {
    case BK_MM:
        *unit = "GFLOP/s";
        return 2.0 * s->mm_n * (double)s->mm_n * s->mm_n / sec * 1e-9;
    case BK_CONV3X3:
        *unit = "Mpixel/s";
        return (double)s->conv_w * s->conv_h / sec * 1e-6;
    case BK_REDUCE:
    case BK_SGREDUCE:
        *unit = "GB/s"; /* bytes of input */
        return 4.0 * s->vec_n / sec * 1e-9;
    case BK_SAXPY:
        *unit = "GB/s"; /* read x, read y, write y */
        return 12.0 * s->vec_n / sec * 1e-9;
    case BK_SCAN:
        *unit = "GB/s"; /* read src, write dst */
        return 8.0 * s->vec_n / sec * 1e-9;
    default:
        *unit = "?";
        return 0.0;
    }
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

void bench_launch_for(const bench_case *c, const bench_sizes *s, const bench_data *d, bench_launch *L)
{
    memset(L, 0, sizeof(*L));
    for (int i = 0; i < 3; ++i)
        L->buf[i].ref_index = -1;
    L->local[1] = 1;
    L->groups[1] = 1;
    switch (c->kernel) {
    case BK_MM: /* a, b, c, n;  spec 0 = BS = local size x and y */
        L->nbuf = 3;
        L->buf[0] = (bench_buffer){ d->in[0], d->in_len[0], -1 };
        L->buf[1] = (bench_buffer){ d->in[1], d->in_len[1], -1 };
        L->buf[2] = (bench_buffer){ NULL, d->ref_len[0], 0 };
        L->nspec = 1;
        L->spec[0] = (bench_spec){ 0, c->group, false };
        L->npush = 1;
        L->push[0] = s->mm_n;
        L->local[0] = L->local[1] = c->group;
        L->groups[0] = L->groups[1] = div_up(s->mm_n, c->group);
        break;
    case BK_CONV3X3: /* src, dst, w, h;  spec 0..8 = taps;  local 16 x 16 */
        L->nbuf = 2;
        L->buf[0] = (bench_buffer){ d->in[0], d->in_len[0], -1 };
        L->buf[1] = (bench_buffer){ NULL, d->ref_len[0], 0 };
        L->nspec = 9;
        for (int i = 0; i < 9; ++i)
            L->spec[i] = (bench_spec){ (uint32_t)i, float_bits(c->conv_k[i]), true };
        L->npush = 2;
        L->push[0] = s->conv_w;
        L->push[1] = s->conv_h;
        L->local[0] = L->local[1] = 16;
        L->groups[0] = div_up(s->conv_w, 16);
        L->groups[1] = div_up(s->conv_h, 16);
        break;
    case BK_REDUCE:   /* src, partial, n (, scratch);  spec 0 = WG (Vulkan) */
    case BK_SGREDUCE: /* the same */
    case BK_SCAN:     /* src, dst, sums, n (, scratch);  spec 0 = WG (Vulkan) */
        L->buf[0] = (bench_buffer){ d->in[0], d->in_len[0], -1 };
        L->buf[1] = (bench_buffer){ NULL, d->ref_len[0], 0 };
        L->nbuf = 2;
        if (c->kernel == BK_SCAN) {
            L->buf[2] = (bench_buffer){ NULL, d->ref_len[1], 1 };
            L->nbuf = 3;
        }
        L->nspec = 1;
        L->spec[0] = (bench_spec){ 0, c->group, false };
        L->npush = 1;
        L->push[0] = s->vec_n;
        L->local[0] = c->group;
        L->groups[0] = div_up(s->vec_n, c->group);
        L->cl_scratch_floats = c->group;
        break;
    case BK_SAXPY: /* x, y, n;  spec 0 = a;  local 64 */
        L->nbuf = 2;
        L->buf[0] = (bench_buffer){ d->in[0], d->in_len[0], -1 };
        L->buf[1] = (bench_buffer){ d->in[1], d->in_len[1], 0 };
        L->nspec = 1;
        L->spec[0] = (bench_spec){ 0, float_bits(c->saxpy_a), true };
        L->npush = 1;
        L->push[0] = s->vec_n;
        L->local[0] = 64;
        L->groups[0] = div_up(s->vec_n, 64);
        break;
    default:
        break;
    }
}
