/* bench/peers/spvjit_runner.c — spvjit on the benchmark cases, through the
 * public API (lib/spvjit.h), with the same options and result lines as the
 * peer runners (bench_util, problems).
 *
 * Three runners in one program: `spvjit` (spec constants folded in, the
 * default memory mode robust), `spvjit-unspec` (spvjit_build_options.
 * unspecialized: spec values read at run time; only the ones that size the
 * work-group stay compiled in) and `spvjit-unchecked` (specialized, memory
 * mode unchecked: no bounds checks).  spvjit / spvjit-unspec is what
 * specializing buys, spvjit / spvjit-unchecked what the safe default costs.
 * `--runner spvjit,spvjit-unchecked` picks some; by default each case is run
 * every way, their timed repetitions taking turns so that the machine's load
 * hits them alike.
 *
 * It loads the same Shader-flavour module lavapipe loads (the launch
 * description's binding i = set 0 binding i, scalars as push constants).
 * Per case (compile tiers: see spvjit_tier in lib/spvjit.h), each time the
 * median of COLD_SAMPLES (a single one moves by a third or more on a busy
 * machine):
 *   build_ms   cold, optimized tier (spvjit_build_options.tier = OPT, the code
 *              the throughput is measured on): a fresh context whose disk cache
 *              is a new empty folder, module load (validation included, as
 *              vkCreateShaderModule) + spvjit_kernel_build;
 *   lower_ms passes_ms codegen_ms   those builds' split (spvjit_kernel_stats_get);
 *   quick_ms   the same cold build at the quick tier (no disk cache);
 *   hit_us     the same build again in the first context: a memory-cache
 *              lookup (the median of HIT_SAMPLES);
 *   disk_ms    the same build in another fresh context on the first build's
 *              disk folder, when spvjit_kernel_stats says from_cache (a disk
 *              hit), else "n/a" (no disk cache stored the kernel);
 *   auto_first_ms  time to the first result with the auto tier: a fresh
 *              context on an empty disk folder, module load + build + the first
 *              dispatch (checked), which runs the quick code or, when it is
 *              larger than the quick tier takes, waits for the optimized code;
 *   fresh_first_ms  (only with --fresh-samples N: the median of N) the same
 *              first result in a fresh process of the runner linked with
 *              libspvjit.so, as a program embedding the library starts: from
 *              just before the parent spawns it (exec, loading the library
 *              and its LLVM, the process's first build) to the result, less
 *              the child's untimed setup of inputs and references; the mode
 *              spvjit only, else "n/a";
 *   first_ms   the first dispatch of the optimized build (checked against the
 *              C reference);
 *   median_ms  the median of --reps dispatches, inputs restored untimed;
 *   fallback_groups  work-groups of those dispatches (the first included) the
 *              optimized code could not prove in bounds (memory=robust), run on
 *              the quick tier's checked code (spvjit_kernel_stats).
 * The modes share the case's buffers (rebound before each run).
 * Threads: spvjit_context_options.threads = --threads (the caller included).
 */
#include <errno.h>
#include <ftw.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/peers/bench_util.h"
#include "lib/spvjit.h"

typedef enum run_mode { MODE_SPECIALIZED, MODE_UNSPECIALIZED, MODE_UNCHECKED, NMODES } run_mode;
static const char *const mode_runner[NMODES] = { "spvjit", "spvjit-unspec", "spvjit-unchecked" };

/* The build options of mode m at `tier`. */
static spvjit_build_options mode_options(run_mode m, spvjit_tier tier)
{
    return (spvjit_build_options){ .unspecialized = m == MODE_UNSPECIALIZED,
                                   .memory = m == MODE_UNCHECKED ? SPVJIT_MEMORY_UNCHECKED : SPVJIT_MEMORY_DEFAULT,
                                   .tier = tier };
}

/* The runner's own options (bench_parse_args takes the common ones). */
typedef struct runner_opts {
    bool run[NMODES];      /* --runner: the modes to run (default: all) */
    int fresh_samples;     /* --fresh-samples N: fresh_first_ms from N fresh processes (0: none) */
    double fresh_child_t0; /* --fresh-child T0 (>= 0): this process is one of them */
} runner_opts;

