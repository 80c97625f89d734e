/* lib/api_tier.c — compiled kernels and the tiers of their code.
 *
 * A compiled object (api_compiled) holds its current code (api_code).  An
 * auto build makes it with quick code and queues the optimized compile as a
 * task on the thread pool (lib/threadpool.h); when that ends, the optimized
 * code replaces the quick one under the object's lock.  A dispatch takes a
 * reference to the code current when it starts and runs it to its end, so a
 * switch never happens in the middle of a dispatch; the quick code is freed
 * when the last dispatch using it ends.  Whoever needs the optimized code now
 * (an optimized build, spvjit_kernel_wait_optimized, a large dispatch) waits
 * for it, and runs the compile on its own thread when no worker has begun it.
 *
 * A job keeps its compiled object alive, so kernels and caches may drop theirs
 * while it runs.  The process lists its jobs: a context's teardown cancels
 * its own (the JIT stops at its next step) and waits for those running, so no
 * compile outlives the context that started it; the process's exit does the
 * same for all of them, so none runs into the C++ destructors of LLVM's
 * globals (a worker compiling while exit() ran them crashed the process;
 * the pool's exit handler waits for the tasks still running).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/api_internal.h"
#include "lib/threadpool.h"
#include "util/timer.h"

struct api_opt_job {
    spvjit_pool_task task; /* first: the pool hands this back */
    api_compiled *c;       /* a reference; its plan is compiled */
    spvjit_context *ctx;   /* whose teardown waits for it */
    api_opt_job *prev, *next;
    atomic_bool cancel;
};

/* The optimized compiles queued or running, whatever their context. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t done; /* a job left the list */
    api_opt_job *list;
    pthread_once_t exit_once; /* cancel_all_at_exit registered */
} jobs = { .lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER, .exit_once = PTHREAD_ONCE_INIT };

/* --- code ------------------------------------------------------------------------- */

static api_code *code_new(jit_kernel *jk, jit_tier tier, bool facts_owner)
{
    api_code *code = calloc(1, sizeof *code);
    if (!code)
        return NULL;
    atomic_init(&code->refs, 1);
    code->jk = jk;
    code->facts_owner = facts_owner;
    code->tier = tier;
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(jk);
    spvjit_exec_kernel *e = &code->exec;
    e->wg_range = spvjit_kernel_wg_range_fn(jk);
    e->item_fn = spvjit_kernel_item_fn(jk);
    memcpy(e->local_size, f->local_size, sizeof e->local_size);
    e->wg_memory_size = f->wg_mem_size;
    e->wg_memory_align = f->wg_mem_align;
    e->wg_memory_init = spvjit_kernel_wg_init_fn(jk);
    e->stack_size = f->stack_estimate;
    e->nbarrier_sites = f->nbarrier_sites;
    e->memory_check = f->memory_check;
    return code;
}

void api_code_release(api_code *code)
{
    if (!code || atomic_fetch_sub(&code->refs, 1) != 1)
        return;
    if (code->facts_owner)
        spvjit_kernel_free_code(code->jk); /* the compiled object frees the rest */
    else
        spvjit_kernel_free(code->jk);
    free(code);
}

/* --- compiled objects --------------------------------------------------------------- */

api_compiled *api_compiled_new(spv_module *sm, jit_kernel *jk, jit_tier tier, api_build_plan *plan)
{
    api_compiled *c = calloc(1, sizeof *c);
    if (!c || !(c->code = code_new(jk, tier, true))) {
        free(c);
        return NULL;
    }
    atomic_init(&c->refs, 1);
    c->module = sm;
    c->jk = jk;
    c->facts = spvjit_kernel_facts_of(jk);
    c->opt_facts = tier == JIT_TIER_OPT ? c->facts : NULL;
    if (plan) {
        c->plan = *plan;
        memset(plan, 0, sizeof *plan);
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    pthread_mutex_init(&c->fallback_lock, NULL);
    atomic_init(&c->fallback, NULL);
    atomic_init(&c->fallback_groups, 0);
    return c;
}

void api_compiled_retain(void *p)
{
    api_compiled *c = p;
    atomic_fetch_add(&c->refs, 1);
}

void api_compiled_release(void *p)
{
    api_compiled *c = p;
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    /* No job is pending (a job holds a reference) and no dispatch runs (each
     * holds one too), so the current code has no other holder.  The first
     * code's kernel, its code freed now or at the switch, goes with the facts. */
    api_code_release(c->code);
    api_code_release(atomic_load(&c->fallback));
    spvjit_kernel_free(c->jk);
    spv_module_free(c->module);
    api_plan_free(&c->plan);
    pthread_cond_destroy(&c->changed);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->fallback_lock);
    free(c->opt_error);
    free(c->fallback_error);
    free(c);
}

