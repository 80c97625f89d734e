/* lib/threadpool.c — the process-wide worker pool (see threadpool.h). */
#include "lib/threadpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/timer.h"

typedef struct pool_job {
    spvjit_pool_chunk_fn fn;
    void *user;
    uint64_t count;
    uint64_t share;        /* a chunk is what is left / share (guided), at least 1 */
    _Atomic uint64_t next; /* first index not yet handed out */
    atomic_bool stopped;
    /* Guarded by pool.lock: */
    uint32_t max_helpers; /* workers that may join (caller not counted) */
    uint32_t helpers;     /* workers inside the job now */
    bool listed;          /* on pool.jobs: workers may still join */
    pthread_cond_t done;  /* signalled when helpers drops to 0 after unlisting */
    struct pool_job *prev, *next_job;
} pool_job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;                  /* workers sleep here while no job wants them */
    pool_job *jobs;                       /* runs that may take more helpers */
    spvjit_pool_task *tasks, *tasks_tail; /* queued background tasks, oldest first */
    uint32_t tasks_queued, tasks_running;
    pthread_cond_t tasks_idle; /* tasks_running dropped to 0 */
    pthread_t *threads;
    uint32_t nthreads; /* workers started */
    uint32_t cap;
    bool shutting_down;
    bool exiting; /* the process exits: no task starts any more */
    bool forking; /* fork() waits for the running tasks: none starts */
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER,
           .work = PTHREAD_COND_INITIALIZER,
           .tasks_idle = PTHREAD_COND_INITIALIZER };

/* --- thread count ------------------------------------------------------- */

static uint32_t cpu_count_now(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (uint32_t)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

/* Asked once: the affinity query is a system call, too slow per dispatch. */
static uint32_t cpus;
static pthread_once_t cpus_once = PTHREAD_ONCE_INIT;
static void count_cpus(void)
{
    cpus = cpu_count_now();
}

static uint32_t cpu_count(void)
{
    pthread_once(&cpus_once, count_cpus);
    return cpus;
}

uint32_t spvjit_pool_default_threads(void)
{
    uint32_t n = cpu_count();
    return n > SPVJIT_POOL_MAX_THREADS ? SPVJIT_POOL_MAX_THREADS : n;
}

/* --- running chunks ------------------------------------------------------ */

/* Guided chunks: each takes a share of what is left, so the first are large
 * (few calls, each running many indices at once) and the last are small (the
 * threads finish together even when indices cost differently or a thread is
 * descheduled). */
static void run_chunks(pool_job *job)
{
    while (!atomic_load_explicit(&job->stopped, memory_order_relaxed)) {
        uint64_t begin = atomic_load_explicit(&job->next, memory_order_relaxed), n;
        do {
            if (begin >= job->count)
                return;
            n = (job->count - begin) / job->share;
            n = n ? n : 1;
        } while (!atomic_compare_exchange_weak_explicit(&job->next, &begin, begin + n, memory_order_relaxed,
                                                        memory_order_relaxed));
        if (!job->fn(job->user, begin, begin + n)) {
            atomic_store(&job->stopped, true);
            return;
        }
    }
}

static bool job_wants_helper(const pool_job *job)
{
    return job->helpers < job->max_helpers && !atomic_load_explicit(&job->stopped, memory_order_relaxed) &&
           atomic_load_explicit(&job->next, memory_order_relaxed) < job->count;
}

/* The listed job with work left and the fewest helpers: concurrent runs get
 * workers in turn instead of the first one taking them all. */
static pool_job *pick_job(void)
{
    pool_job *best = NULL;
    for (pool_job *j = pool.jobs; j; j = j->next_job)
        if (job_wants_helper(j) && (!best || j->helpers < best->helpers))
            best = j;
    return best;
}

/* Takes t, queued, off the queue (lock held). */
static void unqueue(spvjit_pool_task *t)
{
    spvjit_pool_task **p = &pool.tasks, *prev = NULL;
    while (*p != t) {
        prev = *p;
        p = &(*p)->next;
    }
    *p = t->next;
    if (pool.tasks_tail == t)
        pool.tasks_tail = prev;
    t->next = NULL;
    t->queued = false;
    pool.tasks_queued--;
}

/* The oldest queued task whose time has come (any, when shutting down), taken
 * off the queue (lock held); else NULL, and *next the earliest time one comes
 * (0: none is queued). */
static spvjit_pool_task *pop_task(uint64_t *next)
{
    uint64_t now = util_now_ns();
    *next = 0;
    if (pool.exiting || pool.forking)
        return NULL; /* its owner may claim it still */
    for (spvjit_pool_task *t = pool.tasks; t; t = t->next) {
        if (t->not_before <= now || pool.shutting_down) {
            unqueue(t);
            return t;
        }
        if (!*next || t->not_before < *next)
            *next = t->not_before;
    }
    return NULL;
}

/* Sleeps until woken, or until the monotonic time `until` (0: no limit). */
static void wait_for_work(uint64_t until)
{
    if (!until) {
        pthread_cond_wait(&pool.work, &pool.lock);
        return;
    }
    uint64_t left = until - util_now_ns(); /* the condition variable's clock is the real-time one */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + left;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&pool.work, &pool.lock, &ts);
}