static void api_error(const bench_case *c, const char *what)
{
    fprintf(stderr, "spvjit_runner: %s %s: %s: %s\n", c->name, c->variant, what, spvjit_last_error());
}

/* --- temporary disk-cache folders ----------------------------------------- */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    if (remove(path) != 0)
        fprintf(stderr, "spvjit_runner: cannot remove %s: %s\n", path, strerror(errno));
    return 0;
}

/* A new empty folder under $TMPDIR (or /tmp), so the first build is cold. */
static bool make_cache_dir(char *buf, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, len, "%s/spvjit-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(buf)) {
        fprintf(stderr, "spvjit_runner: mkdtemp %s: %s\n", buf, strerror(errno));
        return false;
    }
    return true;
}

static void remove_cache_dir(const char *dir)
{
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* --- module, specs, buffers ---------------------------------------------- */

/* --spv-dir/<name>.spv, else <name>.comp.spv in the kernel folders (the very
 * module lavapipe loads). */
static bool find_spv(const bench_opts *o, const char *name, char *path, size_t len)
{
    const char *dirs[3] = { o->spv_dir, o->kernel_dir, o->bench_kernel_dir };
    char file[128];
    for (int i = 0; i < 3; ++i) {
        if (!dirs[i])
            continue;
        snprintf(file, sizeof(file), i == 0 ? "%s.spv" : "%s.comp.spv", name);
        bench_path(path, len, dirs[i], file);
        if (access(path, R_OK) == 0)
            return true;
    }
    fprintf(stderr, "spvjit_runner: no %s.spv in --spv-dir nor %s.comp.spv in %s, %s\n", name, name, o->kernel_dir,
            o->bench_kernel_dir);
    return false;
}

static spvjit_specs *specs_for(const bench_launch *L)
{
    spvjit_specs *s = NULL;
    if (spvjit_specs_create(&s) != SPVJIT_OK)
        return NULL;
    for (int i = 0; i < L->nspec; ++i) {
        const bench_spec *sp = &L->spec[i];
        spvjit_status st = sp->is_float ? spvjit_spec_set(s, sp->id, SPVJIT_TYPE_F32, sp->bits)
                                        : spvjit_spec_set_u32(s, sp->id, sp->bits);
        if (st != SPVJIT_OK) {
            spvjit_specs_destroy(s);
            return NULL;
        }
    }
    return s;
}

/* Restores the buffers' initial contents (outputs to zero), or with
 * each_run only those bench_buffer_reset_each_run names: untimed. */
static void reset_buffers(const bench_launch *L, float *buf[3], bool each_run)
{
    for (int i = 0; i < L->nbuf; ++i) {
        if (each_run && !bench_buffer_reset_each_run(&L->buf[i]))
            continue;
        if (L->buf[i].init)
            memcpy(buf[i], L->buf[i].init, sizeof(float) * L->buf[i].len);
        else
            memset(buf[i], 0, sizeof(float) * L->buf[i].len);
    }
}

static bool bind_all(spvjit_kernel *k, const bench_launch *L, float *buf[3])
{
    for (int i = 0; i < L->nbuf; ++i)
        if (spvjit_bind_buffer(k, 0, (uint32_t)i, buf[i], sizeof(float) * L->buf[i].len) != SPVJIT_OK)
            return false;
    return L->npush == 0 || spvjit_set_push_constants(k, L->push, sizeof(uint32_t) * (size_t)L->npush) == SPVJIT_OK;
}

/* --- compile-time measurements -------------------------------------------- */

typedef struct build_times {
    double build_ms;                        /* cold, optimized tier: module load + kernel build */
    double lower_ms, passes_ms, codegen_ms; /* the cold build's split */
    double quick_ms;                        /* cold, quick tier */
    double hit_us;                          /* memory-cache hit */
    double disk_ms;                         /* disk-cache load; < 0: no disk hit */
    double auto_first_ms;                   /* auto: load + build + first dispatch; < 0: failed */
    double fresh_first_ms;                  /* the same in a fresh process; < 0: not measured */
} build_times;

enum { HIT_SAMPLES = 201, COLD_SAMPLES = 5 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (reordered); < 0 when any is (a failed sample). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[0] < 0 ? -1.0 : v[n / 2];
}

static spvjit_status load_and_build(spvjit_context *ctx, const char *path, const spvjit_specs *specs,
                                    const spvjit_build_options *bo, spvjit_module **m, spvjit_kernel **k)
{
    spvjit_status st = spvjit_module_load_file(ctx, path, m);
    if (st == SPVJIT_OK)
        st = spvjit_kernel_build(*m, "main", specs, bo, k);
    return st;
}

/* The same build in another fresh context on the cold build's disk folder:
 * a disk hit when the stats say from_cache (its memory cache is empty). */
static double disk_load_once(const bench_opts *o, const char *cache_dir, const char *path, const spvjit_specs *specs,
                             const spvjit_build_options *bo)
{
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    double ms = -1.0;
    spvjit_context_options co = { .threads = (unsigned)o->threads, .disk_cache_dir = cache_dir };
    if (spvjit_context_create(&co, &ctx) == SPVJIT_OK && spvjit_module_load_file(ctx, path, &m) == SPVJIT_OK) {
        double t0 = bench_now_ms();
        spvjit_status st = spvjit_kernel_build(m, "main", specs, bo, &k);
        double t = bench_now_ms() - t0;
        spvjit_kernel_stats ks;
        if (st == SPVJIT_OK && spvjit_kernel_stats_get(k, &ks) == SPVJIT_OK && ks.from_cache)
            ms = t;
    }
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return ms;
}

static double disk_load_ms(const bench_opts *o, const char *cache_dir, const char *path, const spvjit_specs *specs,
                           const spvjit_build_options *bo)
{
    double ms[COLD_SAMPLES];
    for (int i = 0; i < COLD_SAMPLES; ++i)
        ms[i] = disk_load_once(o, cache_dir, path, specs, bo);
    return median(ms, COLD_SAMPLES);
}

/* --- one case --------------------------------------------------------------- */

/* One runner's (mode's) state in a case. */
typedef struct mode_run {
    run_mode mode;
    spvjit_context *ctx;
    spvjit_module *m;
    spvjit_kernel *k;
    build_times bt;
    double first_ms;
    double *ms; /* the timed repetitions */
    bool ok;
    bool have_dir;
    char cache_dir[512];
} mode_run;

/* A cold build: a fresh context whose disk cache is the folder `dir` ("":
 * none), module load + build (ms, or < 0), its split into *ks. */
static double cold_build_once(const bench_opts *o, const char *dir, const char *path, const spvjit_specs *specs,
                              const spvjit_build_options *bo, spvjit_kernel_stats *ks)
{
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    spvjit_context_options co = { .threads = (unsigned)o->threads, .disk_cache_dir = dir };
    double ms = -1.0;
    if (spvjit_context_create(&co, &ctx) == SPVJIT_OK) {
        double t0 = bench_now_ms();
        if (load_and_build(ctx, path, specs, bo, &m, &k) == SPVJIT_OK)
            ms = bench_now_ms() - t0;
    }
    if (ms >= 0 && spvjit_kernel_stats_get(k, ks) != SPVJIT_OK)
        ms = -1.0;
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    return ms;
}

/* Cold builds at the quick tier, without disk cache. */
static double quick_build_ms(const bench_opts *o, const char *path, const spvjit_specs *specs, run_mode mode)
{
    const spvjit_build_options bo = mode_options(mode, SPVJIT_TIER_QUICK);
    double ms[COLD_SAMPLES];
    spvjit_kernel_stats ks;
    for (int i = 0; i < COLD_SAMPLES; ++i)
        ms[i] = cold_build_once(o, "", path, specs, &bo, &ks);
    return median(ms, COLD_SAMPLES);
}

/* More cold builds at the optimized tier, each on a new empty disk folder:
 * with the first (ms[0], split[0]), the medians of all into r->bt. */
static bool more_cold_builds(const bench_opts *o, const char *path, const spvjit_specs *specs,
                             const spvjit_build_options *bo, double ms[COLD_SAMPLES], double split[3][COLD_SAMPLES],
                             mode_run *r)
{
    for (int i = 1; i < COLD_SAMPLES; ++i) {
        char dir[512];
        spvjit_kernel_stats ks;
        if (!make_cache_dir(dir, sizeof dir))
            return false;
        ms[i] = cold_build_once(o, dir, path, specs, bo, &ks);
        remove_cache_dir(dir);
        if (ms[i] < 0)
            return false;
        split[0][i] = ks.lower_ms;
        split[1][i] = ks.passes_ms;
        split[2][i] = ks.codegen_ms;
    }
    r->bt.build_ms = median(ms, COLD_SAMPLES);
    r->bt.lower_ms = median(split[0], COLD_SAMPLES);
    r->bt.passes_ms = median(split[1], COLD_SAMPLES);
    r->bt.codegen_ms = median(split[2], COLD_SAMPLES);
    return true;
}

/* Cold builds (optimized tier), each in a fresh context on an empty
 * disk-cache folder, the first kept for the runs; then the quick tier's cold
 * builds, the memory-cache hits and the disk-cache loads. */
static bool build_cold(const bench_opts *o, const bench_case *c, const char *path, const spvjit_specs *specs,
                       mode_run *r)
{
    const spvjit_build_options bo = mode_options(r->mode, SPVJIT_TIER_OPT);
    if (!(r->have_dir = make_cache_dir(r->cache_dir, sizeof(r->cache_dir))))
        return false;
    spvjit_context_options co = { .threads = (unsigned)o->threads, .disk_cache_dir = r->cache_dir };
    if (spvjit_context_create(&co, &r->ctx) != SPVJIT_OK) {
        api_error(c, "context");
        return false;
    }
    double t0 = bench_now_ms(), ms[COLD_SAMPLES], split[3][COLD_SAMPLES];
    if (load_and_build(r->ctx, path, specs, &bo, &r->m, &r->k) != SPVJIT_OK) {
        api_error(c, "build");
        return false;
    }
    ms[0] = bench_now_ms() - t0;
    spvjit_kernel_stats ks = { 0 };
    bool stats = spvjit_kernel_stats_get(r->k, &ks) == SPVJIT_OK;
    split[0][0] = ks.lower_ms;
    split[1][0] = ks.passes_ms;
    split[2][0] = ks.codegen_ms;
    if (!stats || !more_cold_builds(o, path, specs, &bo, ms, split, r)) {
        api_error(c, "cold builds");
        return false;
    }
    if (ks.from_cache) /* cannot happen with an empty folder: say so if it does */
        fprintf(stderr, "spvjit_runner: %s %s: the cold build was a cache hit\n", c->name, c->variant);
    /* the same values again: a lookup in this context's memory cache */
    static double hit[HIT_SAMPLES];
    for (int i = 0; i < HIT_SAMPLES; ++i) {
        spvjit_kernel *again = NULL;
        t0 = bench_now_ms();
        if (spvjit_kernel_build(r->m, "main", specs, &bo, &again) != SPVJIT_OK) {
            api_error(c, "rebuild");
            return false;
        }
        hit[i] = (bench_now_ms() - t0) * 1e3;
        spvjit_kernel_destroy(again);
    }
    r->bt.hit_us = median(hit, HIT_SAMPLES);
    r->bt.disk_ms = disk_load_ms(o, r->cache_dir, path, specs, &bo);
    r->bt.quick_ms = quick_build_ms(o, path, specs, r->mode);
    return true;
}

/* Time to a first result with the auto tier: a fresh context on a new empty
 * disk folder, module load + build + bind + the first dispatch, checked (the
 * median of COLD_SAMPLES). */
static double auto_first_once(const bench_opts *o, const bench_case *c, const bench_data *d, const bench_launch *L,
                              const char *path, const spvjit_specs *specs, float *buf[3],
                              const spvjit_dispatch_info *di, run_mode mode, bool with_context)
{
    char dir[512];
    if (!make_cache_dir(dir, sizeof dir))
        return -1.0;
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_kernel *k = NULL;
    const spvjit_build_options bo = mode_options(mode, SPVJIT_TIER_AUTO);
    spvjit_context_options co = { .threads = (unsigned)o->threads, .disk_cache_dir = dir };
    double ms = -1.0;
    reset_buffers(L, buf, false);
    double t0 = bench_now_ms();
    if (spvjit_context_create(&co, &ctx) == SPVJIT_OK) {
        if (!with_context) /* a process's first context starts its workers: counted there */
            t0 = bench_now_ms();
        if (load_and_build(ctx, path, specs, &bo, &m, &k) == SPVJIT_OK && bind_all(k, L, buf) &&
            spvjit_dispatch(k, di) == SPVJIT_OK)
            ms = bench_now_ms() - t0;
    }
    char why[256];
    for (int i = 0; ms >= 0 && i < L->nbuf; ++i)
        if (L->buf[i].ref_index >= 0 && !bench_check(c, d, L->buf[i].ref_index, buf[i], why, sizeof(why))) {
            fprintf(stderr, "spvjit_runner: %s %s: auto tier: check failed: %s\n", c->name, c->variant, why);
            ms = -1.0;
        }
    if (ms < 0)
        api_error(c, "auto tier");
    spvjit_kernel_destroy(k);
    spvjit_module_destroy(m);
    spvjit_context_destroy(ctx);
    remove_cache_dir(dir);
    return ms;
}

static double auto_first_ms(const bench_opts *o, const bench_case *c, const bench_data *d, const bench_launch *L,
                            const char *path, const spvjit_specs *specs, float *buf[3], const spvjit_dispatch_info *di,
                            run_mode mode)
{
    double ms[COLD_SAMPLES];
    for (int i = 0; i < COLD_SAMPLES; ++i)
        ms[i] = auto_first_once(o, c, d, L, path, specs, buf, di, mode, false);
    return median(ms, COLD_SAMPLES);
}

/* --- the first result in a fresh process ------------------------------------ */

/* The runner linked with libspvjit.so (bench.mk), beside this program. */
static bool shared_runner_path(char *out, size_t len)
{
    char exe[512];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return false;
    *slash = 0;
    snprintf(out, len, "%s/spvjit_runner_shared", exe);
    return access(out, X_OK) == 0;
}

/* One fresh process: the shared runner in child mode (--fresh-child T0) on
 * case c; it prints the time from T0, read just before the spawn, to its
 * checked first result.  ms, or < 0. */
static double fresh_first_once(const bench_opts *o, const bench_case *c, const char *exe)
{
    char threads[16], t0[32];
    snprintf(threads, sizeof threads, "%d", o->threads);
    const char *argv[32];
    int n = 0;
    argv[n++] = exe;
    argv[n++] = "--threads";
    argv[n++] = threads;
    argv[n++] = "--kernel";
    argv[n++] = c->name;
    argv[n++] = "--variant";
    argv[n++] = c->variant;
    argv[n++] = "--size";
    argv[n++] = o->size_name;
    argv[n++] = "--kernel-dir";
    argv[n++] = o->kernel_dir;
    argv[n++] = "--bench-kernel-dir";
    argv[n++] = o->bench_kernel_dir;
    if (o->spv_dir) {
        argv[n++] = "--spv-dir";
        argv[n++] = o->spv_dir;
    }
    argv[n++] = "--fresh-child";
    argv[n++] = t0;
    argv[n] = NULL;
    int fd[2];
    if (pipe(fd))
        return -1.0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    extern char **environ;
    pid_t pid;
    snprintf(t0, sizeof t0, "%.4f", bench_now_ms());
    int err = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    char out[256] = "";
    size_t got = 0;
    for (ssize_t r; !err && got < sizeof out - 1 && (r = read(fd[0], out + got, sizeof out - 1 - got)) > 0;)
        got += (size_t)r;
    out[got] = 0;
    close(fd[0]);
    int status = 0;
    if (err || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "spvjit_runner: %s %s: the fresh process failed (%s)\n", c->name, c->variant,
                err ? strerror(err) : "its exit status");
        return -1.0;
    }
    const char *v = strstr(out, "fresh_first_ms=");
    return v ? atof(v + strlen("fresh_first_ms=")) : -1.0;
}

