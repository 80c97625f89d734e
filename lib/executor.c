/* lib/executor.c — dispatch validation, the work-group grid and per-thread
 * resources (see executor.h). */
#include "lib/executor.h"

#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/barrier.h"
#include "lib/mem_check.h"
#include "lib/threadpool.h"
#include "lib/watchdog.h"
#include "util/timer.h"

/* --- per-thread resources ------------------------------------------------
 * Every thread that runs work-groups (pool workers and dispatching host
 * threads) keeps its fiber stacks and work-group memory block between
 * groups and dispatches; a thread-exit destructor frees them. */

typedef struct exec_thread {
    spvjit_wg_sched sched;
    mem_check_thread check;  /* memory=check: the race detector's shadow */
    spvjit_fiber_stack deep; /* ranges of kernels with much private state run here */
    spvjit_fiber deep_fiber;
    void *wg_mem;
    size_t wg_mem_size;
    size_t wg_mem_align;
} exec_thread;

static _Thread_local exec_thread *tls_thread;
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static bool thread_key_ok;

static void free_thread(void *p)
{
    exec_thread *t = p;
    if (!t)
        return;
    spvjit_wg_sched_destroy(&t->sched);
    mem_check_thread_free(&t->check);
    if (t->deep.map)
        spvjit_fiber_stack_free(&t->deep);
    free(t->wg_mem);
    free(t);
}

static void make_thread_key(void)
{
    thread_key_ok = pthread_key_create(&thread_key, free_thread) == 0;
}

static exec_thread *thread_state(void)
{
    exec_thread *t = tls_thread;
    if (t)
        return t;
    pthread_once(&thread_key_once, make_thread_key);
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    spvjit_wg_sched_init(&t->sched);
    if (thread_key_ok)
        pthread_setspecific(thread_key, t);
    tls_thread = t;
    return t;
}

void spvjit_exec_release_thread(void)
{
    exec_thread *t = tls_thread;
    if (!t)
        return;
    if (thread_key_ok)
        pthread_setspecific(thread_key, NULL);
    tls_thread = NULL;
    free_thread(t);
}

/* The bytes before a block aligned to align: SPVJIT_WG_MEMORY_PAD or more. */
static size_t pad_before(size_t align)
{
    return (SPVJIT_WG_MEMORY_PAD + align - 1) / align * align;
}

/* The thread's work-group memory block, at least size bytes aligned to align,
 * padded as abi.h requires (t->wg_mem is the allocation). */
static void *thread_wg_memory(exec_thread *t, size_t size, size_t align, spv_diag *diag)
{
    if (align < SPVJIT_WG_MEMORY_ALIGN)
        align = SPVJIT_WG_MEMORY_ALIGN;
    if (size <= t->wg_mem_size && align <= t->wg_mem_align)
        return (char *)t->wg_mem + pad_before(t->wg_mem_align);
    free(t->wg_mem);
    t->wg_mem_size = 0;
    t->wg_mem_align = 0;
    size_t rounded = (size + align - 1) / align * align;
    t->wg_mem = aligned_alloc(align, pad_before(align) + rounded + pad_before(align));
    if (!t->wg_mem) {
        spv_fail(diag,
                 "executor: cannot allocate %zu bytes of work-group memory "
                 "aligned to %zu",
                 size, align);
        return NULL;
    }
    t->wg_mem_size = rounded;
    t->wg_mem_align = align;
    return (char *)t->wg_mem + pad_before(align);
}

/* --- deep stacks -------------------------------------------------------------
 * A range runs on the thread that took it, whose stack may be small (any
 * thread may dispatch); a kernel whose work-items keep more private state
 * than THREAD_STACK_BUDGET runs it on a stack of the executor's, sized from
 * the kernel's estimate. */

#define THREAD_STACK_BUDGET ((size_t)256 << 10)

typedef struct deep_call {
    spvjit_wg_range_fn fn;
    const spvjit_wg_ctx *ctx;
    uint64_t first, count, ran;
    exec_thread *t;
} deep_call;

static void deep_entry(void *arg)
{
    deep_call *dc = arg;
    dc->ran = dc->fn(dc->ctx, dc->first, dc->count);
    spvjit_fiber_switch_final(&dc->t->deep_fiber, &dc->t->sched.host);
}

/* *ran = fn(ctx, first, count) (fn: the kernel's wg_range or its fallback),
 * on a deep stack when the kernel needs one. */
