/* jit/abi.h — the contract between JIT-compiled code and the executor (lib/).
 *
 * The JIT turns one entry point into native functions with these fixed C
 * signatures; lib/ calls them.  Neither side knows the other's internals:
 * this header is all they share, so keep it plain C and stable.
 *
 * Work-groups are numbered linearly, x fastest: group (x, y, z) of the
 * dispatch is x + num_groups[0] * (y + num_groups[1] * z).
 *
 * Barrier-free kernels: `wg_range_fn` runs a range of consecutive work-groups
 *   per call and loops over their work-items itself: it computes each group's
 *   ids (base_group included) and local size (the last group of an OpenCL
 *   NDRange may be smaller) from the dispatch fields of ctx, loads the
 *   environment once per call, and initializes work-group memory at the start
 *   of every group (initializers, zero-initialized Workgroup variables).
 * Kernels with barriers, local size known at compile time (the usual case):
 *   the barriers are compiled away (jit/regions.h) and they get a `wg_range_fn`
 *   too, which reports barrier divergence through ctx->report_divergence.
 * Other kernels with barriers: `item_fn` is called once per work-item, each on
 *   its own fiber, with ctx->group_id and ctx->local_size set by the executor
 *   for that group (and the group's work-group memory initialized by calling
 *   `wg_init` before its first work-item); at every OpControlBarrier the code
 *   calls ctx->barrier(ctx, site), which returns once every work-item of the
 *   group reached that same site.
 * memory=robust kernels of the optimized tier may hand a work-group back to
 *   the executor (see spvjit_wg_range_fn), which runs it with the quick
 *   tier's code of the same kernel: the same facts, every check in place.
 * memory=check kernels: the executor calls wg_range_fn one work-group at a
 *   time, with ctx->group_id, ctx->local_size and ctx->check set for it (the
 *   reports and the race detector read them).
 * Every loop of the compiled code polls *ctx->stop on its back edge and
 *   returns as soon as it is non-zero (cancelled, timed out, failed): the
 *   function called may then return early, with its work-items unfinished.
 */
#ifndef SPVJIT_JIT_ABI_H
#define SPVJIT_JIT_ABI_H

#include <stdint.h>

typedef struct spvjit_wg_ctx spvjit_wg_ctx;

/* Called by JIT code at barrier `site` (0-based, numbered by the JIT; see
 * spvjit_kernel_facts.nbarrier_sites).  Returns when the whole work-group has
 * arrived there; reports divergence (other sites, finished work-items) itself. */
typedef void (*spvjit_barrier_fn)(const spvjit_wg_ctx *ctx, uint32_t site);

/* Called by a barrier kernel's wg_range_fn when the work-items of work-group
 * `group` (linear index, see above) did not all stop at the same barrier (or
 * all return); wg_range_fn returns right after, running no further group of
 * its range, and the executor must run no further group of the dispatch.
 * resume[i] says where work-item i stopped (i = lx + X*(ly + Y*lz), X, Y =
 * ctx->enqueued_local_size; only the items of the group's local size are
 * meaningful): 0 = it returned, r >= 1 = at a barrier, of site resume_site[r].
 * `rounds`: barriers the whole group completed. */
typedef void (*spvjit_divergence_fn)(const spvjit_wg_ctx *ctx, uint64_t group, const uint32_t *resume,
                                     const uint32_t *resume_site, uint64_t rounds);

/* memory=check: what the compiled code knows statically about one access
 * site (a constant record in the code; the executor reads it when it reports). */
typedef enum spvjit_access_kind {
    SPVJIT_ACCESS_LOAD = 1,
    SPVJIT_ACCESS_STORE,
    SPVJIT_ACCESS_ATOMIC,
    SPVJIT_ACCESS_COPY_FROM, /* OpCopyMemory* source */
    SPVJIT_ACCESS_COPY_TO,   /* ... and destination */
    SPVJIT_ACCESS_ATOMIC_LOAD,
} spvjit_access_kind;

/* What the range an access is checked against is (spvjit_check_site.bound). */
typedef enum spvjit_bound_kind {
    SPVJIT_BOUND_BINDING = 1, /* Shader resource slot `index` (a descriptor array: its first slot) */
    SPVJIT_BOUND_PUSH,        /* the push-constant block */
    SPVJIT_BOUND_ARG,         /* Kernel parameter `index` */
    SPVJIT_BOUND_VARIABLE,    /* variable `index` (its SPIR-V id): Workgroup, Private, Function, program scope */
    SPVJIT_BOUND_DYNAMIC,     /* chosen at run time (a phi, a select, a pointer from memory) */
    SPVJIT_BOUND_NONE,        /* a null or undefined pointer */
    SPVJIT_BOUND_PARAM,       /* the range the caller passed with pointer parameter `index` (its SPIR-V id) */
} spvjit_bound_kind;

typedef struct spvjit_check_site {
    uint32_t inst;   /* index of the instruction in the compiled module's instruction list */
    uint32_t access; /* spvjit_access_kind */
    uint32_t bound;  /* spvjit_bound_kind */
    uint32_t index;  /* see spvjit_bound_kind */
} spvjit_check_site;

/* memory=check: an access of `bytes` bytes at byte `offset` of a range of
 * `bound` bytes did not fit; work-item (lx, ly, lz), after `epoch` barriers.
 * The code carries on as in memory=robust (the load reads zero, the store is
 * dropped); the executor keeps the group's first report in work-item order
 * (the same on the scalar path and on SIMD lanes, which run the items of a
 * sub-group interleaved) and stops the dispatch after the group. */
