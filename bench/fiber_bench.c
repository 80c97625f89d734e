/* bench/fiber_bench.c — cost of the executor's fiber switch, its barriers and
 * an empty dispatch, next to swapcontext.
 *
 * Build (against the library or straight from the sources):
 *   cc -O2 -D_GNU_SOURCE -I. bench/fiber_bench.c build/libspvjit.a -lpthread -lm -o build/fiber_bench
 *   cc -O2 -D_GNU_SOURCE -I. bench/fiber_bench.c lib/fiber.c lib/fiber_*.S lib/barrier.c \
 *      lib/executor.c lib/threadpool.c spirv/diag.c -lpthread -lm -o build/fiber_bench
 * Run: build/fiber_bench [iterations-scale]
 * Each figure is the best of several repetitions (least disturbed by other load).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucontext.h>

#include "lib/executor.h"
#include "lib/fiber.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { REPS = 7 };
static long scale = 1;

/* --- spvjit fibers: host <-> one fiber, back and forth ------------------------- */

static spvjit_fiber host_fiber, ping_fiber;
static volatile long ping_count;

static void ping_entry(void *arg)
{
    (void)arg;
    for (;;) {
        ping_count++;
        spvjit_fiber_switch(&ping_fiber, &host_fiber);
    }
}

static double bench_fiber_switch(long n)
{
    spvjit_fiber_stack stack;
    if (spvjit_fiber_stack_alloc(&stack, 0) != 0) {
        fprintf(stderr, "fiber_bench: cannot map a stack\n");
        exit(1);
    }
    spvjit_fiber_init_thread(&host_fiber);
    spvjit_fiber_init(&ping_fiber, &stack, ping_entry, NULL);
    spvjit_fiber_switch(&host_fiber, &ping_fiber); /* start it */
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            spvjit_fiber_switch(&host_fiber, &ping_fiber);
        double per = (now_ns() - t0) / (2.0 * n);
        if (per < best)
            best = per;
    }
    /* The fiber is left suspended for good; its stack can go. */
    spvjit_fiber_stack_forget(&stack);
    spvjit_fiber_stack_free(&stack);
    return best;
}

/* --- swapcontext, the same ping-pong ----------------------------------------------- */

static ucontext_t host_uc, ping_uc;

static void ping_uc_entry(void)
{
    for (;;) {
        ping_count++;
        swapcontext(&ping_uc, &host_uc);
    }
}

static double bench_swapcontext(long n)
{
    static char stack[64 * 1024];
    getcontext(&ping_uc);
    ping_uc.uc_stack.ss_sp = stack;
    ping_uc.uc_stack.ss_size = sizeof stack;
    ping_uc.uc_link = NULL;
    makecontext(&ping_uc, ping_uc_entry, 0);
    swapcontext(&host_uc, &ping_uc);
    double best = 1e30;
    for (int r = 0; r < REPS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            swapcontext(&host_uc, &ping_uc);
        double per = (now_ns() - t0) / (2.0 * n);
        if (per < best)
            best = per;
    }
    return best;
}

/* --- executor: barriers in a group, empty dispatches ---------------------------------- */

enum { BARRIERS = 64 };

static void barrier_item(const spvjit_wg_ctx *c, uint32_t lx, uint32_t ly, uint32_t lz)
{
    (void)lx;
    (void)ly;
    (void)lz;
    for (int i = 0; i < BARRIERS; i++)
        c->barrier(c, 0);
}

static void empty_wg(const spvjit_wg_ctx *c, uint64_t first, uint64_t count)
{
    (void)c;
    (void)first;
    (void)count;
}

static double bench_dispatch(const spvjit_exec_kernel *k, uint32_t groups, uint32_t nthreads, long n)
{
    spvjit_exec_range r = { .kind = SPVJIT_RANGE_GROUPS, .group_count = { groups, 1, 1 } };
    spvjit_exec_data data = { .nthreads = nthreads };
    spv_diag diag;
    if (spvjit_exec_dispatch(k, &r, &data, &diag) != 0) { /* warm-up: pool, stacks */
        fprintf(stderr, "fiber_bench: %s\n", diag.msg);
        exit(1);
    }
    double best = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            spvjit_exec_dispatch(k, &r, &data, &diag);
        double per = (now_ns() - t0) / n;
        if (per < best)
            best = per;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        scale = atol(argv[1]) > 0 ? atol(argv[1]) : 1;
    long n = 2000000 * scale;

    double fiber = bench_fiber_switch(n);
    double uc = bench_swapcontext(n / 4);
    printf("fiber switch (spvjit_fiber_switch)   %8.1f ns per switch\n", fiber);
    printf("swapcontext                          %8.1f ns per switch  (%.1fx slower)\n", uc, uc / fiber);

    for (uint32_t local = 16; local <= 256; local *= 4) {
        spvjit_exec_kernel k = { .item_fn = barrier_item, .local_size = { local, 1, 1 }, .nbarrier_sites = 1 };
        double per_group = bench_dispatch(&k, 1, 1, 2000 * scale);
        printf("barrier, %3u work-items, 1 thread    %8.1f ns per work-item per barrier\n", local,
               per_group / ((double)local * (BARRIERS + 1)));
    }

    spvjit_exec_kernel empty = { .wg_range = empty_wg, .local_size = { 64, 1, 1 } };
    printf("empty dispatch, 1 group, barrier-free %8.3f us\n", bench_dispatch(&empty, 1, 0, 200000 * scale) / 1000.0);
    printf("empty dispatch, 1024 groups, default threads %8.3f us\n",
           bench_dispatch(&empty, 1024, 0, 20000 * scale) / 1000.0);
    (void)ping_count;
    return 0;
}
