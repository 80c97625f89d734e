/* jit/sg_marker.h — sub-group operations as calls of marker functions.
 *
 * The lowering does not know how many work-items a sub-group has: it emits
 * every operation with cross-lane meaning as a call of a marker, e.g.
 *     %r = call float @spvjit.sg.reduce.fadd.f32(float %x)
 *     %l = call i32 @spvjit.sg.lane()
 * and builds everything else (SubgroupId, the SubgroupEqMask family, ballot
 * bit counts, quad and relative shuffles, elect, ...) from these with plain
 * arithmetic.  Then one of two things happens before the optimizer runs:
 * the vectorizer (simd.h) gives each marker its meaning over the lanes active
 * at the call, or jit_sg_lower_scalar() gives it the meaning for sub-groups
 * of one work-item.
 *
 * The markers, over the active lanes A of the sub-group at the call (W lanes):
 *   size()           i32  W (SubgroupSize, SubgroupMaxSize)
 *   live()           i32  the lanes of the sub-group that exist (W but in the last,
 *                         partial sub-group of a group; OpenCL's get_sub_group_size)
 *   lane()           i32  this lane's index, 0..W-1 (SubgroupLocalInvocationId)
 *   id(i32 i)        i32  i / W for a lane's local index i: the sub-group's number (SubgroupId)
 *   first()          i32  the lowest lane of A
 *   all(i1 p)        i1   p in every lane of A
 *   any(i1 p)        i1   p in some lane of A
 *   ballot(i1 p)     <4 x i32>  bit l set when lane l is in A and has p (bits >= W clear)
 *   shuffle(T x, i32 l)  T  x of lane l (undefined when l is not in A; l >= W reads some lane)
 *   reduce.OP(T x)   T    x of every lane of A combined with OP
 *   scan.incl.OP(T x) T   OP over the lanes of A up to this one
 *   scan.excl.OP(T x) T   OP over the lanes of A below this one (OP's identity for the lowest)
 *   clustered.OP(T x, i32 c)  T  OP over the lanes of A in this lane's aligned cluster of c
 *                             (a power of two; c >= W is the whole sub-group)
 * OP is one of add mul fadd fmul smin umin fmin smax umax fmax and or xor;
 * T an integer (i1 for the logical operations), half, float, double or
 * (shuffle) a pointer.  Floating-point sums and products are combined in a
 * tree whose shape depends on W (the vectorizer's), strict IEEE otherwise.
 *
 * The declarations are `convergent nounwind willreturn` with
 * memory(inaccessiblemem: readwrite): LLVM may not move them across control
 * flow nor merge two of them, but memory the program sees moves freely
 * around them (llvm_facts.c counts them as harmless calls).
 */
#ifndef SPVJIT_JIT_SG_MARKER_H
#define SPVJIT_JIT_SG_MARKER_H

#include <stdbool.h>
#include <llvm-c/Core.h>

#define JIT_SG_PREFIX "spvjit.sg."

typedef enum jit_sg_kind {
    JIT_SG_NONE = 0, /* not a marker */
    JIT_SG_SIZE,
    JIT_SG_LIVE,
    JIT_SG_LANE,
    JIT_SG_ID,
    JIT_SG_FIRST,
    JIT_SG_ALL,
    JIT_SG_ANY,
    JIT_SG_BALLOT,
    JIT_SG_SHUFFLE,
    JIT_SG_REDUCE,
    JIT_SG_SCAN_INCL,
    JIT_SG_SCAN_EXCL,
    JIT_SG_CLUSTERED,
} jit_sg_kind;

typedef enum jit_sg_arith {
    JIT_SG_ADD,
    JIT_SG_MUL,
    JIT_SG_FADD,
    JIT_SG_FMUL,
    JIT_SG_SMIN,
    JIT_SG_UMIN,
    JIT_SG_FMIN,
    JIT_SG_SMAX,
    JIT_SG_UMAX,
    JIT_SG_FMAX,
    JIT_SG_AND,
    JIT_SG_OR,
    JIT_SG_XOR,
    JIT_SG_NARITH
} jit_sg_arith;

typedef struct jit_sg_call {
    jit_sg_kind kind;
    jit_sg_arith arith; /* reduce, scans, clustered */
} jit_sg_call;

/* Emits a marker call at b; x / arg are its operands where it takes them
 * (arith only for the arithmetic kinds).  The declaration is made in mod on
 * first use. */
LLVMValueRef jit_sg_build(LLVMBuilderRef b, LLVMModuleRef mod, jit_sg_kind kind, jit_sg_arith arith, LLVMValueRef x,
                          LLVMValueRef arg);

/* What `call` is: kind JIT_SG_NONE for anything but a marker call. */
jit_sg_call jit_sg_decode(LLVMValueRef call);
/* Whether function f is a marker declaration. */
bool jit_sg_is_marker_fn(LLVMValueRef f);
/* Whether mod declares a marker: its code can observe its sub-groups. */
bool jit_sg_any_marker(LLVMModuleRef mod);

/* The identity of OP for type t (0 for add, -0.0 for fadd, 1 for mul, +inf for fmin, ...). */
LLVMValueRef jit_sg_identity(jit_sg_arith op, LLVMTypeRef t);
/* What an exclusive scan gives a lane with no active lane before it: the
 * identity, but +0.0 for a float add (SPIR-V and OpenCL name 0). */
LLVMValueRef jit_sg_excl_start(jit_sg_arith op, LLVMTypeRef t);
/* a OP b at b. */
LLVMValueRef jit_sg_combine(LLVMBuilderRef b, LLVMModuleRef mod, jit_sg_arith op, LLVMValueRef x, LLVMValueRef y);

/* Replaces every marker call left in mod with its meaning for sub-groups of
 * one work-item (size 1, lane 0, reductions the value itself, ...) and
 * deletes the declarations. */
void jit_sg_lower_scalar(LLVMModuleRef mod);

/* --- sub-groups of W work-items, run one work-item at a time ---------------------------------
 * size(), lane() and id() (SubgroupSize, SubgroupLocalInvocationId,
 * SubgroupId, NumSubgroups and what is built from them) have a meaning each
 * work-item can compute alone; the other markers need the lanes. */

/* Whether fn has no marker but size, lane and id. */
bool jit_sg_per_item(LLVMValueRef fn);
/* Replaces the markers of fn (jit_sg_per_item holds) with their meaning for
 * sub-groups of w work-items of consecutive linear local index: size w,
 * lane index % w, id(i) i / w.  `index`, the work-item's linear local
 * index, is an i32 that dominates every marker of fn. */
void jit_sg_lower_per_item(LLVMValueRef fn, unsigned w, LLVMValueRef index);

#endif