static double fresh_first_ms(const bench_opts *o, const runner_opts *ro, const bench_case *c)
{
    char exe[600];
    enum { MAX_SAMPLES = 64 };
    double ms[MAX_SAMPLES];
    int n = ro->fresh_samples < MAX_SAMPLES ? ro->fresh_samples : MAX_SAMPLES;
    if (n <= 0 || !shared_runner_path(exe, sizeof exe))
        return -1.0;
    for (int i = 0; i < n; ++i)
        ms[i] = fresh_first_once(o, c, exe);
    return median(ms, n);
}

/* Binds, runs once (first_ms) and checks the outputs against the reference. */
static bool first_run(const bench_case *c, const bench_data *d, const bench_launch *L, float *buf[3],
                      const spvjit_dispatch_info *di, mode_run *r)
{
    if (!bind_all(r->k, L, buf)) {
        api_error(c, "bind");
        return false;
    }
    reset_buffers(L, buf, false);
    double t0 = bench_now_ms();
    if (spvjit_dispatch(r->k, di) != SPVJIT_OK) {
        api_error(c, "dispatch");
        return false;
    }
    r->first_ms = bench_now_ms() - t0;
    char why[256];
    for (int i = 0; i < L->nbuf; ++i)
        if (L->buf[i].ref_index >= 0 && !bench_check(c, d, L->buf[i].ref_index, buf[i], why, sizeof(why))) {
            fprintf(stderr, "spvjit_runner: %s: check failed: %s\n", mode_runner[r->mode], why);
            return false;
        }
    return true;
}

