/* jit/guard_versions.h — bounds checks proven once per work-group.
 *
 * memory=robust, a known local size: every check of the item body reads "the
 * flag, or the compare" (lower_bounds.c, c->item_fast).  After the body's
 * calls are inlined, each compare's offset is followed back to what is the
 * same for the whole group (ctx fields, the environment, push constants:
 * invariant loads; the WorkgroupId) and the local ids (whose ranges the local
 * size gives), through integer arithmetic, extensions, min/max (GLSL clamp),
 * selects and shifts; its lowest and highest value become i128 interval
 * arithmetic run at the start of each group, with a check that no step of the
 * body's own arithmetic could have wrapped.  The group is in bounds when every
 * such offset's range fits its range's size: its work-items then run with the
 * flag set (the checks fold away: workgroup.c's spvjit.proof for
 * barrier-free kernels, the regions' second version of the full machine,
 * region_loops.c), else with it clear.  A check whose offset cannot be
 * followed keeps its compare in both.  This is the loop versioning a range
 * check elimination would do, for offsets no affine analysis describes
 * (clamped stencils).
 */
#ifndef SPVJIT_JIT_GUARD_VERSIONS_H
#define SPVJIT_JIT_GUARD_VERSIONS_H

#include "lower_ctx.h"

/* Inlines the body's calls (the checks are followed across functions); before
 * the functions around the body are made.  0, or -1 with c->diag filled. */
int jit_guard_versions_inline(lower_ctx *c, LLVMValueRef body);

/* The condition (i1, built at c->b) under which every analyzable check of
 * `body` holds for the whole group, or NULL when no check can be proven that
 * way.  `args` are the values the body is called with (the local ids and the
 * fast flag excepted; the local size: the compile-time one, ls); the code
 * built reads them.  The body's unprovable checks lose the flag.  Called
 * once per body. */
LLVMValueRef jit_guard_versions(lower_ctx *c, LLVMValueRef body, LLVMValueRef const *args, const uint32_t ls[3]);

#endif