static int run_range(exec_thread *t, const spvjit_exec_kernel *k, spvjit_wg_range_fn fn, const spvjit_wg_ctx *ctx,
                     uint64_t first, uint64_t count, uint64_t *ran, spv_diag *diag)
{
    if (k->stack_size <= THREAD_STACK_BUDGET) {
        *ran = fn(ctx, first, count);
        return 0;
    }
    size_t want = (size_t)(2 * k->stack_size) + ((size_t)2 << 20);
    if (t->deep.size < want) {
        if (t->deep.map)
            spvjit_fiber_stack_free(&t->deep);
        memset(&t->deep, 0, sizeof t->deep);
        int err = spvjit_fiber_stack_alloc(&t->deep, want);
        if (err)
            return spv_fail(diag, "executor: cannot map a stack of %zu bytes for the work-items' private state: %s",
                            want, strerror(err));
    }
    deep_call dc = { fn, ctx, first, count, 0, t };
    spvjit_fiber_init(&t->deep_fiber, &t->deep, deep_entry, &dc);
    spvjit_fiber_switch(&t->sched.host, &t->deep_fiber);
    *ran = dc.ran;
    return 0;
}

/* --- one dispatch ----------------------------------------------------------- */

typedef struct dispatch {
    const spvjit_exec_kernel *kernel;
    spvjit_wg_ctx tmpl;    /* the fields every group shares */
    uint32_t last_size[3]; /* local size of the last group in each dimension */
    size_t wg_size, wg_align;
    atomic_flag err_claimed;  /* the first failing thread writes err */
    spvjit_exec_control *ctl; /* the stop flag (ctx->stop: a time limit, a cancel, a failure) */
    spv_diag err;
} dispatch;

/* Compiled code reads the flag through ctx->stop as a plain uint32_t. */
_Static_assert(sizeof(_Atomic uint32_t) == sizeof(uint32_t), "ctx->stop: an atomic uint32_t is a uint32_t");

void spvjit_exec_control_init(spvjit_exec_control *c)
{
    memset(c, 0, sizeof *c);
    atomic_init(&c->stop, SPVJIT_STOP_NONE);
    atomic_init(&c->groups_done, 0);
    atomic_init(&c->groups_fallback, 0);
    atomic_flag_clear(&c->fault_claimed);
}

static void fail_dispatch(dispatch *d, const spv_diag *diag)
{
    if (!atomic_flag_test_and_set(&d->err_claimed))
        memcpy(d->err.msg, diag->msg, sizeof d->err.msg);
    uint32_t none = SPVJIT_STOP_NONE; /* the groups running elsewhere return at their next poll */
    atomic_compare_exchange_strong(&d->ctl->stop, &none, SPVJIT_STOP_FAILED);
}

static bool stopped(dispatch *d)
{
    return atomic_load_explicit(&d->ctl->stop, memory_order_relaxed) != 0;
}

/* Groups that ran to their end (a range the dispatch stopped counts none:
 * some of its groups may have returned early). */
static bool count_done(dispatch *d, uint64_t n)
{
    if (stopped(d))
        return false;
    atomic_fetch_add_explicit(&d->ctl->groups_done, n, memory_order_relaxed);
    return true;
}

/* The ids (without base_group) and local size of the group of linear index g. */
static void group_at(const dispatch *d, uint64_t g, uint32_t id[3], uint32_t size[3])
{
    const spvjit_wg_ctx *c = &d->tmpl;
    uint64_t nx = c->num_groups[0], ny = c->num_groups[1];
    id[0] = (uint32_t)(g % nx);
    id[1] = (uint32_t)(g / nx % ny);
    id[2] = (uint32_t)(g / nx / ny);
    for (int i = 0; i < 3; i++)
        size[i] = id[i] + 1 == c->num_groups[i] ? d->last_size[i] : c->enqueued_local_size[i];
}

/* --- barrier divergence in a region-compiled kernel (jit/abi.h) ------------- */

/* ctx->rt of ranges run by a barrier kernel's wg_range. */
typedef struct region_state {
    const dispatch *d;
    bool failed;
    spv_diag diag;
} region_state;

/* Appends "; N work-items wait at barrier site S: (x,y,z) ... and K more"
 * (resume != 0) or "; N work-items returned: ..." for the items of a group of
 * size `size` whose site is `site`. */