/* One timed repetition: in-out buffers restored untimed, then dispatch + wait.  The
 * buffers are shared by the modes, so each run rebinds them. */
static bool timed_run(const bench_case *c, const bench_launch *L, float *buf[3], const spvjit_dispatch_info *di,
                      mode_run *r, double *ms)
{
    if (!bind_all(r->k, L, buf)) {
        api_error(c, "bind");
        return false;
    }
    reset_buffers(L, buf, true);
    double t0 = bench_now_ms();
    spvjit_status st = spvjit_dispatch(r->k, di);
    *ms = bench_now_ms() - t0;
    if (st != SPVJIT_OK)
        api_error(c, "dispatch");
    return st == SPVJIT_OK;
}

static void print_and_free(const bench_opts *o, const bench_case *c, mode_run *r)
{
    bench_stats stats = { 0, 0, 0 };
    if (r->ok)
        stats = bench_stats_of(r->ms, o->reps);
    char extra[416], disk[32], quick[32], first[32], fresh[32];
    snprintf(disk, sizeof(disk), r->bt.disk_ms >= 0 ? "%.3f" : "n/a", r->bt.disk_ms);
    snprintf(quick, sizeof(quick), r->bt.quick_ms >= 0 ? "%.2f" : "n/a", r->bt.quick_ms);
    snprintf(first, sizeof(first), r->bt.auto_first_ms >= 0 ? "%.2f" : "n/a", r->bt.auto_first_ms);
    snprintf(fresh, sizeof(fresh), r->bt.fresh_first_ms >= 0 ? "%.2f" : "n/a", r->bt.fresh_first_ms);
    spvjit_kernel_stats ks = { 0 };
    if (r->k)
        spvjit_kernel_stats_get(r->k, &ks);
    snprintf(extra, sizeof(extra),
             " lower_ms=%.1f passes_ms=%.1f codegen_ms=%.1f quick_ms=%s hit_us=%.3f disk_ms=%s auto_first_ms=%s"
             " fresh_first_ms=%s fallback_groups=%llu",
             r->bt.lower_ms, r->bt.passes_ms, r->bt.codegen_ms, quick, r->bt.hit_us, disk, first, fresh,
             (unsigned long long)ks.fallback_groups);
    bench_print_result_extra(o, c, mode_runner[r->mode], stats, r->bt.build_ms, r->first_ms, r->ok, extra);
    free(r->ms);
    spvjit_kernel_destroy(r->k);
    spvjit_module_destroy(r->m);
    spvjit_context_destroy(r->ctx);
    if (r->have_dir)
        remove_cache_dir(r->cache_dir);
}

