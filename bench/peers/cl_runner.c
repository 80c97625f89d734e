/* bench/peers/cl_runner.c — a small OpenCL runner, the PoCL peer.
 *
 * Picks an OpenCL CPU device (PoCL's pthread device when present) and for
 * every case builds the very OpenCL C source that becomes the Kernel-flavour
 * SPIR-V (testdata/kernels/<k>.cl, bench/kernels/scan.cl), prefixed with
 * bench/kernels/spec_prelude.clh, with the spec values as build options
 * (-DSPEC_<id>=<value>: PoCL compiles OpenCL C and has no specialization
 * constants).  clBuildProgram is timed apart (build_ms); the first enqueue +
 * clFinish (first_ms) includes PoCL's lazy work-group function compile for the
 * local size; its output is checked against the C reference; then --reps
 * enqueue + clFinish runs are timed.  PoCL's worker threads:
 * POCL_MAX_PTHREAD_COUNT (PoCL 3.1's pthread device), set from --threads
 * before the platform is opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>

#include "bench/peers/bench_util.h"

#define RUNNER "pocl"

typedef struct cl_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    char name[256];
    cl_uint compute_units;
    size_t max_wg;
    bool subgroups; /* cl_khr_subgroups */
} cl_env;

#define CL_TRY(call)                                                                                                   \
    do {                                                                                                               \
        cl_int cl_try_e = (call);                                                                                      \
        if (cl_try_e != CL_SUCCESS) {                                                                                  \
            fprintf(stderr, "cl_runner: %s failed: error %d\n", #call, (int)cl_try_e);                                 \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

/* 0: ready; BENCH_EXIT_SKIP: no OpenCL CPU device; 1: error. */
static int cl_env_init(cl_env *e)
{
    memset(e, 0, sizeof(*e));
    cl_platform_id plats[16];
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(16, plats, &nplat);
    if (err != CL_SUCCESS || nplat == 0) {
        fprintf(stderr, "cl_runner: no OpenCL platform (error %d; PoCL: apt-get install pocl-opencl-icd)\n", (int)err);
        return BENCH_EXIT_SKIP;
    }
    if (nplat > 16)
        nplat = 16;
    /* PoCL first when there are several CPU platforms */
    for (int pass = 0; pass < 2 && !e->device; ++pass)
        for (cl_uint p = 0; p < nplat && !e->device; ++p) {
            char pname[256] = "";
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof(pname), pname, NULL);
            if (pass == 0 && !strstr(pname, "Portable Computing Language"))
                continue;
            cl_device_id dev;
            cl_uint ndev = 0;
            if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_CPU, 1, &dev, &ndev) == CL_SUCCESS && ndev > 0) {
                e->platform = plats[p];
                e->device = dev;
            }
        }
    if (!e->device) {
        fprintf(stderr, "cl_runner: no OpenCL CPU device\n");
        return BENCH_EXIT_SKIP;
    }
    clGetDeviceInfo(e->device, CL_DEVICE_NAME, sizeof(e->name), e->name, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(e->compute_units), &e->compute_units, NULL);
    clGetDeviceInfo(e->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(e->max_wg), &e->max_wg, NULL);
    char ext[8192] = "";
    clGetDeviceInfo(e->device, CL_DEVICE_EXTENSIONS, sizeof(ext) - 1, ext, NULL);
    e->subgroups = strstr(ext, "cl_khr_subgroups") != NULL;
    e->context = clCreateContext(NULL, 1, &e->device, NULL, NULL, &err);
    CL_TRY(err);
    e->queue = clCreateCommandQueue(e->context, e->device, 0, &err);
    CL_TRY(err);
    return 0;
fail:
    return 1;
}

static void cl_env_destroy(cl_env *e)
{
    if (e->queue)
        clReleaseCommandQueue(e->queue);
    if (e->context)
        clReleaseContext(e->context);
}

/* "-cl-std=CL1.2 -DSPEC_<id>=<value> ...": floats as exact hex literals. */
static void build_options(const bench_launch *L, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "-cl-std=CL1.2");
    for (int i = 0; i < L->nspec && n < len; ++i) {
        if (L->spec[i].is_float) {
            float f;
            memcpy(&f, &L->spec[i].bits, sizeof(f));
            n += (size_t)snprintf(buf + n, len - n, " -DSPEC_%u=%af", L->spec[i].id, (double)f);
        } else {
            n += (size_t)snprintf(buf + n, len - n, " -DSPEC_%u=%uu", L->spec[i].id, L->spec[i].bits);
        }
    }
}