api_code *api_compiled_code(api_compiled *c, uint64_t items)
{
    if (items > API_QUICK_MAX_ITEMS)
        (void)api_compiled_wait_opt(c); /* a failed optimized compile leaves the quick code: run it */
    pthread_mutex_lock(&c->lock);
    api_code *code = c->code;
    atomic_fetch_add(&code->refs, 1);
    pthread_mutex_unlock(&c->lock);
    return code;
}

/* --- the fallback: checked code for the groups the optimized code hands back -------------- */

/* Whether quick code of facts q may run groups for the optimized code of
 * facts o: what both share of a dispatch (the barrier path, work-group
 * memory and its layout for local arguments, barrier sites, bindings, the
 * sub-group size where the quick code has lanes) is the same.  (The stack
 * estimates may differ by the optimized code's proof flag.) */
/* Why a kernel has no fallback code when same_dispatch_facts fails. */
static const char facts_differ[] = "internal error: the quick tier's facts differ (a JIT bug)";

static bool same_dispatch_facts(const spvjit_kernel_facts *q, const spvjit_kernel_facts *o)
{
    return q->barrier_regions == o->barrier_regions && q->uses_barriers == o->uses_barriers &&
           q->nbarrier_sites == o->nbarrier_sites && q->wg_mem_size == o->wg_mem_size &&
           q->wg_mem_align == o->wg_mem_align && q->nparams == o->nparams && q->nslots == o->nslots &&
           (q->subgroup_size <= 1 || q->subgroup_size == o->subgroup_size);
}

/* Whether c's optimized code may hand groups back: only memory=robust's
 * proves its groups (jit/abi.h); the others need no fallback code. */
static bool hands_back(const api_compiled *c)
{
    return c->plan.entry && c->plan.o.memory == JIT_MEMORY_ROBUST;
}

/* The executor's spvjit_exec_kernel.fallback: c's quick code, compiled on
 * the first call (the others wait for it). */
static spvjit_wg_range_fn compiled_fallback(void *user, spv_diag *diag)
{
    api_compiled *c = user;
    api_code *fb = atomic_load_explicit(&c->fallback, memory_order_acquire);
    if (fb)
        return fb->exec.wg_range;
    pthread_mutex_lock(&c->fallback_lock);
    if (!(fb = atomic_load(&c->fallback)) && !c->fallback_error) {
        spv_diag d;
        d.msg[0] = 0;
        jit_kernel *jk = api_plan_compile(&c->plan, c->module, JIT_TIER_QUICK, NULL, &d);
        fb = jk ? code_new(jk, JIT_TIER_QUICK, false) : NULL;
        if (fb && !same_dispatch_facts(spvjit_kernel_facts_of(jk), c->opt_facts)) {
            api_code_release(fb);
            fb = NULL;
            snprintf(d.msg, sizeof d.msg, "%s", facts_differ);
        } else if (jk && !fb) {
            spvjit_kernel_free(jk);
            snprintf(d.msg, sizeof d.msg, "out of memory");
        }
        if (fb)
            atomic_store_explicit(&c->fallback, fb, memory_order_release);
        else
            c->fallback_error = strdup(d.msg[0] ? d.msg : "the compile failed");
    }
    if (!fb)
        spv_fail(diag, "the checked code for work-groups whose bounds could not be proven: %s",
                 c->fallback_error ? c->fallback_error : "out of memory");
    pthread_mutex_unlock(&c->fallback_lock);
    return fb ? fb->exec.wg_range : NULL;
}