/* A case's inputs: data and references, launch, buffers, spec values, module path. */
typedef struct case_inputs {
    const bench_data *d;
    bench_launch L;
    spvjit_dispatch_info di;
    float *buf[3];
    spvjit_specs *specs;
    char path[512];
} case_inputs;

static bool inputs_prepare(const bench_opts *o, const bench_case *c, case_inputs *in)
{
    *in = (case_inputs){ .d = bench_data_for(c, &o->sizes) };
    bench_launch_for(c, &o->sizes, in->d, &in->L);
    in->di = (spvjit_dispatch_info){ .groups = { in->L.groups[0], in->L.groups[1], 1 } };
    if (!find_spv(o, c->name, in->path, sizeof(in->path)))
        return false;
    for (int i = 0; i < in->L.nbuf; ++i) {
        /* 64-byte aligned, a whole number of cache lines */
        size_t bytes = (sizeof(float) * (in->L.buf[i].len ? in->L.buf[i].len : 1) + 63) & ~(size_t)63;
        if (!(in->buf[i] = aligned_alloc(64, bytes))) {
            fprintf(stderr, "spvjit_runner: out of memory\n");
            return false;
        }
    }
    if (!(in->specs = specs_for(&in->L))) {
        api_error(c, "spec values");
        return false;
    }
    return true;
}

