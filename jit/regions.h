/* jit/regions.h — barriers compiled away: the region structure of the
 * work-item function.
 *
 * A kernel with work-group barriers is lowered to the item function
 * spvjit.item.in.group(ctx, lx,ly,lz, sx,sy,sz, gx,gy,gz), one work-item of
 * a group, its barriers calls of @spvjit.barrier (barrier_intrinsic.h).
 * Where it can, the barrier path chooser (barrier_path.h) turns it into one
 * spvjit_wg_range function (jit/abi.h) that runs, for each group of its
 * range, the kernel's barrier-free regions one after another, each as a loop
 * over the work-items (PoCL's work-item loops).  The steps, one file each:
 *   1. this file: inline everything into the item function, SROA, demote
 *      every value that crosses a block to a stack slot (reg2mem), end a
 *      block right after each barrier call; then number the regions: region 0
 *      starts at the entry, region k >= 1 after the k-th barrier block (in
 *      layout order);
 *   2. cfg.h: block numbers, dominators, post-dominators, loops;
 *   3. uniformity.h: which values, stack slots and blocks are work-group
 *      uniform (items in sequence; memory only the dispatch's constant inputs
 *      fill, the ctx, kernel arguments, push constants, spec values, is
 *      read-only: jit_item_read_only);
 *   4. slots.h: what is computed once per group (hoisted), and where each
 *      stack slot lives: one element per work-item when its value must survive
 *      a barrier and varies, one slot for the group otherwise;
 *   5. region_loops.h: each group's machine runs region 0, then, while every
 *      item stopped at the same barrier, the region after it; items that did
 *      not all stop at the same barrier (or return) are reported through
 *      ctx->report_divergence; spvjit_wg_range calls it for each group.
 * Needs a compile-time local size; anything not handled leaves the item
 * function for the fiber path, with the reason (barrier_path.h).
 */
#ifndef SPVJIT_JIT_REGIONS_H
#define SPVJIT_JIT_REGIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>

#include "cfg.h"
#include "uniformity.h"

/* Size of the message buffers of the region steps: why the regions cannot be
 * built (a step returns 1), or what failed (a step returns -1). */
#define JIT_REGIONS_MSG 256

/* Per-group bytes of per-item arrays above which the fiber path is kept (the
 * work-group function runs on the executor's thread stack). */
#define JIT_REGIONS_MAX_STACK (1u << 20)

/* Work-items per group above which the fiber path is kept. */
#define JIT_REGIONS_MAX_ITEMS 65536u

typedef struct jit_regions {
    LLVMValueRef item;     /* the item function (spvjit.item.in.group), prepared */
    LLVMValueRef ctx;      /* its first parameter */
    bool kernel;           /* Kernel flavour: ctx->args[i] points to parameter i's bytes */
    jit_cfg cfg;           /* of item */
    LLVMValueRef *barrier; /* [cfg.nblocks]: the barrier call ending block b, or NULL */
    unsigned *resume;      /* [cfg.nblocks]: the resume id (>= 1) of the region after it, or 0 */
    unsigned nresume;      /* regions after barriers: the regions are 0 .. nresume */
    unsigned *start;       /* [nresume + 1]: the first block of each region; [0] is the entry */
    uint32_t *site;        /* [nresume + 1]: the barrier site before each region; [0] UINT32_MAX */
} jit_regions;

/* Step 1 on the module of the item function: inlining, SROA, reg2mem, blocks ending
 * at barriers (quick: for the quick tier).  0; 1 when a call is left that is
 * neither inlined nor a barrier (msg says which); -1 when LLVM fails (msg). */
int jit_regions_prepare(LLVMModuleRef mod, LLVMValueRef item, bool quick, char *msg);

/* The regions of a prepared item function.  0; 1 when it has something the
 * region loops cannot take (a phi, an alloca outside the entry block, no
 * barrier left...; msg says what); -1 when out of memory. */
int jit_regions_find(jit_regions *rg, LLVMValueRef item, bool kernel, char *msg);
void jit_regions_free(jit_regions *rg);

/* The blocks of region k: reachable from its start without passing a barrier
 * (the barrier blocks that end it included), breadth first from the start.
 * list and in_region have cfg.nblocks entries; in_region[b] is set for each.
 * Returns how many. */
unsigned jit_regions_blocks(const jit_regions *rg, unsigned k, unsigned *list, bool *in_region);

/* The read-only rule of the item function (a jit_read_only_fn, user = the
 * jit_regions): the const spvjit_wg_ctx and what its const pointers designate
 * (args, arg_sizes, push constants, spec values), and in the Kernel flavour
 * a parameter's bytes (args[i]; in the Shader flavour args[i] is a buffer). */
bool jit_item_read_only(void *user, const jit_uniformity *u, LLVMValueRef root);

#endif
