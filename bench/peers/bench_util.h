/* bench/peers/bench_util.h — what every peer runner shares: its command line,
 * the clock, the statistics over repetitions and the result line.
 *
 * Result line (one per case, stdout):
 *   kernel=mm variant=bs16 runner=lavapipe threads=2 median_ms=.. spread_pct=..
 *   build_ms=.. throughput=.. unit=GFLOP/s check=ok first_ms=.. min_ms=..
 * median_ms: median of the timed repetitions (dispatch + wait);
 * spread_pct: (max - min) / median * 100 over those repetitions;
 * build_ms: compile time outside the runs (pipeline / program build);
 * first_ms: the first, untimed run (lazy compilation, page faults, caches);
 * min_ms: the fastest timed run (on a shared machine, noise only slows runs);
 * check: the first run's output against the C reference; after a FAIL the
 * repetitions are skipped and the times are 0; skip: the runner's device
 * lacks what the case needs (sub-group operations), no times.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "bench/c/problems.h"

/* Exit status when the runner's device (Vulkan CPU device, OpenCL CPU device)
 * does not exist: the automake "skipped" convention. */
#define BENCH_EXIT_SKIP 77

typedef struct bench_opts {
    int threads;         /* worker threads; default: all online cores */
    int reps;            /* timed repetitions (median of them) */
    const char *kernel;  /* only this kernel (NULL: all) */
    const char *variant; /* only this variant (NULL: all) */
    bench_sizes sizes;
    const char *size_name;        /* --size: "full" or "small" */
    const char *kernel_dir;       /* testdata/kernels (.cl, and .spv when built there) */
    const char *bench_kernel_dir; /* bench/kernels (scan, the OpenCL prelude) */
    const char *spv_dir;          /* where .spv files are looked up first (NULL: none) */
    bool quiet;                   /* print no result lines (the untimed warm-up pass) */
} bench_opts;

/* The options of the warm-up pass: one small run of the first selected case,
 * before any timing, so one-time driver start-up costs (LLVM initialisation,
 * kernel libraries, thread pools) are not charged to the first case. */
bench_opts bench_warmup_opts(const bench_opts *o);
/* The first case selected by o (NULL: none). */
const bench_case *bench_first_selected(const bench_opts *o);

/* Parses --threads N --reps R --kernel K --variant V --size full|small
 * --kernel-dir D --bench-kernel-dir D --spv-dir D --help.  Exits on errors. */
void bench_parse_args(int argc, char **argv, const char *runner, bench_opts *o);

/* True when case c is selected by --kernel / --variant. */
bool bench_selected(const bench_opts *o, const bench_case *c);

/* Monotonic clock in milliseconds. */
double bench_now_ms(void);

typedef struct bench_stats {
    double median_ms;
    double spread_pct;
    double min_ms;
} bench_stats;

/* Median and spread of n samples (sorts ms in place). */
bench_stats bench_stats_of(double *ms, int n);

/* Prints the result line; stats/build/first are ignored (printed as 0) when !ok. */
void bench_print_result(const bench_opts *o, const bench_case *c, const char *runner, bench_stats st, double build_ms,
                        double first_ms, bool ok);
/* The same, with `extra` (NULL or " key=value ...") appended to the line:
 * runner-specific fields such as spvjit's compile-time split. */
void bench_print_result_extra(const bench_opts *o, const bench_case *c, const char *runner, bench_stats st,
                              double build_ms, double first_ms, bool ok, const char *extra);
/* The result line of a case the runner cannot run (check=skip, no timings);
 * why goes to stderr. */
void bench_print_skip(const bench_opts *o, const bench_case *c, const char *runner, const char *why);

/* Reads a whole file, NUL-terminated (malloc'd); NULL with a message on stderr. */
char *bench_read_file(const char *path, size_t *len);

/* Joins dir and name into buf; returns buf. */
const char *bench_path(char *buf, size_t len, const char *dir, const char *name);

/* Sets name=value in the environment unless already set; returns the value in effect. */
const char *bench_setenv_default(const char *name, const char *value);

#endif
