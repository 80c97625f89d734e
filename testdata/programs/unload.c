/* testdata/programs/unload.c — a host that loads libspvjit.so with dlopen,
 * uses it and unloads it again, as a plugin host does.
 *
 *   unload destroy|keep MM.spv LIBSPVJIT.so WAIT_MS
 *
 * Creates a context of 2 threads (its worker thread starts), builds MM.spv's
 * "main" with the auto tier and the define 0=8 (its optimized tier then
 * compiles in the background), runs C = A * B at 40 x 40 and checks every
 * element against the same product in C, waits WAIT_MS milliseconds, then
 * (`destroy`) destroys the kernel, the module and the context, or (`keep`)
 * destroys nothing, and calls dlclose.  It then runs 200 ms more, prints
 * "unloaded" and returns from main: the exit status must be 0.  The
 * library's threads and exit handlers must not be left in code that
 * dlclose unmapped.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spvjit.h"

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

/* The library's functions this program calls, looked up by name. */
#define API(X)                                                                                                         \
    X(spvjit_context_create)                                                                                           \
    X(spvjit_context_destroy)                                                                                          \
    X(spvjit_module_load_file)                                                                                         \
    X(spvjit_module_destroy)                                                                                           \
    X(spvjit_specs_create)                                                                                             \
    X(spvjit_specs_destroy)                                                                                            \
    X(spvjit_spec_set_define)                                                                                          \
    X(spvjit_kernel_build)                                                                                             \
    X(spvjit_kernel_destroy)                                                                                           \
    X(spvjit_bind_buffer)                                                                                              \
    X(spvjit_set_push_constants)                                                                                       \
    X(spvjit_dispatch)                                                                                                 \
    X(spvjit_last_error)
#define DECLARE(f) static __typeof__(f) *p_##f;
API(DECLARE)

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "unload: %s: %s\n", what, why ? why : "?");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[1], "destroy") && strcmp(argv[1], "keep")))
        return fail("usage", "unload destroy|keep MM.spv LIBSPVJIT.so WAIT_MS");
    void *lib = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return fail("dlopen", dlerror());
#define LOOKUP(f)                                                                                                      \
    if (!(*(void **)&p_##f = dlsym(lib, #f)))                                                                          \
        return fail("dlsym", #f);
    API(LOOKUP)

    enum { N = 40, BS = 8 };
    static float a[N * N], b[N * N], c[N * N];
    for (int i = 0; i < N * N; i++) {
        a[i] = (float)(i % 13) - 6.0f;
        b[i] = (float)(i % 7) * 0.5f;
    }
    spvjit_context_options co = { 0 };
    co.threads = 2;
    co.disk_cache_dir = ""; /* every build compiles */
    co.defaults.tier = SPVJIT_TIER_AUTO;
    spvjit_context *ctx;
    spvjit_module *m;
    spvjit_specs *s;
    spvjit_kernel *k;
    if (p_spvjit_context_create(&co, &ctx) || p_spvjit_module_load_file(ctx, argv[2], &m) ||
        p_spvjit_specs_create(&s) || p_spvjit_spec_set_define(s, "0=8") ||
        p_spvjit_kernel_build(m, "main", s, NULL, &k))
        return fail("build", p_spvjit_last_error());
    unsigned n = N, groups = (N + BS - 1) / BS;
    spvjit_dispatch_info di = { .groups = { groups, groups, 1 } };
    if (p_spvjit_bind_buffer(k, 0, 0, a, sizeof a) || p_spvjit_bind_buffer(k, 0, 1, b, sizeof b) ||
        p_spvjit_bind_buffer(k, 0, 2, c, sizeof c) || p_spvjit_set_push_constants(k, &n, sizeof n) ||
        p_spvjit_dispatch(k, &di))
        return fail("dispatch", p_spvjit_last_error());
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float want = 0.0f;
            for (int t = 0; t < N; t++)
                want += a[i * N + t] * b[t * N + j];
            if (fabsf(c[i * N + j] - want) > 1e-3f * (1.0f + fabsf(want))) {
                fprintf(stderr, "unload: C[%d][%d] = %g, want %g\n", i, j, c[i * N + j], want);
                return 1;
            }
        }
    sleep_ms(atol(argv[4]));
    if (!strcmp(argv[1], "destroy")) {
        p_spvjit_kernel_destroy(k);
        p_spvjit_specs_destroy(s);
        p_spvjit_module_destroy(m);
        p_spvjit_context_destroy(ctx);
    }
    if (dlclose(lib))
        return fail("dlclose", dlerror());
    sleep_ms(200);
    printf("unloaded\n");
    return 0;
}
