/* jit/guard_versions.h — bounds checks proven once for many work-groups.
 *
 * memory=robust, optimized tier, a known local size: every check of the item
 * body reads "the flag, or the compare" (lower_bounds.c, c->item_fast).
 * After the body's calls are inlined, each compare's offset is followed back
 * to what is the same for the whole group (ctx fields, the environment, push
 * constants: invariant loads; the WorkgroupId, as a range) and the local ids
 * (whose ranges the local size gives), through integer arithmetic,
 * extensions, min/max (GLSL clamp), selects, shifts and loop counters, each
 * value narrowed by the branches every path to the check passes; its lowest
 * and highest value become a program of 128-bit interval arithmetic
 * (proof.h) that spvjit.proof (workgroup.c) runs, with a check that no step
 * of the body's own arithmetic could have wrapped.  The range loop
 * (group_range.h) runs the proof once per call (a box of groups holding all
 * of the call's), or where that fails per row of groups, and for a row it
 * fails per group; a group whose checks hold runs the code with the flag set
 * (the analyzable checks fold away: the only version of the code the
 * optimized tier has), any other is handed back to the executor, which runs
 * it on the quick tier's fully checked code (jit/abi.h).  A check whose
 * offset cannot be followed keeps its compare.  This is the loop versioning a range check elimination would do, for
 * offsets no affine analysis describes (clamped stencils), with the
 * unversioned loop compiled only when a group needs it.
 */
#ifndef SPVJIT_JIT_GUARD_VERSIONS_H
#define SPVJIT_JIT_GUARD_VERSIONS_H

#include "lower_ctx.h"

/* Inlines the body's calls (the checks are followed across functions); before
 * the functions around the body are made.  0, or -1 with c->diag filled. */
int jit_guard_versions_inline(lower_ctx *c, LLVMValueRef body);

/* The condition (i1, built at c->b) under which every analyzable check of
 * `body` holds for every work-item of every group whose WorkgroupId lies
 * between the ids in `args` and group_hi[3] (a box of groups: those of a
 * call, of a row of it, or one), or NULL when no check can be proven that way.  `args` are
 * the values the body is called with (the local ids and the fast flag
 * excepted; the local size: the compile-time one, ls); the code built reads
 * them.  A check is followed with what the branches on the way to it say (an
 * `if (x < w)` bounds x there), and one out of range whatever the group (its
 * ranges all constants) is not analyzable.  The body's unanalyzable checks
 * lose the flag.  Called once per body. */
LLVMValueRef jit_guard_versions(lower_ctx *c, LLVMValueRef body, LLVMValueRef const *args, LLVMValueRef const *group_hi,
                                const uint32_t ls[3]);

#endif
