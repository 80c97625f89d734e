/* bench/peers/bench_util.c — command line, clock, statistics, result line. */
#include "bench/peers/bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *prog, const char *runner, FILE *to)
{
    const char *slash = strrchr(prog, '/');
    fprintf(to,
            "usage: %s [--threads N] [--reps R] [--kernel K] [--variant V]\n"
            "         [--size full|small] [--kernel-dir DIR] [--bench-kernel-dir DIR] [--spv-dir DIR]\n"
            "Runs the benchmark kernels (mm conv3x3 reduce saxpy scan sgreduce) on %s, checks each\n"
            "against the plain C reference and prints one key=value line per case.\n"
            "Defaults: all online cores, 5 repetitions, --size full, testdata/kernels,\n"
            "bench/kernels.  Exit status 77 when the device does not exist.\n",
            slash ? slash + 1 : prog, runner);
}

static long parse_positive(const char *opt, const char *s, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *s == '\0' || *end != '\0' || v < 1 || v > max) {
        fprintf(stderr, "bench: %s expects an integer in 1..%ld, got '%s'\n", opt, max, s);
        exit(2);
    }
    return v;
}

void bench_parse_args(int argc, char **argv, const char *runner, bench_opts *o)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *o = (bench_opts){
        .threads = cores > 0 ? (int)cores : 1,
        .reps = 5,
        .kernel_dir = "testdata/kernels",
        .bench_kernel_dir = "bench/kernels",
        .size_name = "full",
    };
    bench_sizes_named("full", &o->sizes);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(argv[0], runner, stdout);
            exit(0);
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench: unknown option or missing value: '%s'\n", a);
            usage(argv[0], runner, stderr);
            exit(2);
        }
        const char *v = argv[++i];
        if (strcmp(a, "--threads") == 0)
            o->threads = (int)parse_positive(a, v, 1024);
        else if (strcmp(a, "--reps") == 0)
            o->reps = (int)parse_positive(a, v, 100000);
        else if (strcmp(a, "--kernel") == 0)
            o->kernel = v;
        else if (strcmp(a, "--variant") == 0)
            o->variant = v;
        else if (strcmp(a, "--size") == 0) {
            if (!bench_sizes_named(v, &o->sizes)) {
                fprintf(stderr, "bench: --size expects full or small, got '%s'\n", v);
                exit(2);
            }
            o->size_name = v;
        } else if (strcmp(a, "--kernel-dir") == 0)
            o->kernel_dir = v;
        else if (strcmp(a, "--bench-kernel-dir") == 0)
            o->bench_kernel_dir = v;
        else if (strcmp(a, "--spv-dir") == 0)
            o->spv_dir = v;
        else {
            fprintf(stderr, "bench: unknown option '%s'\n", a);
            usage(argv[0], runner, stderr);
            exit(2);
        }
    }
    if (o->kernel) {
        bool known = false;
        for (size_t i = 0; i < bench_case_count; ++i)
            known |= strcmp(bench_cases[i].name, o->kernel) == 0;
        if (!known) {
            fprintf(stderr, "bench: --kernel '%s' is not one of mm conv3x3 reduce saxpy scan sgreduce\n", o->kernel);
            exit(2);
        }
    }
}

bool bench_selected(const bench_opts *o, const bench_case *c)
{
    return (!o->kernel || strcmp(o->kernel, c->name) == 0) && (!o->variant || strcmp(o->variant, c->variant) == 0);
}

bench_opts bench_warmup_opts(const bench_opts *o)
{
    bench_opts w = *o;
    bench_sizes_named("small", &w.sizes);
    w.size_name = "small";
    w.reps = 1;
    w.quiet = true;
    return w;
}

const bench_case *bench_first_selected(const bench_opts *o)
{
    for (size_t i = 0; i < bench_case_count; ++i)
        if (bench_selected(o, &bench_cases[i]))
            return &bench_cases[i];
    return NULL;
}

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_stats bench_stats_of(double *ms, int n)
{
    bench_stats st = { 0, 0, 0 };
    if (n <= 0)
        return st;
    qsort(ms, (size_t)n, sizeof(double), cmp_double);
    st.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    st.min_ms = ms[0];
    if (st.median_ms > 0)
        st.spread_pct = (ms[n - 1] - ms[0]) / st.median_ms * 100.0;
    return st;
}

void bench_print_result(const bench_opts *o, const bench_case *c, const char *runner, bench_stats st, double build_ms,
                        double first_ms, bool ok)
{
    bench_print_result_extra(o, c, runner, st, build_ms, first_ms, ok, NULL);
}

void bench_print_result_extra(const bench_opts *o, const bench_case *c, const char *runner, bench_stats st,
                              double build_ms, double first_ms, bool ok, const char *extra)
{
    if (o->quiet)
        return;
    const char *unit;
    double tp = 0.0;
    bench_throughput(c, &o->sizes, 1.0, &unit);
    if (ok && st.median_ms > 0)
        tp = bench_throughput(c, &o->sizes, st.median_ms, &unit);
    else if (!ok)
        st = (bench_stats){ 0, 0, 0 }, build_ms = 0, first_ms = 0;
    printf("kernel=%s variant=%s runner=%s threads=%d median_ms=%.3f spread_pct=%.1f "
           "build_ms=%.1f throughput=%.4g unit=%s check=%s first_ms=%.3f min_ms=%.3f%s\n",
           c->name, c->variant, runner, o->threads, st.median_ms, st.spread_pct, build_ms, tp, unit, ok ? "ok" : "FAIL",
           first_ms, st.min_ms, extra ? extra : "");
    fflush(stdout);
}

void bench_print_skip(const bench_opts *o, const bench_case *c, const char *runner, const char *why)
{
    fprintf(stderr, "%s: %s %s: skipped: %s\n", runner, c->name, c->variant, why);
    if (o->quiet)
        return;
    const char *unit;
    bench_throughput(c, &o->sizes, 1.0, &unit);
    printf("kernel=%s variant=%s runner=%s threads=%d median_ms=0.000 spread_pct=0.0 "
           "build_ms=0.0 throughput=0 unit=%s check=skip first_ms=0.000 min_ms=0.000\n",
           c->name, c->variant, runner, o->threads, unit);
    fflush(stdout);
}

char *bench_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(stderr, "bench: out of memory reading %s\n", path);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    bool err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        fprintf(stderr, "bench: error reading %s\n", path);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

const char *bench_path(char *buf, size_t len, const char *dir, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

const char *bench_setenv_default(const char *name, const char *value)
{
    const char *cur = getenv(name);
    if (cur && *cur)
        return cur;
    setenv(name, value, 1);
    return value;
}
