/* jit/simd_internal.h — the vectorizer's state, shared by its files (private to jit/simd*.c).
 *
 *   simd.c           the driver: checks, analyses, the vector function's frame,
 *                    block by block emission, masks and transfers between blocks
 *   simd_schedule.c  the block order (loops contiguous) and which loops are uniform
 *   simd_shape.c     per value: uniform, affine in the lane (stride), or varying
 *   simd_widen.c     values in the vector function: materializing, lanes,
 *                    arithmetic, casts, comparisons, calls, the per-lane fallback
 *   simd_memory.c    loads, stores, atomics, private arrays
 *   simd_guard.c     addresses affine in the lane under conditions (clamps, no wrap)
 *   simd_subgroup.c  the sub-group markers over the active lanes
 */
#ifndef SPVJIT_JIT_SIMD_INTERNAL_H
#define SPVJIT_JIT_SIMD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "simd.h"
#include "uniformity.h"
#include "util/array.h"
#include "util/hashmap.h"

typedef enum simd_kind {
    SIMD_UNDEF = 0, /* not computed yet (a phi before the fixed point reached it) */
    SIMD_UNIFORM,   /* one scalar for every lane */
    SIMD_AFFINE,    /* lane l: base + l * stride (integers; pointers in bytes) */
    SIMD_VARYING,   /* one value per lane */
} simd_kind;

typedef struct simd_shape {
    simd_kind kind;
    int64_t stride; /* affine */
    uint8_t tz;     /* affine integer: known trailing zero bits of the lane-0 value */
    bool nuw, nsw;  /* affine integer: base + l * stride does not wrap (unsigned / signed) for l < W */
    bool hint;      /* varying, computed from affine values: may be contiguous at run time */
} simd_shape;

/* A value of the scalar function in the vector function: the scalar itself
 * (uniform), the lane-0 value (affine), or the widened value (varying). */
typedef struct simd_val {
    simd_shape sh;
    LLVMValueRef v;
} simd_val;

typedef struct simd_fn {
    /* the request */
    LLVMValueRef sf; /* the scalar function */
    const jit_simd_arg *args;
    unsigned W, log2w;
    LLVMModuleRef mod;
    LLVMContextRef llc;
    LLVMTargetDataRef td;
    LLVMTypeRef t_i1, t_i8, t_i32, t_i64, t_ptr, t_mask; /* t_mask: <W x i1> */

    /* analyses of sf */
    jit_cfg cfg;
    jit_uniformity *u;
    unsigned *order, norder;    /* schedule: reachable blocks, loops contiguous from their header */
    unsigned *pos;              /* [nblocks] position in order; UINT32_MAX for unreachable blocks */
    unsigned *loop_end;         /* [nloops] position of the loop's last block */
    bool *loop_uniform;         /* [nloops] every exit and latch uniform and reached by all lanes of the iteration */
    util_hashmap shapes;        /* instruction or argument → simd_shape * (in shape_store) */
    util_hashmap known_uniform; /* instructions the shapes proved uniform, for the analysis */
    simd_shape *shape_store;
    unsigned nshape_store;

    /* the vector function */
    LLVMValueRef vf;
    LLVMBuilderRef b;
    LLVMValueRef live;            /* the mask parameter */
    LLVMBasicBlockRef entry_bb;   /* allocas */
    LLVMBasicBlockRef *enter;     /* [nblocks] where block b's code starts */
    LLVMBasicBlockRef *loop_test; /* [nloops] divergent loops: any lane back at the header? */
    LLVMBasicBlockRef *after;     /* [nloops] where control goes after the loop's interval */
    LLVMBasicBlockRef *next;      /* [norder] the fall-through after position i's block */
    LLVMBasicBlockRef exit_bb;
    LLVMValueRef *mask_slot;  /* [nblocks] divergent blocks: lanes waiting to run the block */
    LLVMValueRef *flag_slot;  /* [nblocks] the others but the entry: whether the lanes reached it */
    LLVMValueRef ret_slot;    /* the returned lanes, or their one value (ret_uniform) */
    bool ret_uniform;         /* every return hands all lanes one value: ret_slot is scalar */
    util_hashmap slots;       /* value used in another block → its slot (scalar or widened) */
    util_hashmap phi_in;      /* phi → the slot its incoming values are stored to */
    util_hashmap private_mem; /* alloca of sf → its lanes' memory in vf */

    /* the block being emitted */
    unsigned cur;            /* its number */
    LLVMValueRef mask;       /* its mask (live for a block every lane runs) */
    bool full;               /* the mask is the live mask */
    util_hashmap lanes_memo; /* scalar integer → its lanes under conditions (simd_guard.c) */
    util_array lanes_store;
    util_array built;     /* instructions made for the conditions (simd_guard.c) */
    util_hashmap vals;    /* instruction → simd_val * (in val_store), this block */
    util_hashmap vectors; /* value → its materialized widened form, this block */
    simd_val *val_store;
    unsigned nval_store, cap_val_store;

    bool wg_access; /* the load or store being emitted is marked JIT_WG_MD */

    char *msg;
    int rc; /* 0, 1 declined, -1 failed */
} simd_fn;