static void list_region_items(const spvjit_wg_ctx *c, const uint32_t size[3], const uint32_t *resume,
                              const uint32_t *resume_site, bool returned, uint32_t site, spv_diag *diag)
{
    enum { SHOW = 4 };
    uint32_t count = 0, shown = 0;
    char buf[4 * 40] = "";
    size_t len = 0;
    uint32_t ex = c->enqueued_local_size[0], ey = c->enqueued_local_size[1];
    for (uint32_t z = 0; z < size[2]; z++)
        for (uint32_t y = 0; y < size[1]; y++)
            for (uint32_t x = 0; x < size[0]; x++) {
                uint32_t r = resume[x + ex * (y + ey * z)];
                if (returned ? r != 0 : (r == 0 || resume_site[r] != site))
                    continue;
                if (shown < SHOW) {
                    len += (size_t)snprintf(buf + len, sizeof buf - len, " (%u,%u,%u)", x, y, z);
                    shown++;
                }
                count++;
            }
    if (returned)
        spv_diag_append(diag, "; %u work-item%s returned:%s", count, count == 1 ? "" : "s", buf);
    else
        spv_diag_append(diag, "; %u work-item%s wait%s at barrier site %u:%s", count, count == 1 ? "" : "s",
                        count == 1 ? "s" : "", site, buf);
    if (count > shown)
        spv_diag_append(diag, " and %u more", count - shown);
}

/* ctx->report_divergence: the same wording as the fiber path (lib/barrier.c). */
static void report_region_divergence(const spvjit_wg_ctx *c, uint64_t group, const uint32_t *resume,
                                     const uint32_t *resume_site, uint64_t rounds)
{
    region_state *st = c->rt;
    spv_diag *diag = &st->diag;
    uint32_t id[3], size[3];
    group_at(st->d, group, id, size);
    st->failed = true;
    spv_fail(diag,
             "barrier divergence in work-group (%u,%u,%u) of local size %ux%ux%u "
             "after %llu completed barrier%s: not all work-items reached the same barrier",
             id[0] + c->base_group[0], id[1] + c->base_group[1], id[2] + c->base_group[2], size[0], size[1], size[2],
             (unsigned long long)rounds, rounds == 1 ? "" : "s");
    uint32_t ex = c->enqueued_local_size[0], ey = c->enqueued_local_size[1];
    bool any = false, some_done = false;
    uint32_t last = 0;
    for (;;) { /* sites in ascending order, each once */
        bool found = false;
        uint32_t next = 0;
        for (uint32_t z = 0; z < size[2]; z++)
            for (uint32_t y = 0; y < size[1]; y++)
                for (uint32_t x = 0; x < size[0]; x++) {
                    uint32_t r = resume[x + ex * (y + ey * z)];
                    some_done |= r == 0;
                    if (r && (!any || resume_site[r] > last) && (!found || resume_site[r] < next)) {
                        next = resume_site[r];
                        found = true;
                    }
                }
        if (!found)
            break;
        list_region_items(c, size, resume, resume_site, false, next, diag);
        last = next;
        any = true;
    }
    if (some_done)
        list_region_items(c, size, resume, resume_site, true, 0, diag);
}

/* The code for group g, which the kernel's code handed back (jit/abi.h). */
static spvjit_wg_range_fn fallback_code(const spvjit_exec_kernel *k, uint64_t g, spv_diag *diag)
{
    if (!k->fallback) {
        spv_fail(diag,
                 "executor: internal error: the kernel's code handed back work-group %llu, and it has no "
                 "checked code to run it",
                 (unsigned long long)g);
        return NULL;
    }
    spvjit_wg_range_fn fn = k->fallback(k->fallback_user, diag);
    if (!fn && !diag->msg[0])
        spv_fail(diag, "executor: no checked code for work-group %llu", (unsigned long long)g);
    return fn;
}

