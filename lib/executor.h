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
 *
 * A dispatch ends early when its control's stop flag is set: by a time limit
 * (lib/watchdog.h), by anyone cancelling it, by a failure (divergence, a
 * memory=check report, lib/mem_check.h).  Compiled code polls the flag at its
 * loop back edges; groups not yet started are skipped.
 */
#ifndef SPVJIT_LIB_EXECUTOR_H
#define SPVJIT_LIB_EXECUTOR_H

#include <stdatomic.h>
#include <stdbool.h>
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
    bool memory_check;           /* compiled with memory=check: keep the race detector's shadow */
    /* The code for the work-groups wg_range hands back (jit/abi.h): the same
     * kernel with every bounds check in place (the same work-group memory,
     * stack and barrier sites), given on first need by fallback(fallback_user),
     * or NULL with diag filled when it cannot be had.  NULL: none is handed back. */
    spvjit_wg_range_fn (*fallback)(void *user, spv_diag *diag);
    void *fallback_user;
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

/* Why a dispatch stopped early (spvjit_exec_control.stop). */
enum { SPVJIT_STOP_NONE = 0, SPVJIT_STOP_CANCELLED, SPVJIT_STOP_TIMEOUT, SPVJIT_STOP_FAILED };

/* memory=check's first report, as the compiled code and the race detector
 * gave it (lib/mem_check.c); the API formats it with the module. */
typedef enum spvjit_fault_kind { SPVJIT_FAULT_NONE = 0, SPVJIT_FAULT_OOB, SPVJIT_FAULT_RACE } spvjit_fault_kind;
typedef struct spvjit_exec_fault {
    spvjit_fault_kind kind;
    uint32_t group[3];              /* WorkgroupId (base group included) */
    uint32_t item[3];               /* LocalInvocationId of the access */
    const spvjit_check_site *site;  /* the access */
    uint64_t offset, bytes, bound;  /* OOB: in the range; race: offset and bytes in work-group memory */
    const spvjit_check_site *other; /* race: the earlier access it conflicts with */
    uint32_t other_item[3];
    uint32_t epoch; /* race: barriers the group had completed */
} spvjit_exec_fault;

/* A dispatch's stop flag and what it reports (the caller owns it; a
 * dispatch without one uses its own). */
typedef struct spvjit_exec_control {
    _Atomic uint32_t stop; /* SPVJIT_STOP_*; set it from any thread to cancel */
    uint64_t timeout_ns;   /* 0: none; else the dispatch stops this long after it starts */
    /* --- filled by the dispatch --- */
    uint64_t groups_total;
    _Atomic uint64_t groups_done;     /* work-groups that ran to their end (of a range the stop
                                     cut short, none is counted) */
    _Atomic uint64_t groups_fallback; /* of them, those run on spvjit_exec_kernel.fallback's code */
    double elapsed_ms;
    atomic_flag fault_claimed;
    spvjit_exec_fault fault;
} spvjit_exec_control;

/* A control ready for a dispatch (stop clear, no timeout, nothing reported). */
void spvjit_exec_control_init(spvjit_exec_control *c);

/* Per-dispatch data, passed through to every ctx (see jit/abi.h). */
typedef struct spvjit_exec_data {
    void *const *args;
    const uint64_t *arg_sizes;
    const void *push_constants;
    const void *spec_values;
    void *printf_stream;
    uint32_t nthreads;            /* threads to use, caller included (0: one per CPU) */
    spvjit_exec_control *control; /* NULL: one of the dispatch's own */
} spvjit_exec_data;

/* Runs the dispatch and returns when it is complete.  Returns 0, or -1 with
 * diag->msg saying what is wrong (invalid range or kernel description, no
 * memory for stacks or work-group memory, barrier divergence, an
 * SPVJIT_THREADS value that is not a thread count) or, for a dispatch that
 * was stopped (timed out, cancelled, a memory=check report), with the
 * control's stop and fault saying why.  Safe to call from several threads at
 * once; `data` may be NULL. */
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