static void inputs_release(case_inputs *in)
{
    spvjit_specs_destroy(in->specs);
    for (int i = 0; i < 3; ++i)
        free(in->buf[i]);
}

/* Runs case c in the selected modes.  Their repetitions take turns, the
 * order reversed every other round (spec, unspec, unchecked, unchecked,
 * unspec, spec, ...), so a change in the machine's load hits them alike and
 * their ratios, the headlines, stay fair. */
static bool run_case(const bench_opts *o, const runner_opts *ro, const bench_case *c)
{
    case_inputs in;
    bool ready = inputs_prepare(o, c, &in);
    mode_run runs[NMODES];
    int nrun = 0;
    for (int m = 0; m < NMODES; ++m)
        if (ro->run[m])
            runs[nrun++] = (mode_run){
                .mode = (run_mode)m,
                .bt = { .disk_ms = -1.0, .quick_ms = -1.0, .auto_first_ms = -1.0, .fresh_first_ms = -1.0 }
            };

    for (int i = 0; i < nrun; ++i) {
        mode_run *r = &runs[i];
        r->ok = ready && build_cold(o, c, in.path, in.specs, r) && first_run(c, in.d, &in.L, in.buf, &in.di, r);
        if (r->ok)
            r->bt.auto_first_ms = auto_first_ms(o, c, in.d, &in.L, in.path, in.specs, in.buf, &in.di, r->mode);
        if (r->ok && r->mode == MODE_SPECIALIZED && !o->quiet)
            r->bt.fresh_first_ms = fresh_first_ms(o, ro, c);
        if (r->ok && !(r->ms = malloc(sizeof(double) * (size_t)o->reps)))
            exit(2);
    }
    for (int rep = 0; rep < o->reps; ++rep)
        for (int j = 0; j < nrun; ++j) {
            mode_run *r = &runs[rep % 2 ? nrun - 1 - j : j]; /* alternate the order */
            if (r->ok)
                r->ok = timed_run(c, &in.L, in.buf, &in.di, r, &r->ms[rep]);
        }

    bool all_ok = true;
    for (int i = 0; i < nrun; ++i) {
        all_ok &= runs[i].ok;
        print_and_free(o, c, &runs[i]);
    }
    inputs_release(&in);
    return all_ok;
}