/* Runs work-groups [begin, end) (linear, x fastest) on this thread. */
static bool run_groups(void *user, uint64_t begin, uint64_t end)
{
    dispatch *d = user;
    const spvjit_exec_kernel *k = d->kernel;
    spv_diag diag;
    diag.msg[0] = 0;

    exec_thread *t = thread_state();
    if (!t) {
        spv_fail(&diag, "executor: out of memory for per-thread state");
        fail_dispatch(d, &diag);
        return false;
    }
    void *wg_mem = NULL;
    if (d->wg_size) {
        wg_mem = thread_wg_memory(t, d->wg_size, d->wg_align, &diag);
        if (!wg_mem) {
            fail_dispatch(d, &diag);
            return false;
        }
    }

    spvjit_wg_ctx ctx = d->tmpl;
    ctx.wg_memory = wg_mem;
    region_state regions; /* not zeroed: its message buffer is large */
    regions.d = d;
    regions.failed = false;
    regions.diag.msg[0] = 0;
    ctx.rt = &regions;
    ctx.report_divergence = report_region_divergence;
    if (k->wg_range && !k->memory_check) {
        /* the groups the code hands back run one by one on the fallback code */
        for (uint64_t g = begin; g < end;) {
            uint64_t ran, one;
            if (run_range(t, k, k->wg_range, &ctx, g, end - g, &ran, &diag))
                break;
            if (regions.failed || stopped(d) || ran >= end - g)
                break;
            spvjit_wg_range_fn fb = fallback_code(k, g + ran, &diag);
            if (!fb || run_range(t, k, fb, &ctx, g + ran, 1, &one, &diag) || regions.failed || stopped(d))
                break;
            atomic_fetch_add_explicit(&d->ctl->groups_fallback, 1, memory_order_relaxed);
            g += ran + 1;
        }
        if (diag.msg[0] || regions.failed) {
            fail_dispatch(d, diag.msg[0] ? &diag : &regions.diag);
            return false;
        }
        return count_done(d, end - begin);
    }
    /* the fibers, and memory=check: one group at a time, its ids in the ctx
     * (jit/abi.h), the race detector's shadow clean */
    mem_check_group check;
    for (uint64_t g = begin; g < end; g++) {
        if (stopped(d))
            return false;
        group_at(d, g, ctx.group_id, ctx.local_size);
        if (k->memory_check) {
            if (mem_check_begin_group(&check, &t->check, d->ctl, d->wg_size)) {
                spv_fail(&diag, "executor: out of memory for the race detector's shadow of %zu bytes", d->wg_size);
                fail_dispatch(d, &diag);
                return false;
            }
            ctx.check = &check;
        }
        uint64_t ran;
        if (k->wg_range) {
            if (run_range(t, k, k->wg_range, &ctx, g, 1, &ran, &diag)) {
                fail_dispatch(d, &diag);
                return false;
            }
            if (regions.failed) {
                fail_dispatch(d, &regions.diag);
                return false;
            }
        } else {
            if (k->wg_memory_init)
                k->wg_memory_init(&ctx);
            if (spvjit_wg_sched_run(&t->sched, k->item_fn, &ctx, k->nbarrier_sites, k->stack_size, &diag) != 0) {
                fail_dispatch(d, &diag);
                return false;
            }
        }
        if ((k->memory_check && mem_check_end_group(&check)) || !count_done(d, 1))
            return false;
    }
    return true;
}

/* --- validation and the grid ---------------------------------------------------- */

static int check_kernel(const spvjit_exec_kernel *k, spv_diag *diag)
{
    if (!k)
        return spv_fail(diag, "executor: no kernel given");
    if (!k->wg_range == !k->item_fn)
        return spv_fail(diag,
                        "executor: the kernel must have exactly one of a work-group range "
                        "function and a work-item function (barriers on fibers); it has %s",
                        k->wg_range ? "both" : "neither");
    for (int d = 0; d < 3; d++)
        if (k->local_size[d] == 0)
            return spv_fail(diag, "executor: the kernel's local size %ux%ux%u has a zero dimension", k->local_size[0],
                            k->local_size[1], k->local_size[2]);
    uint64_t align = k->wg_memory_align ? k->wg_memory_align : 16;
    if (align & (align - 1))
        return spv_fail(diag, "executor: work-group memory alignment %llu is not a power of two",
                        (unsigned long long)align);
    if (align > ((uint64_t)1 << 30) || k->wg_memory_size > ((uint64_t)1 << 40))
        return spv_fail(diag,
                        "executor: work-group memory of %llu bytes aligned to %llu is "
                        "beyond what the executor allocates",
                        (unsigned long long)k->wg_memory_size, (unsigned long long)align);
    return 0;
}

/* Fills the grid fields of d->tmpl from a Vulkan-style group count.
 * Returns 1 for an empty dispatch, 0 to run, -1 on error. */
