/* jit/simd.h — whole-function vectorization: a function run by W work-items
 * at once, each work-item one lane of SIMD vectors (a sub-group).
 *
 * The lowering emits scalar code for one work-item.  jit_simd_vectorize()
 * builds from such a function (everything inlined: only intrinsics, external
 * declarations and the sub-group markers of sg_marker.h are called) a new one
 * that runs W of them at once:
 *  - values the same in every lane (uniformity.h, lanes in lockstep) stay
 *    scalar; values that are the lane index times a constant plus a uniform
 *    value (affine) are kept as their lane-0 value, so an address that is a
 *    uniform base plus lane x element size is one vector access; everything
 *    else becomes one value per lane (a vector for scalars, recursively for
 *    LLVM vectors, arrays and structs);
 *  - control flow that is the same for all lanes stays plain control flow (a
 *    loop whose exits are uniform keeps its scalar counter and exit test);
 *    divergent control flow is linearized under masks kept in memory: the
 *    blocks run in a loop-nest-aware topological order, each only when some
 *    lane reached it, and a loop left by a varying condition runs until no
 *    lane is left in it (maximal reconvergence for structured code);
 *  - side effects happen on active lanes only: masked loads and stores,
 *    gathers and scatters (with a run-time test that turns an address that is
 *    only conditionally contiguous into one vector access), and a loop over
 *    the active lanes for calls, atomics and anything else without a vector
 *    form;
 *  - the sub-group markers get their cross-lane meaning, the block's mask
 *    being the set of active lanes.
 *
 * The scalar function is left as it was (the vector one is built beside it),
 * so the caller keeps it as the fallback when the vectorizer declines.
 */
#ifndef SPVJIT_JIT_SIMD_H
#define SPVJIT_JIT_SIMD_H

#include <stdbool.h>
#include <stdint.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* Size of the message buffer: why the function was not vectorized (1) or
 * what failed (-1). */
#define JIT_SIMD_MSG 256

/* The widest sub-group the vectorizer builds. */
#define JIT_SIMD_MAX_WIDTH 64

typedef enum jit_simd_arg {
    JIT_SIMD_ARG_UNIFORM,     /* the same in every lane: passed as is */
    JIT_SIMD_ARG_VARYING,     /* one value per lane: passed widened (<W x T> for a scalar type) */
    JIT_SIMD_ARG_CONSECUTIVE, /* an integer, lane l has base + l, the base a multiple of W: passed as the base */
} jit_simd_arg;

/* The function attribute of a vector function with a block its lanes may
 * reach apart (divergent control flow, run under a mask). */
#define JIT_SIMD_DIVERGENT "spvjit-divergent"

typedef struct jit_simd_request {
    LLVMValueRef fn;          /* the scalar function, in the form jit_simd_prepare() leaves */
    const jit_simd_arg *args; /* [number of parameters] */
    unsigned width;           /* W: 2, 4, 8, 16, 32 or 64 */
    const char *name;         /* the vector function's name */
    LLVMTargetDataRef td;     /* the module's data layout */
} jit_simd_request;

/* How much of the module jit_simd_prepare brings into shape. */
typedef enum jit_simd_prep {
    JIT_SIMD_PREP_FULL,  /* the form that makes the vector code fast */
    JIT_SIMD_PREP_QUICK, /* the quick tier's: only what the vectorizer needs (the tier's own passes follow) */
} jit_simd_prep;

/* Runs the passes that bring the module's functions into the form the
 * vectorizer takes: everything inlined, SROA, early CSE, CFG simplification,
 * and with JIT_SIMD_PREP_FULL instruction combining and small constant
 * loops unrolled; the inlining and the
 * function passes on the nonly functions of `only` alone when it is not NULL
 * (the others are left as they are: the passes cost per function; the caller
 * keeps those it needs alive), only[k]'s sub-group size
 * markers (after inlining) replaced by widths[k] when widths is not NULL.
 * 0, or -1 with msg. */
int jit_simd_prepare(LLVMModuleRef mod, const LLVMValueRef *only, const unsigned *widths, unsigned nonly,
                     jit_simd_prep prep, char *msg);
/* The same restriction for any function pipeline: the always-inline calls of
 * only[0..n) inlined to the last level (nothing into the other functions),
 * then `pipeline` run on only[0..n) alone.  0, or -1 with msg. */
int jit_passes_on(LLVMModuleRef mod, const LLVMValueRef *only, unsigned n, const char *pipeline, char *msg);

