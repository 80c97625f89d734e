/* jit/region_loops.h — the work-group function of the barrier regions: each
 * region a loop over the work-items, one after another.
 *
 *   spvjit_wg_range(ctx, first, count): for each group of the range
 *   (group_range.h), a call of its machine; true (divergence) ends the range.
 *   i1 spvjit.group.full(ctx, group index, WorkgroupId, size), the machine:
 *     the per-item arrays and group slots, the hoisted values (slots.h);
 *     region 0: for z, y, x: run the region's blocks for item (x, y, z); at a
 *       barrier or return, note in next[item] where it stopped (the barrier's
 *       resume id, 0 for a return);
 *     check: every next[] equal? no: ctx->report_divergence(ctx, group,
 *       next, resume sites, rounds) and return true; yes: go to the region it
 *       names, or return false when 0.
 *   The machine is a function of its own (not inlined) so that LLVM's loop
 *   passes do not go over it once more for each loop over groups.
 *   A region whose barriers and returns all lie in blocks that are not
 *   divergent (uniformity.h) notes one next for the group and needs no check:
 *   every item leaves it the same way.  With a known local size the loop
 *   bounds are constants (LLVM unrolls and vectorizes across items); a
 *   Kernel-flavour group smaller than that (the last one of an NDRange) runs
 *   a second copy, spvjit.group.partial, with the bounds of its own size.
 */
#ifndef SPVJIT_JIT_REGION_LOOPS_H
#define SPVJIT_JIT_REGION_LOOPS_H

#include "lower_ctx.h"
#include "regions.h"
#include "slots.h"
#include "uniformity.h"

/* Builds spvjit_wg_range in c->mod from the regions and deletes the item function.
 * 0, or -1 with msg on an internal error. */
int jit_region_loops_emit(lower_ctx *c, const jit_regions *rg, const jit_uniformity *u, const jit_slot_plan *p,
                          char *msg);

#endif
