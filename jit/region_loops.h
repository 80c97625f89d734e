/* jit/region_loops.h — the work-group function of the barrier regions: each
 * region a loop over the work-items, one after another.
 *
 *   spvjit_wg_range(ctx, first, count): for each group of the range
 *   (group_range.h), a call of its machine; true (divergence) ends the range.
 *   i1 spvjit.group.full(ctx, group index, WorkgroupId, size), the machine:
 *     the per-item arrays and group slots, the hoisted values (slots.h), and
 *       the environment: the machine's values the regions read;
 *     region 0: for z, y, x: run the region's function for item (x, y, z); at
 *       a barrier or return it returns where it stopped (the barrier's resume
 *       id, 0 for a return), noted in next[item];
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
 *
 *   Each region is a function of one work-item, i32 spvjit.region.k(ctx, lx,
 *   ly, lz, idx, env, sx, sy), inlined into the loop (one set per machine).
 *   With sub-groups of W lanes (simd.h) the loop steps over sub-groups
 *   instead, calling the vectorized region function, which returns the W
 *   items' stops at once; a per-item array is then read and written a vector
 *   at a time.
 */
#ifndef SPVJIT_JIT_REGION_LOOPS_H
#define SPVJIT_JIT_REGION_LOOPS_H

#include "lower_ctx.h"
#include "regions.h"
#include "simd.h"
#include "slots.h"
#include "uniformity.h"

/* Builds spvjit_wg_range in c->mod from the regions and deletes the item
 * function.  *width: the sub-group size to run the regions with (1: work-item
 * by work-item); set to 1, with simd_why (JIT_SIMD_MSG bytes) saying why,
 * when the vectorizer declines.  0, or -1 with msg on an internal error. */
int jit_region_loops_emit(lower_ctx *c, const jit_regions *rg, const jit_uniformity *u, const jit_slot_plan *p,
                          unsigned *width, char *simd_why, char *msg);

#endif