/* Builds the vector function of r->fn: its parameters are r->fn's, each as
 * r->args says, then the mask of the lanes that run (<W x i1>); it returns
 * what r->fn returns, widened (undefined in lanes that did not run).
 * Internal and always-inline.  0 with *out set; 1 when declined (msg says
 * why; nothing is left in the module); -1 on an internal error (msg). */
int jit_simd_vectorize(const jit_simd_request *r, LLVMValueRef *out, char *msg);

/* --- the work-items of a group as sub-groups (simd_items.c) ---------------------------------
 * Sub-groups are W work-items of consecutive linear local index; the last one
 * of a group whose item count is not a multiple of W has inactive lanes. */

#define JIT_SIMD_MAX_PARAMS 4096

typedef struct jit_simd_items_req {
    /* item(ptr ctx, i32 lx, i32 ly, i32 lz, i32 idx, uniform parameters...), returning
     * void or a value per work-item; idx: the item's linear index in `layout`
     * (no_index: item(ptr ctx, i32 lx, i32 ly, i32 lz, uniform parameters...)) */
    LLVMValueRef item;
    bool no_index;
    unsigned width;
    const uint32_t *size;   /* the group's size when known at compile time; NULL: run-time */
    unsigned size_param;    /* with size NULL: item's parameter holding the group's x size (y next) */
    /* with size NULL: the compile-time size, which the run-time one never
     * exceeds (a 1-D group stays 1-D) and idx is computed in (NULL: none) */
    const uint32_t *compiled;
    const char *name;
    LLVMTargetDataRef td;
    /* fixed_value (NULL: none) for item's parameter fixed_param in every call:
     * what it decides folds before the vectorizer sees it */
    unsigned fixed_param;
    LLVMValueRef fixed_value;
    /* the vectorizer may decline this one alone: its out[i] is then NULL and
     * the others are still made (the caller runs its items one at a time) */
    bool optional;
} jit_simd_items_req;

/* For each of the n requests, the vector function running a sub-group of the
 * items of r[i].item: out[i](ptr ctx, i32 base, item's uniform parameters,
 * <W x i1> live), base a multiple of W; it returns what the item
 * returns, widened.  Prepares the module (jit_simd_prepare, as `prep` asks)
 * once, the item functions inlined into the vectorizer's copies (they stay
 * for the scalar path), the functions of as_is[] (still being built or read
 * by the caller) left unchanged.  When the vectorizer declines the quick
 * preparation's form, the full one's is tried: the tiers vectorize the same
 * kernels (their sub-group sizes agree).  0 (out[i] NULL where an optional
 * request was declined); 1 a request not optional declined, -1 failed (msg),
 * nothing made then. */
int jit_simd_items(const jit_simd_items_req *r, unsigned n, const LLVMValueRef *as_is, unsigned nas_is,
                   jit_simd_prep prep, LLVMValueRef *out, char *msg);

/* A loop over the sub-groups of `count` items, full ones with a constant mask,
 * the partial last one after them: calls vf(ctx, base, args..., live) and
 * then each(user, b, base, live, result) when given. */
typedef struct jit_simd_loop {
    LLVMValueRef vf, ctx;
    LLVMValueRef *args; /* vf's uniform arguments after base */
    unsigned nargs;
    LLVMValueRef count; /* i32: the group's items (a constant when known), or those from `first` */
    LLVMValueRef first; /* i32: the item index the loop starts at (NULL: 0) */
    unsigned width;
    void (*each)(void *user, LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef live, LLVMValueRef result);
    void *user;
} jit_simd_loop;
/* Emits the loop at b; b is left after it.  Returns the branch at the end
 * of the loop over full sub-groups (where llvm.loop hints go), or NULL when
 * there is none. */
LLVMValueRef jit_simd_emit_loop(const jit_simd_loop *l, LLVMBuilderRef b);

/* Known trailing zero bits of integer value v (from constants, multiplies,
 * shifts, masks...); 0 when nothing is known. */
unsigned jit_simd_known_tz(LLVMValueRef v);
/* Known alignment in bytes of pointer p (from loads with !align metadata and
 * byte offsets from them); 1 when nothing is known. */
uint64_t jit_simd_known_align(LLVMValueRef p);

/* The widened type of t for W lanes: <W x T> for integers, floating point and
 * pointers, [n x <W x E>] for <n x E>, and arrays and structs member-wise. */
LLVMTypeRef jit_simd_widen_type(LLVMTypeRef t, unsigned width);

#endif
