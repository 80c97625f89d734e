/* lib/threadpool.h — persistent worker threads that share out index ranges.
 *
 * One process-wide pool, its workers started by the first context or run
 * that needs them (spvjit_pool_start_workers) and kept: they sleep on a
 * condition variable between runs, and a forked child starts its own.  A run splits
 * [0, count) into chunks handed out through an atomic counter (guided: each
 * chunk a share of what is left, so they shrink towards the end; never a
 * static split), and the calling thread takes chunks too.  Several threads may run at once: each run is a job on
 * the pool's list, idle workers join the job with the fewest helpers, and
 * every caller works on its own job, so a run always progresses even when
 * all workers are busy elsewhere.
 *
 * Default thread count (caller included): the number of CPUs this process
 * may run on (contexts resolve $SPVJIT_THREADS themselves: lib/api_options.c).
 */
#ifndef SPVJIT_LIB_THREADPOOL_H
#define SPVJIT_LIB_THREADPOOL_H

#include <stdbool.h>
#include <stdint.h>

/* Most threads one run may use (caller included). */
#define SPVJIT_POOL_MAX_THREADS 1024u

/* The workers' thread name (what ps, top and debuggers show). */
#define SPVJIT_POOL_WORKER_NAME "spvjit-worker"

/* Runs indices [begin, end); returns false to stop the run (chunks not yet
 * handed out are skipped; chunks already running elsewhere finish). */
typedef bool (*spvjit_pool_chunk_fn)(void *user, uint64_t begin, uint64_t end);

/* Calls fn over [0, count) using up to `nthreads` threads including the
 * caller (0: the default count).  Returns when every chunk that was handed
 * out has finished: true if all ran, false if a chunk stopped the run. */
bool spvjit_pool_run(uint64_t count, uint32_t nthreads, spvjit_pool_chunk_fn fn, void *user);

/* Starts the workers a run on `nthreads` threads (0: the default count)
 * would use, where they are not running yet.  A worker the run itself starts
 * joins it late: a process's first dispatch took up to twice as long as the
 * next ones (mm at 100x100 on 2 threads, quick code: medians 2.9 -> 1.7 ms
 * with the workers started when the context is made). */
void spvjit_pool_start_workers(uint32_t nthreads);

/* The default thread count: the CPUs this process may run on (at most
 * SPVJIT_POOL_MAX_THREADS). */
uint32_t spvjit_pool_default_threads(void);

/* Stops and joins all workers (for orderly teardown, e.g. before unloading
 * the library), after they ran the tasks still queued.  Must not overlap a
 * run; a later run starts new workers. */
void spvjit_pool_shutdown(void);

/* --- background tasks -----------------------------------------------------------
 * Work that is not a range of indices: a compile.  A submitted task runs once,
 * on a pool worker, once its delay has passed, unless its owner claims it
 * back first (then the owner runs it inline or drops it: nothing else touches
 * it).  Idle workers take the ranges of running dispatches before tasks; the
 * pool keeps up to one worker per CPU busy with tasks, so builds submitted
 * together run in parallel.  The task's memory is its owner's (embed the
 * struct): it must stay valid until run() starts or the claim succeeds. */
typedef struct spvjit_pool_task {
    void (*run)(struct spvjit_pool_task *t); /* set by the owner */
    struct spvjit_pool_task *next;           /* the queue's (private) */
    uint64_t not_before;                     /* private: util_now_ns() it may start at */
    bool queued;                             /* private */
} spvjit_pool_task;

/* Queues t to run after delay_ms milliseconds (0: at once). */
void spvjit_pool_submit(spvjit_pool_task *t, uint32_t delay_ms);
/* Takes a task that no worker has started off the queue: true if it was
 * still queued (it is the caller's now), false if it runs or ran. */
bool spvjit_pool_claim(spvjit_pool_task *t);
/* fork(), in the order of lib/api_tier.c's handlers: before it, no task
 * starts any more and the running ones end (so the child inherits none
 * half done, nor the locks it held inside LLVM); then the pool's lock is
 * taken, and released after it in both processes, where the tasks still
 * queued may start again.  The child has none of the workers, nor the runs
 * they were in: it starts its own workers when it needs them. */
void spvjit_pool_quiesce_for_fork(void);
void spvjit_pool_lock_for_fork(void);
void spvjit_pool_unlock_after_fork(bool child);

#endif
