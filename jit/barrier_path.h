/* jit/barrier_path.h — how a kernel's work-group barriers run, and why.
 *
 * After lowering, a kernel with barriers is spvjit.item.in.group (one
 * work-item of a given group) with calls of the barrier intrinsic
 * (barrier_intrinsic.h).  The chooser (PoCL's WorkitemHandlerChooser)
 * compiles it into barrier regions (regions.h) when it can — a local size
 * known at compile time, at most JIT_REGIONS_MAX_ITEMS items, code the region
 * loops take, per-item arrays that fit JIT_REGIONS_MAX_STACK — and otherwise
 * keeps it for the fibers as spvjit_item, lowering the intrinsic to
 * ctx->barrier (or, when the options demand regions, fails saying why).
 * The reason is kept as one line (`spvjit compile --emit ...` prints it at
 * the top of the text).
 *
 * The same line says how the work-items of a group run: as sub-groups of W
 * SIMD lanes (simd.h: barrier-free kernels and barrier regions) or one at a
 * time (W = 1: sub-groups of one work-item), and why not SIMD.  Whatever path
 * is taken, the sub-group markers left in the module get the meaning for one
 * work-item (sg_marker.h) before this returns.
 */
#ifndef SPVJIT_JIT_BARRIER_PATH_H
#define SPVJIT_JIT_BARRIER_PATH_H

#include <stdbool.h>

#include "lower_ctx.h"

typedef enum jit_barrier_kind {
    JIT_BARRIERS_NONE,    /* no work-group barrier: spvjit_wg_range loops over the items */
    JIT_BARRIERS_REGIONS, /* compiled into region loops: spvjit_wg_range, no spvjit_item */
    JIT_BARRIERS_FIBERS,  /* spvjit_item on fibers */
} jit_barrier_kind;

typedef struct jit_barrier_path {
    jit_barrier_kind kind;
    unsigned subgroup_size; /* W: the lanes of a sub-group, 1 when work-items run one at a time */
    char why[384];          /* e.g. "barriers on fibers: the local size is not known at compile time" */
    char simd[320];         /* e.g. "sub-groups of 16 work-items as SIMD lanes" */
} jit_barrier_path;

/* Chooses and builds the path for the lowered, verified module of c in the
 * options' barrier mode: AUTO regions where possible, else fibers; FIBERS
 * fibers; REGIONS regions or an error naming why not.  Barrier regions run
 * sub-groups of c->simd_width lanes where the vectorizer takes the code (a
 * barrier-free kernel's range has its width already).  0, or -1 with
 * c->diag filled. */
int jit_choose_barrier_path(lower_ctx *c, jit_barrier_mode mode, jit_barrier_path *path);

/* `text` with the reason as a first line, commented out with `comment`
 * (";" for LLVM IR); takes text (malloc'd), returns a malloc'd string or NULL. */
char *jit_barrier_path_note(const jit_barrier_path *path, const char *comment, char *text);

#endif