typedef void (*spvjit_oob_fn)(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, uint64_t offset, uint64_t bytes,
                              uint64_t bound, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);
/* memory=check: work-item (lx, ly, lz), after `epoch` barriers, touches
 * `bytes` bytes of work-group memory at addr, byte `offset` of its range
 * (for the race detector; addresses outside work-group memory are ignored). */
typedef void (*spvjit_wg_access_fn)(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, const void *addr,
                                    uint64_t bytes, uint64_t offset, uint32_t epoch, uint32_t lx, uint32_t ly,
                                    uint32_t lz);

/* Work-group memory as every caller provides it: wg_memory aligned to at
 * least SPVJIT_WG_MEMORY_ALIGN (and the kernel's own alignment), with
 * SPVJIT_WG_MEMORY_PAD bytes of the same allocation before and after the
 * block.  The vector code reads and rewrites (with their own contents) whole
 * vectors around a work-group memory access whose lanes are only partly
 * active: a work-group runs on one thread, so no one else writes there
 * (jit/simd_memory.c). */
#define SPVJIT_WG_MEMORY_ALIGN 64
#define SPVJIT_WG_MEMORY_PAD 128
/* A Workgroup pointer argument's block starts at a multiple of this many
 * bytes of work-group memory: every OpenCL type's alignment (double16) and a
 * cache line.  The lowering relies on it (jit/workgroup.c). */
#define SPVJIT_LOCAL_ARG_ALIGN 128

struct spvjit_wg_ctx {
    /* --- the dispatch, the same for every work-group ----------------------- */
    uint32_t num_groups[3];          /* NumWorkgroups / get_num_groups */
    uint32_t enqueued_local_size[3]; /* WorkgroupSize / get_enqueued_local_size */
    uint64_t global_size[3];         /* get_global_size (Vulkan: num_groups * local size) */
    uint64_t global_offset[3];       /* get_global_offset (Vulkan: 0) */
    uint32_t base_group[3];          /* vkCmdDispatchBase: added to WorkgroupId */
    uint32_t work_dim;               /* get_work_dim (Vulkan: 3) */

    /* --- the fiber path only (item_fn, wg_init): the group being run -------------
     * wg_range_fn computes both from its group's index and ignores these. */
    uint32_t group_id[3];   /* without base_group */
    uint32_t local_size[3]; /* this group's size: smaller than the enqueued size for
                                        the last group of an OpenCL NDRange not divisible by it */

    /* --- data ---------------------------------------------------------------
     * args[i]:  Kernel flavour: a pointer to the value of kernel parameter i
     *           (a global pointer argument: points to the pointer; a by-value
     *           scalar/vector/struct: points to its bytes; a Workgroup (local)
     *           pointer argument: points to a uint64_t byte offset inside
     *           wg_memory where its block starts, a multiple of
     *           SPVJIT_LOCAL_ARG_ALIGN).
     *           Shader flavour: the base address of resource slot i (slots are
     *           numbered by the JIT, see spvjit_kernel_facts).
     * arg_sizes[i]: the byte size of what args[i] designates for buffers (for
     *           OpArrayLength, and the bounds of every access in memory modes
     *           robust and check, where the array is required), 0 when
     *           unknown (then nothing fits in robust and check). */
    void *const *args;
    const uint64_t *arg_sizes;
    const void *push_constants; /* the push-constant block (Shader), or NULL */
    void *wg_memory;            /* work-group memory, sized/aligned as the JIT reports,
                                        padded (SPVJIT_WG_MEMORY_PAD) */
    const void *spec_values;    /* unspecialized builds only: spec constant values,
                                        8 bytes per slot in the JIT's slot order */

    /* --- runtime services -------------------------------------------------- */
    spvjit_barrier_fn barrier;              /* NULL for barrier-free kernels */
    void *rt;                               /* executor-private (fiber scheduler of this group) */
    void *printf_stream;                    /* FILE* for OpenCL printf, NULL: stdout */
    spvjit_divergence_fn report_divergence; /* barrier kernels run by wg_range_fn (see above) */

    /* --- safety --------------------------------------------------------------- */
    /* Non-zero ends the dispatch (another thread sets it: compiled code reads it
     * with relaxed atomic loads): wg_range_fn reads it before each work-group,
     * every loop of the code on its back edge (see above).  NULL: never. */
    const uint32_t *stop;
    spvjit_oob_fn report_oob;      /* memory=check only */
    spvjit_wg_access_fn wg_access; /* memory=check only */
    void *check;                   /* executor-private state of the two */
};

/* Runs work-groups first, first + 1, ..., first + count - 1 (linear indices,
 * first + count <= the dispatch's group count), every work-item of each, and
 * returns count.  memory=robust, optimized tier: a group for which it cannot
 * prove every analyzable bounds check (jit/guard_versions.h) it does not run;
 * it returns the number of groups it ran before that one, and the caller runs
 * that group with the kernel's fully checked code (the quick tier's) and calls
 * again for the rest.  A call that stopped (*ctx->stop) or reported barrier
 * divergence returns any number: the caller looks at those first. */
typedef uint64_t (*spvjit_wg_range_fn)(const spvjit_wg_ctx *ctx, uint64_t first, uint64_t count);
/* The fiber path's work-group memory initializer: call it with the group's
 * ctx before the group's first work-item. */
typedef void (*spvjit_wg_fn)(const spvjit_wg_ctx *ctx);
/* Kernels with barriers: runs work-item (lx, ly, lz) of work-group ctx->group_id. */
typedef void (*spvjit_item_fn)(const spvjit_wg_ctx *ctx, uint32_t lx, uint32_t ly, uint32_t lz);

#endif