/* The source of kernel `name`: the prelude + <kernel_dir or bench_kernel_dir>/<name>.cl. */
static bool load_sources(const bench_opts *o, const char *name, char *src[2], char *path, size_t path_len)
{
    char file[128], prelude_path[512];
    snprintf(file, sizeof(file), "%s.cl", name);
    bench_path(path, path_len, o->kernel_dir, file);
    if (access(path, R_OK) != 0)
        bench_path(path, path_len, o->bench_kernel_dir, file);
    src[0] =
        bench_read_file(bench_path(prelude_path, sizeof(prelude_path), o->bench_kernel_dir, "spec_prelude.clh"), NULL);
    src[1] = bench_read_file(path, NULL);
    return src[0] && src[1];
}

static void print_build_log(const cl_env *e, cl_program prog, const char *path)
{
    size_t len = 0;
    clGetProgramBuildInfo(prog, e->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    if (!log)
        return;
    log[0] = '\0';
    clGetProgramBuildInfo(prog, e->device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    log[len] = '\0';
    fprintf(stderr, "cl_runner: build log of %s:\n%s\n", path, log);
    fprintf(stderr, "cl_runner: (PoCL needs a writable cache dir: $POCL_CACHE_DIR or $XDG_CACHE_HOME/$HOME)\n");
    free(log);
}

/* Restores the buffers' initial contents (outputs to zero), or with
 * each_run only those bench_buffer_reset_each_run names: untimed. */
static bool reset_buffers(const cl_env *e, const bench_launch *L, cl_mem *mem, float *zeros, bool each_run)
{
    for (int i = 0; i < L->nbuf; ++i) {
        if (each_run && !bench_buffer_reset_each_run(&L->buf[i]))
            continue;
        const float *src = L->buf[i].init ? L->buf[i].init : zeros;
        CL_TRY(clEnqueueWriteBuffer(e->queue, mem[i], CL_TRUE, 0, sizeof(float) * L->buf[i].len, src, 0, NULL, NULL));
    }
    return true;
fail:
    return false;
}

static bool run_once(const cl_env *e, cl_kernel kern, const bench_launch *L, double *ms)
{
    size_t global[2] = { (size_t)L->groups[0] * L->local[0], (size_t)L->groups[1] * L->local[1] };
    size_t local[2] = { L->local[0], L->local[1] };
    cl_uint dims = L->local[1] > 1 || L->groups[1] > 1 ? 2 : 1;
    double t0 = bench_now_ms();
    CL_TRY(clEnqueueNDRangeKernel(e->queue, kern, dims, NULL, global, local, 0, NULL, NULL));
    CL_TRY(clFinish(e->queue));
    *ms = bench_now_ms() - t0;
    return true;
fail:
    return false;
}

static bool run_case(const cl_env *e, const bench_opts *o, const bench_case *c)
{
    const bench_data *d = bench_data_for(c, &o->sizes);
    bench_launch L;
    bench_launch_for(c, &o->sizes, d, &L);
    bool ok = false;
    double build_ms = 0, first_ms = 0;
    bench_stats st = { 0, 0, 0 };
    double *ms = NULL;
    char *src[2] = { NULL, NULL };
    char path[512], opts[512];
    cl_program prog = NULL;
    cl_kernel kern = NULL;
    cl_mem mem[3] = { NULL, NULL, NULL };
    float *zeros = NULL, *host = NULL;
    cl_int err;

    if (c->subgroups && !e->subgroups) {
        bench_print_skip(o, c, RUNNER, "the device lacks cl_khr_subgroups");
        return true;
    }
    if ((size_t)L.local[0] * L.local[1] > e->max_wg) {
        fprintf(stderr, "cl_runner: %s %s: local size %ux%u exceeds the device's %zu\n", c->name, c->variant,
                L.local[0], L.local[1], e->max_wg);
        goto fail;
    }
    if (!load_sources(o, c->name, src, path, sizeof(path)))
        goto fail;
    build_options(&L, opts, sizeof(opts));

    double t0 = bench_now_ms();
    prog = clCreateProgramWithSource(e->context, 2, (const char **)src, NULL, &err);
    CL_TRY(err);
    err = clBuildProgram(prog, 1, &e->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "cl_runner: clBuildProgram(%s, \"%s\") failed: error %d\n", path, opts, (int)err);
        print_build_log(e, prog, path);
        goto fail;
    }
    build_ms = bench_now_ms() - t0;
    kern = clCreateKernel(prog, c->name, &err);
    CL_TRY(err);

    size_t max_len = 1;
    for (int i = 0; i < L.nbuf; ++i) {
        mem[i] = clCreateBuffer(e->context, CL_MEM_READ_WRITE, sizeof(float) * (L.buf[i].len ? L.buf[i].len : 1), NULL,
                                &err);
        CL_TRY(err);
        CL_TRY(clSetKernelArg(kern, (cl_uint)i, sizeof(cl_mem), &mem[i]));
        if (L.buf[i].len > max_len)
            max_len = L.buf[i].len;
    }
    cl_uint arg = (cl_uint)L.nbuf;
    for (int i = 0; i < L.npush; ++i, ++arg) {
        cl_uint v = L.push[i];
        CL_TRY(clSetKernelArg(kern, arg, sizeof(v), &v));
    }
    if (L.cl_scratch_floats)
        CL_TRY(clSetKernelArg(kern, arg, sizeof(float) * L.cl_scratch_floats, NULL));
    zeros = calloc(max_len, sizeof(float));
    host = malloc(sizeof(float) * max_len);
    if (!zeros || !host)
        exit(2);

    /* first run: checked, not timed into the median */
    if (!reset_buffers(e, &L, mem, zeros, false) || !run_once(e, kern, &L, &first_ms))
        goto fail;
    char why[256];
    for (int i = 0; i < L.nbuf; ++i) {
        if (L.buf[i].ref_index < 0)
            continue;
        CL_TRY(clEnqueueReadBuffer(e->queue, mem[i], CL_TRUE, 0, sizeof(float) * L.buf[i].len, host, 0, NULL, NULL));
        if (!bench_check(c, d, L.buf[i].ref_index, host, why, sizeof(why))) {
            fprintf(stderr, "cl_runner: check failed (%s, %s): %s\n", path, opts, why);
            goto fail;
        }
    }
    ms = malloc(sizeof(double) * (size_t)o->reps);
    if (!ms)
        exit(2);
    for (int r = 0; r < o->reps; ++r)
        if (!reset_buffers(e, &L, mem, zeros, true) || !run_once(e, kern, &L, &ms[r]))
            goto fail;
    st = bench_stats_of(ms, o->reps);
    ok = true;
fail:
    bench_print_result(o, c, RUNNER, st, build_ms, first_ms, ok);
    for (int i = 0; i < 3; ++i)
        if (mem[i])
            clReleaseMemObject(mem[i]);
    if (kern)
        clReleaseKernel(kern);
    if (prog)
        clReleaseProgram(prog);
    free(ms);
    free(zeros);
    free(host);
    free(src[0]);
    free(src[1]);
    return ok;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_parse_args(argc, argv, RUNNER, &o);
    /* Before the platform is opened: PoCL sizes its pthread pool from it. */
    char threads[16];
    snprintf(threads, sizeof(threads), "%d", o.threads);
    setenv("POCL_MAX_PTHREAD_COUNT", threads, 1);

    cl_env e;
    int rc = cl_env_init(&e);
    if (rc != 0) {
        cl_env_destroy(&e);
        return rc;
    }
    fprintf(stderr, "cl_runner: %s, %u compute units (POCL_MAX_PTHREAD_COUNT=%s)\n", e.name, e.compute_units, threads);
    bool all_ok = true;
    const bench_case *first = bench_first_selected(&o);
    if (first) {
        bench_opts warm = bench_warmup_opts(&o);
        all_ok &= run_case(&e, &warm, first);
    }
    for (size_t i = 0; i < bench_case_count; ++i)
        if (bench_selected(&o, &bench_cases[i]))
            all_ok &= run_case(&e, &o, &bench_cases[i]);
    bench_data_release();
    cl_env_destroy(&e);
    return all_ok ? 0 : 1;
}