/* --fresh-child T0: this process measures fresh_first_ms for the one case
 * selected (see fresh_first_once); t_main is when main started. */
static int fresh_child(const bench_opts *o, double t0, double t_main)
{
    const bench_case *c = bench_first_selected(o);
    case_inputs in;
    bool ok = c && inputs_prepare(o, c, &in);
    double ms =
        ok ? auto_first_once(o, c, in.d, &in.L, in.path, in.specs, in.buf, &in.di, MODE_SPECIALIZED, true) : -1.0;
    if (ms >= 0)
        printf("fresh_first_ms=%.2f\n", t_main - t0 + ms);
    if (c)
        inputs_release(&in);
    return ms >= 0 ? 0 : 1;
}

/* --- command line ------------------------------------------------------------ */

/* Parses --runner's list of modes into run[]; false on an unknown name. */
static bool parse_modes(const char *v, bool run[NMODES])
{
    for (int m = 0; m < NMODES; ++m)
        run[m] = false;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        int m = 0;
        while (m < NMODES && (strlen(mode_runner[m]) != len || strncmp(p, mode_runner[m], len) != 0))
            m++;
        if (m == NMODES || len == 0) {
            fprintf(stderr,
                    "spvjit_runner: --runner expects spvjit, spvjit-unspec or spvjit-unchecked, comma-separated, "
                    "got '%s'\n",
                    v);
            return false;
        }
        run[m] = true;
        p += len + (p[len] == ',');
    }
    return true;
}

