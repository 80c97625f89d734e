/* testdata/programs/while_compiling.c — a host program that ends, or forks,
 * while its kernel's optimized tier may still be compiling in the background.
 *
 *   while_compiling exit|async MM.spv WAIT_MS
 *   while_compiling fork MM.spv SAXPY.spv WAIT_MS
 *
 * Builds MM.spv's "main" with the auto tier and the define 0=8 (`async`:
 * with the quick tier, and starts an asynchronous optimized build of it with
 * 0=32, never waited for), prints "built" and waits WAIT_MS milliseconds (an
 * auto build's optimized compile starts 10 ms after the build).  `exit` and `async` then return from main,
 * destroying nothing (as many programs end): the exit status must be 0
 * whatever the compiles were doing.
 * `fork` forks: the child builds SAXPY.spv's "main" (a = 2), runs y = 2x + y
 * on 4096 floats on 2 threads, checks every element against the same formula
 * in C and that a worker thread of its own ("spvjit-worker") helped, waits
 * for MM's optimized code, prints "child ok" and returns from main,
 * destroying nothing.  The parent's workers do not exist in the child, so
 * its dispatch must start its own; a compile the parent was running must not
 * be left half done in the child (nor the locks it held); and the waits and
 * the exit must end.  The parent waits for the child and exits with its
 * status.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spvjit.h"

static int child(spvjit_context *ctx, spvjit_kernel *mm, const char *saxpy_path)
{
    enum { N = 4096 };
    static float x[N], y[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 97) * 0.25f;
        y[i] = (float)(i % 13) - 6.0f;
    }
    spvjit_module *m = NULL;
    spvjit_specs *specs = NULL;
    spvjit_kernel *k = NULL;
    uint32_t n = N;
    if (spvjit_module_load_file(ctx, saxpy_path, &m) || spvjit_specs_create(&specs) ||
        spvjit_spec_set_define(specs, "0=2.0") || spvjit_kernel_build(m, "main", specs, NULL, &k) ||
        spvjit_bind_buffer(k, 0, 0, x, sizeof x) || spvjit_bind_buffer(k, 0, 1, y, sizeof y) ||
        spvjit_set_push_constants(k, &n, sizeof n) ||
        spvjit_dispatch(k, &(spvjit_dispatch_info){ .groups = { N / 64, 1, 1 } })) {
        fprintf(stderr, "child: %s\n", spvjit_last_error());
        return 1;
    }
    for (int i = 0; i < N; i++) {
        float want = 2.0f * ((float)(i % 97) * 0.25f) + ((float)(i % 13) - 6.0f);
        if (y[i] != want) {
            fprintf(stderr, "child: y[%d] = %g, expected %g\n", i, y[i], want);
            return 1;
        }
    }
    /* the dispatch had a helper: the child started a worker of its own */
    int workers = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f && fgets(name, sizeof name, f) && !strcmp(name, "spvjit-worker\n"))
            workers++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    if (workers < 1) {
        fprintf(stderr, "child: no worker thread after a dispatch on 2 threads\n");
        return 1;
    }
    /* the parent's kernel reaches its optimized code here too, whatever its compile was doing at the fork */
    spvjit_kernel_stats st;
    if (spvjit_kernel_wait_optimized(mm) || spvjit_kernel_stats_get(mm, &st) || st.tier != SPVJIT_TIER_OPT) {
        fprintf(stderr, "child: the parent's kernel has no optimized code: %s\n", spvjit_last_error());
        return 1;
    }
    printf("child ok\n");
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    bool fork_too = argc == 5 && !strcmp(argv[1], "fork"), async = argc == 4 && !strcmp(argv[1], "async");
    if (!fork_too && !async && (argc != 4 || strcmp(argv[1], "exit"))) {
        fprintf(stderr, "usage: while_compiling exit|async MM.spv WAIT_MS | fork MM.spv SAXPY.spv WAIT_MS\n");
        return 2;
    }
    spvjit_context *ctx = NULL;
    spvjit_module *m = NULL;
    spvjit_specs *specs = NULL;
    spvjit_kernel *k = NULL;
    spvjit_context_options co = { .threads = 2, .disk_cache_dir = "", .defaults = { .tier = SPVJIT_TIER_AUTO } };
    if (spvjit_context_create(&co, &ctx) || spvjit_module_load_file(ctx, argv[2], &m) || spvjit_specs_create(&specs) ||
        spvjit_spec_set_define(specs, "0=8") ||
        spvjit_kernel_build(m, "main", specs,
                            &(spvjit_build_options){ .tier = async ? SPVJIT_TIER_QUICK : SPVJIT_TIER_DEFAULT }, &k)) {
        fprintf(stderr, "while_compiling: %s\n", spvjit_last_error());
        return 1;
    }
    spvjit_specs *specs32 = NULL;
    spvjit_build_event *ev = NULL;
    if (async &&
        (spvjit_specs_create(&specs32) || spvjit_spec_set_define(specs32, "0=32") ||
         spvjit_kernel_build_async(m, "main", specs32, &(spvjit_build_options){ .tier = SPVJIT_TIER_OPT }, &ev))) {
        fprintf(stderr, "while_compiling: %s\n", spvjit_last_error());
        return 1;
    }
    printf("built\n");
    fflush(stdout);
    long ms = atol(argv[argc - 1]);
    struct timespec wait = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };
    nanosleep(&wait, NULL);
    if (!fork_too)
        return 0;
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0)
        return child(ctx, k, argv[3]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    if (!WIFEXITED(status)) {
        fprintf(stderr, "while_compiling: the child died of signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return 1;
    }
    return WEXITSTATUS(status);
}