static int grid_from_groups(dispatch *d, const spvjit_exec_range *r, spv_diag *diag)
{
    spvjit_wg_ctx *c = &d->tmpl;
    const spvjit_exec_kernel *k = d->kernel;
    int empty = 0;
    for (int i = 0; i < 3; i++) {
        if (r->group_count[i] == 0)
            empty = 1;
        else if ((uint64_t)r->base_group[i] + r->group_count[i] - 1 > UINT32_MAX)
            return spv_fail(diag,
                            "executor: base group %u + group count %u in dimension %c "
                            "passes the 32-bit work-group id limit",
                            r->base_group[i], r->group_count[i], "XYZ"[i]);
        else if (((uint64_t)r->base_group[i] + r->group_count[i]) * k->local_size[i] > ((uint64_t)1 << 32))
            return spv_fail(diag,
                            "executor: base group %u + group count %u in dimension %c with local size %u "
                            "make global invocation ids past the 32 bits GlobalInvocationId holds",
                            r->base_group[i], r->group_count[i], "XYZ"[i], k -> local_size[i]);
        c->num_groups[i] = r->group_count[i];
        c->base_group[i] = r->base_group[i];
        c->enqueued_local_size[i] = k->local_size[i];
        c->global_size[i] = (uint64_t)r->group_count[i] * k->local_size[i];
        c->global_offset[i] = 0;
        d->last_size[i] = k->local_size[i];
    }
    c->work_dim = 3;
    return empty;
}

/* Fills the grid from an OpenCL NDRange (see spvjit_exec_range). */
static int grid_from_ndrange(dispatch *d, const spvjit_exec_range *r, spv_diag *diag)
{
    spvjit_wg_ctx *c = &d->tmpl;
    const spvjit_exec_kernel *k = d->kernel;
    uint32_t wd = r->work_dim;
    if (wd < 1 || wd > 3)
        return spv_fail(diag, "executor: NDRange work_dim %u is not 1, 2 or 3", wd);
    bool local_given = false;
    for (uint32_t i = 0; i < wd; i++)
        local_given |= r->local_size[i] != 0;
    int empty = 0;
    for (uint32_t i = 0; i < 3; i++) {
        uint64_t global = i < wd ? r->global_size[i] : 1;
        uint64_t offset = i < wd ? r->global_offset[i] : 0;
        uint32_t local = k->local_size[i];
        if (i >= wd && local != 1)
            return spv_fail(diag,
                            "executor: NDRange of work_dim %u, but the kernel's local size "
                            "%ux%ux%u is not 1 in dimension %u",
                            wd, k->local_size[0], k->local_size[1], k->local_size[2], i);
        if (local_given && i < wd && r->local_size[i] != local)
            return spv_fail(diag,
                            "executor: NDRange local size %llu in dimension %u differs from "
                            "the kernel's local size %ux%ux%u it was compiled for",
                            (unsigned long long)r->local_size[i], i, k->local_size[0], k->local_size[1],
                            k->local_size[2]);
        if (offset > UINT64_MAX - global)
            return spv_fail(diag,
                            "executor: NDRange global offset %llu + global size %llu in "
                            "dimension %u overflows 64 bits",
                            (unsigned long long)offset, (unsigned long long)global, i);
        if (global == 0)
            empty = 1;
        uint64_t groups = global / local + (global % local != 0);
        if (groups > UINT32_MAX)
            return spv_fail(diag,
                            "executor: NDRange global size %llu with local size %u in "
                            "dimension %u needs %llu work-groups, more than 2^32-1",
                            (unsigned long long)global, local, i, (unsigned long long)groups);
        c->num_groups[i] = (uint32_t)groups;
        c->base_group[i] = 0;
        c->enqueued_local_size[i] = local;
        c->global_size[i] = global;
        c->global_offset[i] = offset;
        d->last_size[i] = global % local ? (uint32_t)(global % local) : local;
    }
    c->work_dim = wd;
    return empty;
}

