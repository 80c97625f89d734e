/* lib/executor.h — runs one dispatch of a compiled kernel over all cores.
 *
 * Internal API between lib/'s public entry points and the JIT's output
 * (jit/abi.h).  A dispatch:
 *   - validates the range and computes the work-group grid;
 *   - hands ranges of consecutive work-groups (linear index, x fastest) to
 *     the thread pool (lib/threadpool.h), the calling thread included;
 *   - fills one spvjit_wg_ctx per range (args, arg_sizes, push constants,
 *     spec values and printf stream passed through untouched);
 *   - gives each thread its own work-group memory block (aligned, reused
 *     across groups and dispatches);
 *   - wg_range kernels: one call per range, no fibers; the compiled code runs
 *     the range's groups itself, initializing each group's work-group memory.
 *     That covers barrier-free kernels and barrier kernels the JIT compiled
 *     into region loops (jit/regions.h); the latter report divergence through
 *     ctx->report_divergence;
 *   - item_fn kernels (the fiber fallback for barriers): per group,
 *     wg_memory_init if any, then each work-item on its own fiber, switched
 *     at ctx->barrier (lib/barrier.h).
 *   Barrier divergence on either path stops the dispatch (groups not yet
 *   started are skipped: ctx->stop) and is reported in the diag, naming the
 *   work-group, the barrier sites and the work-items at each.
 *
 * Work-group memory is not cleared between groups (Vulkan and OpenCL leave
 * it undefined); zero-initialization, where asked for, is the init hook's job.
 */
#ifndef SPVJIT_LIB_EXECUTOR_H
#define SPVJIT_LIB_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

#include "jit/abi.h"
#include "spirv/diag.h"

/* What the JIT produced for one entry point at one local size. */
typedef struct spvjit_exec_kernel {
    spvjit_wg_range_fn wg_range; /* a range of whole groups per call; or NULL */
    spvjit_item_fn item_fn;      /* with barriers on fibers: one work-item per call;
                                    or NULL.  Exactly one of the two is set. */
    uint32_t local_size[3];      /* the fixed (enqueued) local size, each >= 1 */
    uint64_t wg_memory_size;     /* bytes of work-group memory per group (0: none) */
    uint64_t wg_memory_align;    /* its alignment, a power of two (0: 16) */
    spvjit_wg_fn wg_memory_init; /* item_fn kernels: called with the group's ctx before
                                    its work-items run (initializers, zero-init); or NULL */
    uint64_t stack_size;         /* per-work-item fiber stack wanted (0: default);
                                    raised to a safe minimum, larger under ASan */
    uint32_t nbarrier_sites;     /* barrier sites numbered 0..n-1 (0: not checked) */
} spvjit_exec_kernel;

typedef enum spvjit_exec_range_kind {
    SPVJIT_RANGE_GROUPS,  /* Vulkan: vkCmdDispatch / vkCmdDispatchBase */
    SPVJIT_RANGE_NDRANGE, /* OpenCL: clEnqueueNDRangeKernel */
} spvjit_exec_range_kind;

typedef struct spvjit_exec_range {
    spvjit_exec_range_kind kind;
    /* SPVJIT_RANGE_GROUPS: group_count[d] groups in dimension d (a 0 makes an
     * empty dispatch); WorkgroupId = group_id + base_group. */
    uint32_t group_count[3];
    uint32_t base_group[3];
    /* SPVJIT_RANGE_NDRANGE: dimensions >= work_dim are ignored (size 1,
     * offset 0).  local_size all zero: the kernel's local size; otherwise it
     * must equal the kernel's.  A global size not a multiple of the local size
     * gives a smaller last group in that dimension (ctx->local_size);
     * a global size of 0 makes an empty dispatch. */
    uint32_t work_dim;
    uint64_t global_size[3];
    uint64_t local_size[3];
    uint64_t global_offset[3];
} spvjit_exec_range;

/* Per-dispatch data, passed through to every ctx (see jit/abi.h). */
typedef struct spvjit_exec_data {
    void *const *args;
    const uint64_t *arg_sizes;
    const void *push_constants;
    const void *spec_values;
    void *printf_stream;
    uint32_t nthreads; /* threads to use, caller included (0: one per CPU) */
} spvjit_exec_data;

/* Runs the dispatch and returns when it is complete.  Returns 0, or -1 with
 * diag->msg saying what is wrong (invalid range or kernel description, no
 * memory for stacks or work-group memory, barrier divergence, an
 * SPVJIT_THREADS value that is not a thread count).  Safe to call from
 * several threads at once; `data` may be NULL. */
int spvjit_exec_dispatch(const spvjit_exec_kernel *kernel, const spvjit_exec_range *range, const spvjit_exec_data *data,
                         spv_diag *diag);

/* A local size for an NDRange enqueued without one (OpenCL's local size
 * NULL), to compile the kernel with: divides the global size in every
 * dimension, at most 256 work-items, widest in dimension 0. */
void spvjit_exec_pick_local_size(uint32_t work_dim, const uint64_t global_size[3], uint32_t local_size[3]);

/* Frees the calling thread's stacks and work-group memory now (they are
 * otherwise freed when the thread exits). */
void spvjit_exec_release_thread(void);

#endif