void api_compiled_exec(api_compiled *c, const api_code *code, spvjit_exec_kernel *out)
{
    *out = code->exec;
    if (code->tier == JIT_TIER_OPT && hands_back(c)) {
        out->fallback = compiled_fallback;
        out->fallback_user = c;
    }
}

/* --- the optimized tier in the background -------------------------------------------- */

static void unlist(api_opt_job *j)
{
    pthread_mutex_lock(&jobs.lock);
    if (j->prev)
        j->prev->next = j->next;
    else
        jobs.list = j->next;
    if (j->next)
        j->next->prev = j->prev;
    pthread_cond_broadcast(&jobs.done);
    pthread_mutex_unlock(&jobs.lock);
}

/* Installs the result (jk, or NULL and why) and ends the job. */
static void finish(api_opt_job *j, jit_kernel *jk, const char *why)
{
    api_compiled *c = j->c;
    api_code *code = jk ? code_new(jk, JIT_TIER_OPT, false) : NULL;
    if (jk && !code) {
        spvjit_kernel_free(jk);
        why = "out of memory";
    }
    api_code *old = NULL;
    pthread_mutex_lock(&c->lock);
    if (code) {
        /* the quick code stays as the optimized code's fallback, where it may need one */
        c->opt_facts = spvjit_kernel_facts_of(jk);
        pthread_mutex_lock(&c->fallback_lock);
        bool same = same_dispatch_facts(c->facts, c->opt_facts);
        if (hands_back(c) && same)
            atomic_store_explicit(&c->fallback, c->code, memory_order_release);
        else if (hands_back(c))
            c->fallback_error = strdup(facts_differ);
        if (!atomic_load(&c->fallback))
            old = c->code;
        pthread_mutex_unlock(&c->fallback_lock);
        c->code = code;
        c->opt = API_OPT_READY;
        c->opt_ready_ms = util_now_ms() - c->t_start;
    } else {
        c->opt = API_OPT_FAILED;
        c->opt_error = strdup(why && *why ? why : "the optimized compile failed");
    }
    c->job = NULL;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    api_code_release(old); /* the quick code lives on in the dispatches still running it */
    unlist(j);
    api_compiled_release(c);
    free(j);
}

static atomic_bool held; /* api_tier_hold_for_tests */

void api_tier_hold_for_tests(bool hold)
{
    atomic_store(&held, hold);
}

static void run_job(spvjit_pool_task *t)
{
    api_opt_job *j = (api_opt_job *)t;
    spv_diag d;
    d.msg[0] = 0;
    while (atomic_load(&held) && !atomic_load(&j->cancel))
        usleep(1000);
    jit_kernel *jk = NULL;
    if (!atomic_load(&j->cancel))
        jk = api_plan_compile(&j->c->plan, j->c->module, JIT_TIER_OPT, &j->cancel, &d);
    else
        snprintf(d.msg, sizeof d.msg, "cancelled");
    const spvjit_kernel_facts *f = jk ? spvjit_kernel_facts_of(jk) : NULL, *q = j->c->facts;
    if (f &&
        (f->barrier_regions != q->barrier_regions || (q->subgroup_size > 1 && f->subgroup_size != q->subgroup_size))) {
        /* the facts are the tiers' contract: the same barrier path, the same
         * sub-group size where the quick code has lanes (it runs one work-item
         * at a time only where the kernel cannot observe its sub-groups,
         * jit.h); a JIT that broke it keeps the quick code */
        spvjit_kernel_free(jk);
        jk = NULL;
        snprintf(d.msg, sizeof d.msg,
                 "internal error: the optimized tier took another barrier path or sub-group size (a JIT bug)");
    }
    finish(j, jk, d.msg);
}

/* The process's exit: cancels every optimized compile, so that the pool's
 * exit handler, which runs next and lets no task start or run on into the
 * C++ destructors of LLVM's globals (threadpool.c), waits for one step of a
 * compile at most, not for the whole of it.  Registered at the first job,
 * after the first quick build on the caller's thread set up LLVM's lazily
 * made statics. */