int spvjit_exec_dispatch(const spvjit_exec_kernel *kernel, const spvjit_exec_range *range, const spvjit_exec_data *data,
                         spv_diag *diag)
{
    static const spvjit_exec_data no_data;
    if (!data)
        data = &no_data;
    if (check_kernel(kernel, diag) != 0)
        return -1;
    if (!range)
        return spv_fail(diag, "executor: no dispatch range given");

    /* On the caller's stack: workers only touch it inside spvjit_pool_run. */
    dispatch dd;
    dispatch *d = &dd;
    memset(d, 0, offsetof(dispatch, err));
    d->err.msg[0] = 0;
    d->kernel = kernel;
    spvjit_exec_control own;
    if (!(d->ctl = data->control)) {
        spvjit_exec_control_init(&own);
        d->ctl = &own;
    }
    int grid;
    if (range->kind == SPVJIT_RANGE_GROUPS)
        grid = grid_from_groups(d, range, diag);
    else if (range->kind == SPVJIT_RANGE_NDRANGE)
        grid = grid_from_ndrange(d, range, diag);
    else
        grid = spv_fail(diag, "executor: unknown dispatch range kind %d", (int)range->kind);
    if (grid != 0)
        return grid < 0 ? -1 : 0;

    uint64_t total = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t n = d->tmpl.num_groups[i];
        if (total > UINT64_MAX / 2 / n)
            return spv_fail(diag,
                            "executor: %ux%ux%u work-groups are more than one dispatch "
                            "can count",
                            d->tmpl.num_groups[0], d->tmpl.num_groups[1], d->tmpl.num_groups[2]);
        total *= n;
    }

    uint32_t nthreads = data->nthreads ? data->nthreads : spvjit_pool_default_threads();
    if (nthreads > SPVJIT_POOL_MAX_THREADS) {
        return spv_fail(diag, "executor: %u threads asked for, at most %u", nthreads, SPVJIT_POOL_MAX_THREADS);
    }

    spvjit_wg_ctx *c = &d->tmpl;
    c->args = data->args;
    c->arg_sizes = data->arg_sizes;
    c->push_constants = data->push_constants;
    c->spec_values = data->spec_values;
    c->printf_stream = data->printf_stream;
    c->barrier = NULL;
    c->rt = NULL;
    c->stop = (const uint32_t *)&d->ctl->stop;
    c->report_oob = mem_check_report_oob;
    c->wg_access = mem_check_wg_access;
    c->check = NULL;
    d->wg_align = kernel->wg_memory_align > 16 ? (size_t)kernel->wg_memory_align : 16;
    d->wg_size = (size_t)kernel->wg_memory_size;
    atomic_flag_clear(&d->err_claimed);

    d->ctl->groups_total = total;
    uint64_t t0 = util_now_ns();
    watchdog_entry timer;
    bool timed = d->ctl->timeout_ns != 0;
    if (timed && watchdog_arm(&timer, &d->ctl->stop, SPVJIT_STOP_TIMEOUT, t0 + d->ctl->timeout_ns))
        return spv_fail(diag, "executor: cannot start the thread that keeps the dispatch's time limit");
    bool ok = spvjit_pool_run(total, nthreads, run_groups, d);
    if (timed)
        watchdog_disarm(&timer);
    d->ctl->elapsed_ms = (double)(util_now_ns() - t0) / 1e6;
    uint32_t why = atomic_load(&d->ctl->stop);
    if (ok && !why)
        return 0;
    if (diag)
        memcpy(diag->msg, d->err.msg, sizeof diag->msg);
    if (diag && !diag->msg[0])
        spv_fail(diag, "executor: the dispatch was stopped (%s) after %llu of %llu work-groups",
                 why == SPVJIT_STOP_TIMEOUT     ? "its time limit"
                 : why == SPVJIT_STOP_CANCELLED ? "cancelled"
                                                : "a memory=check report",
                 (unsigned long long)atomic_load(&d->ctl->groups_done), (unsigned long long)total);
    return -1;
}

/* Largest divisor of n that is at most cap (n = 0 counts as 1). */
static uint32_t divisor_at_most(uint64_t n, uint32_t cap)
{
    if (n == 0)
        return 1;
    for (uint32_t v = cap; v > 1; v--)
        if (n % v == 0)
            return v;
    return 1;
}

void spvjit_exec_pick_local_size(uint32_t work_dim, const uint64_t global_size[3], uint32_t local_size[3])
{
    /* At most 256 items, square-ish in 2D/3D, so tiles stay cache-sized. */
    static const uint32_t caps[3][3] = { { 256, 1, 1 }, { 16, 16, 1 }, { 8, 8, 4 } };
    uint32_t wd = work_dim >= 1 && work_dim <= 3 ? work_dim : 1;
    for (uint32_t i = 0; i < 3; i++)
        local_size[i] = i < wd ? divisor_at_most(global_size[i], caps[wd - 1][i]) : 1;
}
