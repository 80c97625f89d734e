/* lib/threadpool.h — persistent worker threads that share out index ranges.
 *
 * One process-wide pool, created lazily on the first parallel run and kept:
 * its workers sleep on a condition variable between runs.  A run splits
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

/* Runs indices [begin, end); returns false to stop the run (chunks not yet
 * handed out are skipped; chunks already running elsewhere finish). */
typedef bool (*spvjit_pool_chunk_fn)(void *user, uint64_t begin, uint64_t end);

/* Calls fn over [0, count) using up to `nthreads` threads including the
 * caller (0: the default count).  Returns when every chunk that was handed
 * out has finished: true if all ran, false if a chunk stopped the run. */
bool spvjit_pool_run(uint64_t count, uint32_t nthreads, spvjit_pool_chunk_fn fn, void *user);

/* The default thread count: the CPUs this process may run on (at most
 * SPVJIT_POOL_MAX_THREADS). */
uint32_t spvjit_pool_default_threads(void);

/* Stops and joins all workers (for orderly teardown, e.g. before unloading
 * the library).  Must not overlap a run; a later run starts new workers. */
void spvjit_pool_shutdown(void);

#endif