static void cancel_all_at_exit(void)
{
    api_opt_jobs_cancel_all(NULL);
}

static void register_exit_handler(void)
{
    atexit(cancel_all_at_exit); /* on failure a compile may still run into exit() */
}

/* fork(): no compile of the library runs in the background across it.  A
 * child that inherited one half done would have neither its result nor the
 * locks it held (LLVM's among them: a child compiling after such a fork
 * hung); so fork() waits for the running tasks of the pool, and starts
 * none, before it takes the jobs' lock and the pool's, in the order the
 * code takes them.  The queued ones stay queued in both processes.  One
 * registration, when the library loads, so that the order is this one. */
static void before_fork(void)
{
    spvjit_pool_quiesce_for_fork();
    pthread_mutex_lock(&jobs.lock);
    spvjit_pool_lock_for_fork();
}

static void after_fork_in_parent(void)
{
    spvjit_pool_unlock_after_fork(false);
    pthread_mutex_unlock(&jobs.lock);
}

static void after_fork_in_child(void)
{
    spvjit_pool_unlock_after_fork(true);
    pthread_cond_init(&jobs.done, NULL); /* its waiters were the parent's */
    pthread_mutex_unlock(&jobs.lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

void api_compiled_start_opt(api_compiled *c, spvjit_context *ctx)
{
    api_opt_job *j = calloc(1, sizeof *j);
    if (!j) {
        c->opt = API_OPT_FAILED; /* not shared yet: no lock needed */
        c->opt_error = strdup("out of memory");
        return;
    }
    j->task.run = run_job;
    j->ctx = ctx;
    atomic_init(&j->cancel, false);
    api_compiled_retain(c);
    j->c = c;
    c->job = j;
    c->opt = API_OPT_PENDING;
    pthread_mutex_lock(&jobs.lock);
    j->next = jobs.list;
    if (jobs.list)
        jobs.list->prev = j;
    jobs.list = j;
    pthread_mutex_unlock(&jobs.lock);
    spvjit_pool_submit(&j->task, API_OPT_DELAY_MS);
    pthread_once(&jobs.exit_once, register_exit_handler); /* after the pool's: runs before it */
}

spvjit_status api_compiled_wait_opt(api_compiled *c)
{
    pthread_mutex_lock(&c->lock);
    if (c->opt == API_OPT_PENDING && spvjit_pool_claim(&c->job->task)) {
        /* no worker has begun it: compile here rather than wait for one */
        api_opt_job *j = c->job;
        pthread_mutex_unlock(&c->lock);
        run_job(&j->task);
        pthread_mutex_lock(&c->lock);
    }
    while (c->opt == API_OPT_PENDING)
        pthread_cond_wait(&c->changed, &c->lock);
    spvjit_status st = SPVJIT_OK;
    if (c->opt == API_OPT_FAILED)
        st = api_fail(SPVJIT_ERROR_UNSUPPORTED, "the optimized tier: %s", c->opt_error);
    pthread_mutex_unlock(&c->lock);
    return st;
}

/* Whether j is one of ctx's (NULL: any context's). */
static bool job_of(const api_opt_job *j, const spvjit_context *ctx)
{
    return !ctx || j->ctx == ctx;
}

void api_opt_jobs_cancel_all(spvjit_context *ctx)
{
    pthread_mutex_lock(&jobs.lock);
    for (;;) {
        api_opt_job *mine = NULL, *left = NULL;
        for (api_opt_job *j = jobs.list; j && !mine; j = j->next)
            if (job_of(j, ctx)) {
                atomic_store(&j->cancel, true); /* a job started meanwhile too */
                left = j;
                if (spvjit_pool_claim(&j->task))
                    mine = j;
            }
        if (!left)
            break;
        if (mine) {
            pthread_mutex_unlock(&jobs.lock);
            run_job(&mine->task); /* cancelled: ends at once */
            pthread_mutex_lock(&jobs.lock);
        } else {
            pthread_cond_wait(&jobs.done, &jobs.lock); /* a running one stops at its next step */
        }
    }
    pthread_mutex_unlock(&jobs.lock);
}