/* --- simd.c --- */
int simd_decline(simd_fn *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int simd_fail(simd_fn *s, const char *what);
/* The vector function's value of scalar value v at the builder. */
simd_val simd_get(simd_fn *s, LLVMValueRef v);
/* Whether simd_get finds v here (defined before, in this block or through a slot). */
bool simd_available(simd_fn *s, LLVMValueRef v);
void simd_set(simd_fn *s, LLVMValueRef in, simd_val v);
/* A new block in the vector function. */
LLVMBasicBlockRef simd_block(simd_fn *s, const char *name);
/* An alloca in the vector function's entry block. */
LLVMValueRef simd_alloca(simd_fn *s, LLVMTypeRef t, unsigned align);
/* Whether any lane of a mask is set (an i1). */
LLVMValueRef simd_any(simd_fn *s, LLVMValueRef mask);
/* a && b lane by lane without passing poison from b where a is false. */
LLVMValueRef simd_mask_and(simd_fn *s, LLVMValueRef a, LLVMValueRef b);
LLVMValueRef simd_intrinsic(simd_fn *s, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                            unsigned nargs);

/* --- simd_schedule.c --- */
int simd_schedule(simd_fn *s);
/* The innermost loop around block b, JIT_CFG_NONE outside loops. */
static inline unsigned simd_loop_of(const simd_fn *s, unsigned b)
{
    return s->cfg.loop_of[b];
}

/* --- simd_shape.c --- */
int simd_shapes(simd_fn *s);
simd_shape simd_shape_of(const simd_fn *s, LLVMValueRef v);
/* Known trailing zero bits of a uniform integer value of sf (0 when unknown). */
unsigned simd_known_tz(const simd_fn *s, LLVMValueRef v, int depth);
/* Whether the lockstep uniformity of a call: see jit_call_varying_fn. */
int simd_call_varying(void *user, const jit_uniformity *u, LLVMValueRef call);

/* --- simd_widen.c --- */
/* The widened form of v (a vector per scalar, see jit_simd_widen_type). */
LLVMValueRef simd_widened(simd_fn *s, simd_val v, LLVMTypeRef scalar_t);
/* The value of v in lane `lane` (an i32, constant or not). */
LLVMValueRef simd_lane(simd_fn *s, simd_val v, LLVMTypeRef scalar_t, LLVMValueRef lane);
/* Writes scalar x into lane `lane` of widened value w (type of jit_simd_widen_type). */
LLVMValueRef simd_insert_lane(simd_fn *s, LLVMValueRef w, LLVMValueRef x, LLVMValueRef lane);
/* Emits instruction `in` of sf (not a terminator, phi, load, store, atomic, alloca). */
int simd_emit_inst(simd_fn *s, LLVMValueRef in);
/* Runs `in` (a clone per lane) for every active lane, in lane order. */
int simd_per_lane(simd_fn *s, LLVMValueRef in);
/* The constant <0, 1, ..., W-1> times step, of integer type t. */
LLVMValueRef simd_steps(simd_fn *s, LLVMTypeRef t, int64_t step);
/* Splat of scalar x. */
LLVMValueRef simd_splat(simd_fn *s, LLVMValueRef x);

/* --- simd_memory.c --- */
int simd_emit_load(simd_fn *s, LLVMValueRef in);
int simd_emit_store(simd_fn *s, LLVMValueRef in);
/* Bytes between the lanes' copies of an alloca of the scalar function. */
uint64_t simd_private_stride(const simd_fn *s, LLVMValueRef alloca);

/* --- simd_guard.c --- */
enum { SIMD_MAX_CONDS = 32 };
/* An address whose lanes are base + l * stride when every condition holds. */
typedef struct simd_guarded {
    LLVMValueRef cond[SIMD_MAX_CONDS]; /* i1 */
    unsigned ncond;
    LLVMValueRef base; /* lane 0's address */
    int64_t stride;
} simd_guarded;
/* The guarded form of scalar address p (a GEP of a uniform base by indices
 * computed from uniform and affine values through adds, multiplies, clamps
 * and extensions); false when it has none.  in_bounds: the access is
 * JIT_INBOUNDS_MD's (every active lane's address lies in the range that
 * begins at p's root), which makes some wrap tests unnecessary. */
bool simd_guarded_address(simd_fn *s, LLVMValueRef p, bool in_bounds, simd_guarded *g);
/* Forgets what the block emitted so far remembered (at a block's start). */
void simd_guard_forget(simd_fn *s);

/* --- simd_subgroup.c --- */
int simd_emit_subgroup(simd_fn *s, LLVMValueRef call);

#endif
