/* jit/regions.h — barriers compiled away: a kernel with work-group barriers
 * becomes one spvjit_wg function (jit/abi.h) that runs the kernel's
 * barrier-free regions one after another, each as a loop over the work-items.
 *
 * Works on the LLVM IR of the per-item function spvjit_item, whichever lowering
 * emitted its barrier calls: a barrier is any call through the pointer loaded
 * from ctx->barrier with a constant site.  Steps:
 *   1. inline everything into spvjit_item, SROA, demote every value that
 *      crosses a block (reg2mem), end a block right after each barrier call;
 *   2. values computed from ctx alone before any store (environment, kernel
 *      arguments, local size) are hoisted: computed once per group;
 *   3. a divergence analysis finds what is work-group uniform: values computed
 *      only from constants, ctx, kernel arguments / push constants / resource
 *      base pointers and uniform slots (memory the kernel may write counts as
 *      varying), slots whose every store stores a uniform value under uniform
 *      control (no varying branch decides whether it runs), and the blocks
 *      that every item runs or none does;
 *   4. the other stack slots are classified: a slot whose value must survive
 *      a barrier (live into a region start, or of unknown use) becomes an array
 *      of one element per work-item, unless it is uniform: then it stays one
 *      slot for the group (the region loops see a loop-invariant value), which
 *      each item's pass over a region that stores it starts from the value it
 *      had at the region's start; the rest stay one shared slot (each item
 *      writes it before reading it within the same region);
 *   5. spvjit_wg runs region 0, then, while every item stopped at the same
 *      barrier, the region after it; items that did not all stop at the same
 *      barrier (or return) are reported through ctx->report_divergence.  A
 *      region whose barriers and returns all lie in uniform blocks needs no
 *      such check: every item leaves it the same way.
 * Needs a compile-time local size; anything not handled leaves spvjit_item as
 * it is (the fiber path).
 */
#ifndef SPVJIT_JIT_REGIONS_H
#define SPVJIT_JIT_REGIONS_H

#include <stdbool.h>

#include "lower_ctx.h"

/* Builds spvjit_wg from spvjit_item and deletes spvjit_item (*built = true),
 * or leaves the (possibly simplified, still equivalent) spvjit_item for the
 * fiber path (*built = false).  Returns -1 with c->diag filled on an LLVM error. */
int jit_regions_build(lower_ctx *c, bool *built);

/* Per-group bytes of per-item arrays above which the fiber path is kept (the
 * work-group function runs on the executor's thread stack). */
#define JIT_REGIONS_MAX_STACK (1u << 20)

#endif
