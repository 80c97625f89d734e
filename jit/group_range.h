/* jit/group_range.h — the loop over a range of work-groups that spvjit_wg_range
 * (jit/abi.h) runs, shared by the barrier-free work-group function
 * (workgroup.c) and the barrier regions (region_loops.c).
 *
 *   spvjit_wg_range(ctx, first, count):
 *     the caller's code that runs once per call (environment, frame)
 *     x, y, z of group `first` (two divisions per call)
 *     memory=robust, a range over several rows: the proof of the checks
 *       (JIT_SYM_PROOF) for a box of groups holding all of them, once
 *     for each row of the grid the range touches (y, z fixed):
 *       memory=robust, the call's box not proven: the proof for the row's groups
 *       for each of the row's groups in the range (x):
 *         return if *ctx->stop (a relaxed atomic load)
 *         the row's proof failed: the group's own; unproven: return (the
 *           executor runs the group on the quick tier's checked code)
 *         the group's WorkgroupId (base_group included) and local size
 *         its Workgroup initializers (JIT_SYM_WG_INIT_BODY, inlined)
 *         the caller's code for one group: its work-items
 *       or, the work-items in `parts` (bands): for each proven segment of
 *       the row (the rest of it, or one group), for each part, for each
 *       group of the segment: that part of the group
 * Group ids are loop variables; the rows make the inner loop a counted one.
 * Kernel flavour (a dimension whose local size is not 1): a row runs its
 * full groups in one loop (constant sizes), then the rest (the smaller last
 * group of the row, or a whole row of smaller groups in y or z) in a second
 * with run-time sizes; neither loop tests the sizes inside, so LLVM has
 * nothing to unswitch (which would copy the body once more).  The callers
 * keep the second copy small (out of line): every loop around the group body
 * is one more time LLVM's loop passes go over it (compile time).
 * What depends on the ctx alone is computed once per call (the ctx's loads
 * are invariant, and the ctx dereferenceable, so LLVM hoists them).
 */
#ifndef SPVJIT_JIT_GROUP_RANGE_H
#define SPVJIT_JIT_GROUP_RANGE_H

#include "lower_ctx.h"

/* One work-group of the range, as the code for it sees it. */
typedef struct jit_group {
    LLVMValueRef index;   /* i64: its linear index in the dispatch (x fastest) */
    LLVMValueRef id[3];   /* i32: WorkgroupId, base_group included */
    LLVMValueRef size[3]; /* i32: its local size, >= 1: constants where the group has
                             the compile-time size (a Shader group; a Kernel group of
                             a known local size other than the last of a dimension) */
    LLVMValueRef part;    /* i32: in bands (jit_emit_group_range's `parts`), the one part
                             of the group's work-items to run; NULL: all of them */
} jit_group;

/* Emits the code of one group at c->b and leaves c->b in a block without a
 * terminator, from which the next group follows.  It may return from the
 * function on its own (barrier divergence).  0, or -1 with c->diag filled. */
typedef int (*jit_group_emit_fn)(void *user, const jit_group *g);

/* Whether a group may have a size known only at run time (Kernel flavour,
 * a dimension whose local size is not 1): emit() is then also called with
 * run-time sizes. */
bool jit_group_sizes_vary(lower_ctx *c);

/* Adds i64 spvjit_wg_range(ptr noalias ctx, i64 first, i64 count) to c->mod
 * and positions c->b in its entry block. */
LLVMValueRef jit_range_function(lower_ctx *c);

/* Emits the loop over the range of fn (made by jit_range_function) at c->b,
 * emit() giving the code of one group, and its return (`count`: jit/abi.h).
 * `proof` (JIT_SYM_PROOF, or NULL): the groups of the compile-time size run
 * only where it holds — it is asked once for a box of all the call's groups,
 * where that fails once for each row's box of them, and for every group of a
 * row it fails for — and the first group it fails for
 * ends the call, which returns how many groups ran before it.  `parts` > 0:
 * the caller's work-items do not depend on running group by group (no
 * barriers, Workgroup memory or initializers) and split into that many
 * parts; the groups of constant sizes of a row then run in bands, part 0 of
 * each, then part 1, ... (emit() with g->part): for rows of work-items, the
 * memory order of a row-major image, and the code that depends on the row
 * alone runs once for the band.  0, or emit's -1. */
int jit_emit_group_range(lower_ctx *c, LLVMValueRef fn, jit_group_emit_fn emit, void *user, LLVMValueRef proof,
                         unsigned parts);

#endif