static void *worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        pool_job *job = pick_job();
        if (!job) {
            uint64_t next;
            spvjit_pool_task *t = pop_task(&next);
            if (t) {
                pool.tasks_running++;
                pthread_mutex_unlock(&pool.lock);
                t->run(t); /* may free t */
                pthread_mutex_lock(&pool.lock);
                if (--pool.tasks_running == 0)
                    pthread_cond_broadcast(&pool.tasks_idle);
                continue;
            }
            if (pool.shutting_down)
                break;
            wait_for_work(next);
            continue;
        }
        job->helpers++;
        pthread_mutex_unlock(&pool.lock);
        run_chunks(job);
        pthread_mutex_lock(&pool.lock);
        if (--job->helpers == 0 && !job->listed)
            pthread_cond_signal(&job->done);
    }
    pthread_mutex_unlock(&pool.lock);
    return NULL;
}

/* --- fork (the handlers: api_tier.c) ----------------------------------------- */

/* Sets *flag (pool.exiting or pool.forking: pop_task starts no task) and
 * waits for the running tasks to end. */
static void stop_tasks(bool *flag)
{
    pthread_mutex_lock(&pool.lock);
    *flag = true;
    while (pool.tasks_running)
        pthread_cond_wait(&pool.tasks_idle, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

void spvjit_pool_quiesce_for_fork(void)
{
    stop_tasks(&pool.forking);
}

void spvjit_pool_lock_for_fork(void)
{
    pthread_mutex_lock(&pool.lock);
}

void spvjit_pool_unlock_after_fork(bool child)
{
    if (child) { /* its workers, and the runs they were in, were the parent's */
        free(pool.threads);
        pool.threads = NULL;
        pool.nthreads = pool.cap = 0;
        pool.jobs = NULL;
        pthread_cond_init(&pool.work, NULL);
        pthread_cond_init(&pool.tasks_idle, NULL);
    }
    pool.forking = false;
    pthread_cond_broadcast(&pool.work); /* the queued tasks may start again */
    pthread_mutex_unlock(&pool.lock);
}

/* Starts workers until `want` exist (lock held).  A failed pthread_create
 * just leaves fewer helpers: the caller does the remaining work itself. */
static void grow_workers(uint32_t want)
{
    if (want <= pool.nthreads)
        return;
    if (want > pool.cap) {
        pthread_t *t = realloc(pool.threads, sizeof *t * want);
        if (!t)
            return;
        pool.threads = t;
        pool.cap = want;
    }
    pthread_attr_t attr;
    bool have_attr = pthread_attr_init(&attr) == 0;
    /* Barrier-free kernels run on the worker's own stack: give it room. */
    if (have_attr)
        pthread_attr_setstacksize(&attr, (size_t)8 << 20);
    while (pool.nthreads < want) {
        if (pthread_create(&pool.threads[pool.nthreads], have_attr ? &attr : NULL, worker_main, NULL) != 0)
            break;
        pthread_setname_np(pool.threads[pool.nthreads], SPVJIT_POOL_WORKER_NAME); /* named before it is counted */
        pool.nthreads++;
    }
    if (have_attr)
        pthread_attr_destroy(&attr);
}

/* With helpers, each chunk takes 1/(4 * threads) of what is left: about
 * 4 * threads * ln(count / (4 * threads)) chunks in all. */
enum { GUIDED_SHARE = 4 };

/* A run's thread count, caller included: nthreads, 0 meaning the default. */
static uint32_t threads_for(uint32_t nthreads)
{
    if (nthreads == 0)
        nthreads = spvjit_pool_default_threads();
    return nthreads > SPVJIT_POOL_MAX_THREADS ? SPVJIT_POOL_MAX_THREADS : nthreads;
}

void spvjit_pool_start_workers(uint32_t nthreads)
{
    nthreads = threads_for(nthreads);
    pthread_mutex_lock(&pool.lock);
    pool.shutting_down = false;
    grow_workers(nthreads - 1);
    pthread_mutex_unlock(&pool.lock);
}

bool spvjit_pool_run(uint64_t count, uint32_t nthreads, spvjit_pool_chunk_fn fn, void *user)
{
    if (count == 0)
        return true;
    nthreads = threads_for(nthreads);

    uint64_t helpers = count - 1 < nthreads - 1 ? count - 1 : nthreads - 1;
    pool_job job = { .fn = fn, .user = user, .count = count, .share = helpers ? (uint64_t)nthreads * GUIDED_SHARE : 1 };
    atomic_init(&job.next, 0);
    atomic_init(&job.stopped, false);

    if (helpers == 0) {
        /* One index or one thread: one chunk, no pool traffic at all. */
        run_chunks(&job);
        return !atomic_load(&job.stopped);
    }

    pthread_cond_init(&job.done, NULL);
    job.max_helpers = (uint32_t)helpers;
    pthread_mutex_lock(&pool.lock);
    pool.shutting_down = false;
    grow_workers((uint32_t)helpers > pool.nthreads ? (uint32_t)helpers : pool.nthreads);
    job.listed = true;
    job.next_job = pool.jobs;
    if (pool.jobs)
        pool.jobs->prev = &job;
    pool.jobs = &job;
    if (helpers >= pool.nthreads)
        pthread_cond_broadcast(&pool.work);
    else
        for (uint64_t i = 0; i < helpers; i++)
            pthread_cond_signal(&pool.work);
    pthread_mutex_unlock(&pool.lock);

    run_chunks(&job);

    /* Unlist so no new helper joins, then wait for those inside. */
    pthread_mutex_lock(&pool.lock);
    if (job.prev)
        job.prev->next_job = job.next_job;
    else
        pool.jobs = job.next_job;
    if (job.next_job)
        job.next_job->prev = job.prev;
    job.listed = false;
    while (job.helpers > 0)
        pthread_cond_wait(&job.done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    pthread_cond_destroy(&job.done);
    return !atomic_load(&job.stopped);
}

void spvjit_pool_shutdown(void)
{
    pthread_mutex_lock(&pool.lock);
    pool.shutting_down = true;
    pthread_cond_broadcast(&pool.work);
    uint32_t n = pool.nthreads;
    pthread_t *threads = pool.threads;
    pool.threads = NULL;
    pool.nthreads = 0;
    pool.cap = 0;
    pthread_mutex_unlock(&pool.lock);
    for (uint32_t i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    free(threads);
}

/* --- background tasks ------------------------------------------------------ */

/* The process's exit: the C++ destructors of LLVM's globals run after the
 * exit handlers registered later than theirs, and an optimized compile on a
 * worker then crashed the process.  No task starts any more, and exit()
 * waits for those running (the optimized compiles' owner, whose handler runs
 * first, cancels them: api_tier.c).  Registered at the first task, after
 * the library and LLVM were loaded. */
static void wait_tasks_at_exit(void)
{
    stop_tasks(&pool.exiting);
}

static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void register_exit_handler(void)
{
    atexit(wait_tasks_at_exit); /* on failure a task may still run into exit() */
}

void spvjit_pool_submit(spvjit_pool_task *t, uint32_t delay_ms)
{
    pthread_once(&exit_once, register_exit_handler);
    pthread_mutex_lock(&pool.lock);
    pool.shutting_down = false;
    t->next = NULL;
    t->queued = true;
    t->not_before = delay_ms ? util_now_ns() + (uint64_t)delay_ms * 1000000u : 0;
    if (pool.tasks_tail)
        pool.tasks_tail->next = t;
    else
        pool.tasks = t;
    pool.tasks_tail = t;
    pool.tasks_queued++;
    /* a worker per task at work, up to the CPUs: tasks submitted together run in parallel */
    uint32_t want = pool.tasks_queued + pool.tasks_running, cpus = spvjit_pool_default_threads();
    grow_workers(want < cpus ? want : cpus);
    pthread_cond_broadcast(&pool.work); /* the sleepers that a signal might miss are few */
    pthread_mutex_unlock(&pool.lock);
}

bool spvjit_pool_claim(spvjit_pool_task *t)
{
    pthread_mutex_lock(&pool.lock);
    bool claimed = t->queued;
    if (claimed)
        unqueue(t);
    pthread_mutex_unlock(&pool.lock);
    return claimed;
}