/* Takes the runner's own options (`--runner NAME[,NAME...]`,
 * `--fresh-samples N`, `--fresh-child T0`) out of argv: bench_parse_args
 * knows only the common ones.  0, or 2 on an error. */
static int take_runner_options(int *argc, char **argv, runner_opts *ro)
{
    *ro = (runner_opts){ .fresh_child_t0 = -1.0 };
    for (int m = 0; m < NMODES; ++m)
        ro->run[m] = true;
    int out = 1;
    for (int i = 1; i < *argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            printf("spvjit_runner: also --runner spvjit,spvjit-unspec,spvjit-unchecked (default: all, repetitions "
                   "taking turns), --fresh-samples N (fresh_first_ms: N fresh processes per case; default 0)\n");
        if (strcmp(a, "--runner") && strcmp(a, "--fresh-samples") && strcmp(a, "--fresh-child")) {
            argv[out++] = argv[i];
            continue;
        }
        const char *v = i + 1 < *argc ? argv[++i] : "";
        char *end = NULL;
        if (!strcmp(a, "--runner") && !parse_modes(v, ro->run))
            return 2;
        if (!strcmp(a, "--fresh-samples") && ((ro->fresh_samples = (int)strtol(v, &end, 10)) < 0 || *end || !*v)) {
            fprintf(stderr, "spvjit_runner: --fresh-samples expects a count, got '%s'\n", v);
            return 2;
        }
        if (!strcmp(a, "--fresh-child") && ((ro->fresh_child_t0 = strtod(v, &end)) < 0 || *end || !*v)) {
            fprintf(stderr, "spvjit_runner: --fresh-child expects a time, got '%s'\n", v);
            return 2;
        }
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    double t_main = bench_now_ms(); /* a fresh child's start-up ends here */
    runner_opts ro;
    if (take_runner_options(&argc, argv, &ro))
        return 2;
    bench_opts o;
    bench_parse_args(argc, argv, "spvjit (specialized, unspecialized, unchecked)", &o);
    if (ro.fresh_child_t0 >= 0)
        return fresh_child(&o, ro.fresh_child_t0, t_main);
    bool all_ok = true;
    const bench_case *first = bench_first_selected(&o);
    if (first) { /* LLVM's one-time initialisation, outside the measurements */
        bench_opts warm = bench_warmup_opts(&o);
        all_ok &= run_case(&warm, &ro, first);
    }
    for (size_t i = 0; i < bench_case_count; ++i)
        if (bench_selected(&o, &bench_cases[i]))
            all_ok &= run_case(&o, &ro, &bench_cases[i]);
    bench_data_release();
    return all_ok ? 0 : 1;
}
