/* bench/c/ceiling.c — dispatch from a benchmark case to its C ceiling kernel. */
#include "bench/c/ceiling.h"

bool ceiling_run(const bench_case *c, const bench_sizes *s, const bench_data *d, float *out[2])
{
    switch (c->kernel) {
    case BK_MM:
        return ceiling_mm(c->group, d->in[0], d->in[1], out[0], s->mm_n);
    case BK_CONV3X3:
        return ceiling_conv3x3(c->variant, d->in[0], out[0], s->conv_w, s->conv_h);
    case BK_REDUCE:
    case BK_SGREDUCE: /* the same partial sums: the C ceiling of both is one vectorized sum per group */
        return ceiling_reduce(c->group, d->in[0], out[0], s->vec_n);
    case BK_SAXPY:
        return ceiling_saxpy(c->saxpy_a, d->in[0], out[0], s->vec_n);
    case BK_SCAN:
        return ceiling_scan(c->group, d->in[0], out[0], out[1], s->vec_n);
    default:
        return false;
    }
}
