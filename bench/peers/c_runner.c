/* bench/peers/c_runner.c — runs the C ceiling (bench/c/ceiling_*.c) on the
 * benchmark cases: OpenMP with --threads threads, a first run checked against
 * the single-threaded reference, then the median of --reps runs.  Nothing is
 * compiled at run time, so build_ms is 0. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/c/ceiling.h"
#include "bench/peers/bench_util.h"

#define RUNNER "c"

/* The in-out buffers (bench_buffer_reset_each_run: saxpy's y) restart from
 * their initial contents, as in the API runners; the C ceiling reads its
 * inputs where they are and overwrites its outputs.  Untimed. */
static void reset_outputs(const bench_case *c, const bench_sizes *s, const bench_data *d, float *out[2])
{
    bench_launch L;
    bench_launch_for(c, s, d, &L);
    for (int i = 0; i < L.nbuf; ++i)
        if (bench_buffer_reset_each_run(&L.buf[i]))
            memcpy(out[L.buf[i].ref_index], L.buf[i].init, sizeof(float) * L.buf[i].len);
}

static bool run_case(const bench_opts *o, const bench_case *c)
{
    const bench_data *d = bench_data_for(c, &o->sizes);
    float *out[2] = { NULL, NULL };
    for (int i = 0; i < 2; ++i)
        if (d->ref_len[i]) {
            out[i] = calloc(d->ref_len[i], sizeof(float));
            if (!out[i]) {
                fprintf(stderr, "c_runner: out of memory\n");
                exit(2);
            }
        }
    bool ok = true;
    reset_outputs(c, &o->sizes, d, out);
    double t0 = bench_now_ms();
    if (!ceiling_run(c, &o->sizes, d, out)) {
        fprintf(stderr, "c_runner: no C ceiling for %s %s\n", c->name, c->variant);
        ok = false;
    }
    double first_ms = bench_now_ms() - t0;
    char why[256];
    for (int i = 0; ok && i < 2; ++i)
        if (d->ref_len[i] && !bench_check(c, d, i, out[i], why, sizeof(why))) {
            fprintf(stderr, "c_runner: check failed: %s\n", why);
            ok = false;
        }
    bench_stats st = { 0, 0, 0 };
    if (ok) {
        double *ms = malloc(sizeof(double) * (size_t)o->reps);
        if (!ms)
            exit(2);
        for (int r = 0; r < o->reps; ++r) {
            reset_outputs(c, &o->sizes, d, out);
            t0 = bench_now_ms();
            ceiling_run(c, &o->sizes, d, out);
            ms[r] = bench_now_ms() - t0;
        }
        st = bench_stats_of(ms, o->reps);
        free(ms);
    }
    bench_print_result(o, c, RUNNER, st, 0.0, first_ms, ok);
    free(out[0]);
    free(out[1]);
    return ok;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_parse_args(argc, argv, RUNNER, &o);
    omp_set_dynamic(0);
    omp_set_num_threads(o.threads);
    bool all_ok = true;
    const bench_case *first = bench_first_selected(&o);
    if (first) { /* starts OpenMP's thread pool outside the measurements */
        bench_opts warm = bench_warmup_opts(&o);
        all_ok &= run_case(&warm, first);
    }
    for (size_t i = 0; i < bench_case_count; ++i)
        if (bench_selected(&o, &bench_cases[i]))
            all_ok &= run_case(&o, &bench_cases[i]);
    bench_data_release();
    return all_ok ? 0 : 1;
}
