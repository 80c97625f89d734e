/* jit/simd_memory.c — memory in the vector function.
 *
 * A uniform address is one scalar access (a store of a varying value keeps
 * the last active lane's, as work-items run in order would).  An affine
 * address whose stride is the element size is one masked vector access; any
 * other stride a masked gather or scatter.  A varying address computed from
 * affine values takes the vector access when a run-time test says the
 * active lanes' addresses are consecutive, the gather or scatter when not:
 * for a uniform base indexed by affine and uniform values through adds,
 * multiplies, clamps (smax/smin/umax/umin) and extensions, the test is a few
 * scalar comparisons on lanes 0 and W - 1 (each clamp leaves every lane
 * alone, no extension wraps: simd_guard.c); otherwise it compares the
 * lanes' pointers with the first active lane's (contiguity_test).
 * An LLVM vector per lane whose lanes' copies lie in a row (affine, or
 * tested as above) is one access of W × n elements, each element's lanes
 * every n-th; other vectors and aggregates are accessed member by member.
 * Volatile and atomic accesses run once per active lane, in lane order.
 *
 * Private memory (the scalar function's allocas) gets one copy per lane,
 * `simd_private_stride` bytes apart, so its address is affine.
 *
 * Work-group memory (accesses marked JIT_WG_MD) takes whole vectors where it
 * can.  A masked store and then a load of its bytes at another lane offset
 * (s[lid] += s[lid + k] in a tree reduction) defeat the processor's store
 * forwarding: the load waits for the store to reach the cache, which costs a
 * third of such a kernel's time.  A work-group runs on one thread and its
 * memory is its own, padded (abi.h), so a store there with some lanes off
 * writes the whole vector (those lanes' bytes rewritten with what they
 * hold), and a contiguous load not aligned to the vector reads the two
 * aligned vectors around it and takes its lanes from them: each load finds
 * its bytes in one earlier store.  Every lane's address is within a vector
 * of an active lane's, which lies in the block, so the padding holds all
 * the bytes touched. */
#include "simd_internal.h"

#include "abi.h"
#include "jit.h"
#include "llvm_facts.h"
#include "lower_ctx.h"

#include <stdlib.h>
#include <string.h>

static LLVMValueRef mask_bits(simd_fn *s)
{
    return LLVMBuildBitCast(s->b, s->mask, LLVMIntTypeInContext(s->llc, s->W), "");
}

/* The address `bytes` further, for every lane. */
static simd_val offset(simd_fn *s, simd_val a, uint64_t bytes)
{
    if (!bytes)
        return a;
    LLVMValueRef off = LLVMConstInt(s->t_i64, bytes, 0);
    return (simd_val){ a.sh, LLVMBuildGEP2(s->b, s->t_i8, a.v, &off, 1, "") };
}

/* Vector and aggregate members: their byte offsets and types; -1 when more than max. */
static int mem_members(simd_fn *s, LLVMTypeRef t, uint64_t *off, LLVMTypeRef *mt, unsigned max)
{
    unsigned n = 0;
    switch (LLVMGetTypeKind(t)) {
    case LLVMVectorTypeKind:
    case LLVMArrayTypeKind: {
        LLVMTypeRef e = LLVMGetElementType(t);
        unsigned cnt =
            LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetVectorSize(t) : (unsigned)LLVMGetArrayLength2(t);
        uint64_t size =
            LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMStoreSizeOfType(s->td, e) : LLVMABISizeOfType(s->td, e);
        for (; n < cnt && n < max; n++) {
            off[n] = n * size;
            mt[n] = e;
        }
        return cnt <= max ? (int)n : -1;
    }
    case LLVMStructTypeKind: {
        unsigned cnt = LLVMCountStructElementTypes(t);
        for (; n < cnt && n < max; n++) {
            off[n] = LLVMOffsetOfElement(s->td, t, n);
            mt[n] = LLVMStructGetTypeAtIndex(t, n);
        }
        return cnt <= max ? (int)n : -1;
    }
    default:
        return -1;
    }
}

static bool is_aggregate(LLVMTypeRef t)
{
    LLVMTypeKind k = LLVMGetTypeKind(t);
    return k == LLVMVectorTypeKind || k == LLVMArrayTypeKind || k == LLVMStructTypeKind;
}

#define MAX_MEMBERS 64

/* Whether vector element type t may be read from or written to consecutive
 * elements as one <W x t> (its allocation size its store size). */
static bool packs(simd_fn *s, LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) != LLVMIntegerTypeKind || LLVMGetIntTypeWidth(t) % 8 == 0
               ? LLVMABISizeOfType(s->td, t) == LLVMStoreSizeOfType(s->td, t)
               : false;
}

/* Contiguous at run time?  Returns the i1 and the address of lane 0 of the run. */
static LLVMValueRef contiguity_test(simd_fn *s, LLVMValueRef ptrs, uint64_t size, LLVMValueRef *base)
{
    LLVMValueRef p = LLVMBuildFreeze(s->b, ptrs, "");
    if (s->full) {
        *base = LLVMBuildExtractElement(s->b, p, LLVMConstInt(s->t_i32, 0, 0), "");
    } else {
        LLVMTypeRef iw = LLVMIntTypeInContext(s->llc, s->W);
        LLVMValueRef f =
            simd_intrinsic(s, "llvm.cttz", &iw, 1, (LLVMValueRef[]){ mask_bits(s), LLVMConstInt(s->t_i1, 1, 0) }, 2);
        LLVMValueRef f64 = LLVMBuildZExtOrBitCast(s->b, f, s->t_i64, "");
        LLVMValueRef pf = LLVMBuildExtractElement(s->b, p, f64, "");
        LLVMValueRef back = LLVMBuildMul(s->b, f64, LLVMConstInt(s->t_i64, (unsigned long long)-(int64_t)size, 0), "");
        *base = LLVMBuildGEP2(s->b, s->t_i8, pf, &back, 1, "");
    }
    LLVMValueRef expect =
        LLVMBuildGEP2(s->b, s->t_i8, *base, (LLVMValueRef[]){ simd_steps(s, s->t_i64, (int64_t)size) }, 1, "");
    LLVMValueRef eq = LLVMBuildICmp(s->b, LLVMIntEQ, p, expect, "");
    LLVMValueRef ok = LLVMBuildOr(s->b, eq, LLVMBuildXor(s->b, s->mask, LLVMConstAllOnes(s->t_mask), ""), "");
    return simd_intrinsic(s, "llvm.vector.reduce.and", &s->t_mask, 1, &ok, 1);
}

static LLVMValueRef align_const(simd_fn *s, unsigned align)
{
    return LLVMConstInt(s->t_i32, align ? align : 1, 0);
}

/* The bytes of one vector when a work-group memory access of element type t
 * may take whole vectors: 32-bit lanes, 8 of them with AVX2 or 16 with
 * AVX-512, whose permutations pick the lanes (see above); else 0. */
static unsigned wg_vector_bytes(simd_fn *s, LLVMTypeRef t)
{
    bool lane32 = LLVMGetTypeKind(t) == LLVMFloatTypeKind ||
                  (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 32);
    unsigned host = jit_host_lanes32(); /* 16: AVX-512 (and AVX2), 8: AVX2 */
    if (!s->wg_access || !lane32 || (s->W != 16 && s->W != 8) || s->W > host || host < 8)
        return 0;
    _Static_assert(2 * 16 * 4 <= SPVJIT_WG_MEMORY_PAD, "a vector pair around an access must fit in the padding");
    return 4 * s->W;
}

/* Marks a whole-vector access as work-group memory's: region_loops.c
 * unrolls the sub-groups of a region that has one. */
static void mark_wg(simd_fn *s, LLVMValueRef access)
{
    LLVMSetMetadata(access, LLVMGetMDKindIDInContext(s->llc, JIT_WG_MD, strlen(JIT_WG_MD)),
                    LLVMMetadataAsValue(s->llc, LLVMMDNodeInContext2(s->llc, NULL, 0)));
}

/* Lanes idx (0 .. 2W - 1, of the W lanes of lo followed by those of hi) of
 * vectors of 32-bit lanes. */
static LLVMValueRef pick_lanes(simd_fn *s, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef idx)
{
    bool fp = LLVMGetTypeKind(LLVMGetElementType(LLVMTypeOf(lo))) == LLVMFloatTypeKind;
    if (s->W == 16)
        return simd_intrinsic(s, fp ? "llvm.x86.avx512.vpermi2var.ps.512" : "llvm.x86.avx512.vpermi2var.d.512", NULL, 0,
                              (LLVMValueRef[]){ lo, idx, hi }, 3);
    const char *perm = fp ? "llvm.x86.avx2.permps" : "llvm.x86.avx2.permd"; /* lanes idx mod 8 */
    LLVMValueRef from_lo = simd_intrinsic(s, perm, NULL, 0, (LLVMValueRef[]){ lo, idx }, 2);
    LLVMValueRef from_hi = simd_intrinsic(s, perm, NULL, 0, (LLVMValueRef[]){ hi, idx }, 2);
    LLVMValueRef high = LLVMBuildICmp(s->b, LLVMIntUGE, idx, simd_splat(s, LLVMConstInt(s->t_i32, s->W, 0)), "");
    return LLVMBuildSelect(s->b, high, from_hi, from_lo, "");
}

/* How far p lies past a multiple of vb bytes (an i64): the sum of the byte
 * offsets of the GEPs it is made of, and of their root's address unless that
 * is known to be aligned (abi.h's work-group memory, a variable in it), so
 * that what the offsets leave unchanged from one sub-group to the next
 * (a multiple of the vector) folds away. */
static LLVMValueRef misalignment(simd_fn *s, LLVMValueRef p, unsigned vb)
{
    LLVMValueRef sum = LLVMConstInt(s->t_i64, 0, 0);
    for (int depth = 0; depth < 8 && LLVMIsAGetElementPtrInst(p) && LLVMGetNumOperands(p) == 2; depth++) {
        LLVMValueRef idx = LLVMGetOperand(p, 1);
        uint64_t size = LLVMABISizeOfType(s->td, LLVMGetGEPSourceElementType(p));
        idx = LLVMBuildMul(s->b, LLVMBuildSExtOrBitCast(s->b, idx, s->t_i64, ""), LLVMConstInt(s->t_i64, size, 0), "");
        sum = LLVMBuildAdd(s->b, sum, idx, "");
        p = LLVMGetOperand(p, 0);
    }
    if (jit_simd_known_align(p) % vb)
        sum = LLVMBuildAdd(s->b, sum, LLVMBuildPtrToInt(s->b, p, s->t_i64, ""), "");
    return LLVMBuildAnd(s->b, sum, LLVMConstInt(s->t_i64, vb - 1, 0), "");
}

/* W lanes of work-group memory from base (a multiple of 4 bytes): lanes of
 * the two aligned vectors around it. */
static LLVMValueRef wg_load(simd_fn *s, LLVMValueRef base, LLVMTypeRef vt, unsigned vb)
{
    LLVMValueRef off = misalignment(s, base, vb);
    LLVMValueRef lo = LLVMBuildGEP2(s->b, s->t_i8, base, (LLVMValueRef[]){ LLVMBuildNeg(s->b, off, "") }, 1, "");
    LLVMValueRef v[2];
    for (unsigned k = 0; k < 2; k++) {
        v[k] = LLVMBuildLoad2(s->b, vt,
                              LLVMBuildGEP2(s->b, vt, lo, (LLVMValueRef[]){ LLVMConstInt(s->t_i64, k, 0) }, 1, ""), "");
        LLVMSetAlignment(v[k], vb);
        mark_wg(s, v[k]);
    }
    LLVMValueRef shift = LLVMBuildTrunc(s->b, LLVMBuildLShr(s->b, off, LLVMConstInt(s->t_i64, 2, 0), ""), s->t_i32, "");
    return pick_lanes(s, v[0], v[1], LLVMBuildAdd(s->b, simd_steps(s, s->t_i32, 1), simd_splat(s, shift), ""));
}

/* W lanes from consecutive elements at base: a masked load, or the whole
 * vectors of work-group memory. */
static LLVMValueRef contiguous_load(simd_fn *s, LLVMValueRef base, LLVMTypeRef vt, unsigned align)
{
    unsigned vb = wg_vector_bytes(s, LLVMGetElementType(vt));
    if (vb && align >= 4)
        return wg_load(s, base, vt, vb);
    LLVMTypeRef ty[2] = { vt, s->t_ptr };
    LLVMValueRef a[4] = { base, align_const(s, align), s->mask, LLVMGetPoison(vt) };
    return simd_intrinsic(s, "llvm.masked.load", ty, 2, a, 4);
}

static LLVMValueRef gather(simd_fn *s, LLVMValueRef ptrs, LLVMTypeRef vt, unsigned align)
{
    LLVMTypeRef ty[2] = { vt, LLVMTypeOf(ptrs) };
    LLVMValueRef a[4] = { ptrs, align_const(s, align), s->mask, LLVMGetPoison(vt) };
    return simd_intrinsic(s, "llvm.masked.gather", ty, 2, a, 4);
}

/* The active lanes of v to consecutive elements at base: a masked store,
 * or the whole vector in work-group memory. */
static void contiguous_store(simd_fn *s, LLVMValueRef v, LLVMValueRef base, unsigned align)
{
    if (wg_vector_bytes(s, LLVMGetElementType(LLVMTypeOf(v)))) {
        /* the whole vector, the inactive lanes' bytes as they are (see above) */
        LLVMValueRef old = LLVMBuildLoad2(s->b, LLVMTypeOf(v), base, "");
        LLVMSetAlignment(old, align ? align : 1);
        LLVMValueRef st = LLVMBuildStore(s->b, LLVMBuildSelect(s->b, s->mask, v, old, ""), base);
        LLVMSetAlignment(st, align ? align : 1);
        mark_wg(s, st);
        return;
    }
    LLVMTypeRef ty[2] = { LLVMTypeOf(v), s->t_ptr };
    LLVMValueRef a[4] = { v, base, align_const(s, align), s->mask };
    simd_intrinsic(s, "llvm.masked.store", ty, 2, a, 4);
}

static void scatter(simd_fn *s, LLVMValueRef v, LLVMValueRef ptrs, unsigned align)
{
    LLVMTypeRef ty[2] = { LLVMTypeOf(v), LLVMTypeOf(ptrs) };
    LLVMValueRef a[4] = { v, ptrs, align_const(s, align), s->mask };
    simd_intrinsic(s, "llvm.masked.scatter", ty, 2, a, 4);
}

typedef simd_guarded guarded;

/* All of g's conditions (an i1). */
static LLVMValueRef guard_test(simd_fn *s, const guarded *g)
{
    LLVMValueRef all = g->cond[0];
    for (unsigned i = 1; i < g->ncond; i++)
        all = LLVMBuildAnd(s->b, all, g->cond[i], "");
    return all;
}

/* Whether an access of scalar type t (size bytes) at varying address a
 * (guarded form g, or NULL) may be one vector access: the gather or scatter
 * when not. */
static bool may_be_contiguous(simd_fn *s, simd_val a, const guarded *g, LLVMTypeRef t, uint64_t size)
{
    return a.sh.kind == SIMD_VARYING && a.sh.hint && packs(s, t) && (!g || (uint64_t)g->stride == size);
}

/* The lanes' addresses a of scalar address sp (or NULL), for a gather or a
 * scatter: a uniform base indexed by the lanes' 32-bit indices where sp is
 * base + sext(i32 x) * 1, 2, 4 or 8 (x86 gathers them in one instruction; a
 * vector of 64-bit offsets takes two, and costs the code generator far more). */
static LLVMValueRef lane_pointers(simd_fn *s, simd_val a, LLVMValueRef sp)
{
    if (!sp || !LLVMIsAGetElementPtrInst(sp) || LLVMGetNumOperands(sp) != 2 ||
        !simd_available(s, LLVMGetOperand(sp, 0)) || simd_get(s, LLVMGetOperand(sp, 0)).sh.kind != SIMD_UNIFORM)
        return simd_widened(s, a, s->t_ptr);
    LLVMValueRef off = LLVMGetOperand(sp, 1);
    uint64_t scale = LLVMABISizeOfType(s->td, LLVMGetGEPSourceElementType(sp));
    LLVMOpcode op = LLVMIsAInstruction(off) ? LLVMGetInstructionOpcode(off) : LLVMRet;
    if ((op == LLVMShl || op == LLVMMul) && LLVMIsAConstantInt(LLVMGetOperand(off, 1))) {
        uint64_t k = LLVMConstIntGetZExtValue(LLVMGetOperand(off, 1));
        scale = op == LLVMShl ? (k < 4 ? scale << k : 0) : scale * k;
        off = LLVMGetOperand(off, 0);
        op = LLVMIsAInstruction(off) ? LLVMGetInstructionOpcode(off) : LLVMRet;
    }
    if (op != LLVMSExt || (scale != 1 && scale != 2 && scale != 4 && scale != 8) ||
        LLVMTypeOf(LLVMGetOperand(off, 0)) != s->t_i32 || !simd_available(s, LLVMGetOperand(off, 0)))
        return simd_widened(s, a, s->t_ptr);
    LLVMValueRef x = simd_widened(s, simd_get(s, LLVMGetOperand(off, 0)), s->t_i32);
    return LLVMBuildGEP2(s->b, LLVMIntTypeInContext(s->llc, 8 * (unsigned)scale), simd_get(s, LLVMGetOperand(sp, 0)).v,
                         &x, 1, "");
}

/* How much lanes_here copies: a stencil tap's lanes' addresses are a GEP of
 * an index made of a row offset and a clamp of a broadcast column plus the
 * lane steps, about ten vector instructions. */
enum { COPY_DEPTH = 12, COPY_MAX = 32 };

/* The copies made for one access, each instruction once. */
typedef struct copies {
    LLVMValueRef from[COPY_MAX], to[COPY_MAX];
    unsigned n;
} copies;

/* Whether vector instruction v of the vector function computes its result
 * from its operands alone, cheaply: arithmetic, comparisons, casts, selects,
 * shuffles, GEPs and the min/max intrinsics. */
static bool copyable(const simd_fn *s, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind ||
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)) != s->vf)
        return false;
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMSExt:
    case LLVMZExt:
    case LLVMTrunc:
    case LLVMICmp:
    case LLVMSelect:
    case LLVMShuffleVector:
    case LLVMInsertElement:
    case LLVMGetElementPtr:
        return true;
    case LLVMCall:
        return jit_call_int_minmax(v) != NULL;
    default:
        return false;
    }
}

/* Vector value v computed again at the builder, for a path that alone needs
 * it: a gather's or scatter's lane addresses behind a contiguity test.  The
 * taps of a stencil share their clamped columns, so no copy would have the
 * one use that lets the passes sink it, and the contiguous path would
 * compute every clamp for nothing.  The copies are made below the test;
 * what is left above it unused, the passes delete.  At most COPY_MAX
 * instructions, COPY_DEPTH deep; past that the value above the test serves. */
static LLVMValueRef copy_lanes(simd_fn *s, LLVMValueRef v, int depth, copies *c)
{
    for (unsigned i = 0; i < c->n; i++)
        if (c->from[i] == v)
            return c->to[i];
    if (depth == 0 || c->n == COPY_MAX || !copyable(s, v))
        return v;
    unsigned slot = c->n++;
    LLVMValueRef x = LLVMInstructionClone(v);
    for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++)
        LLVMSetOperand(x, (unsigned)k, copy_lanes(s, LLVMGetOperand(v, (unsigned)k), depth - 1, c));
    LLVMInsertIntoBuilder(s->b, x);
    c->from[slot] = v;
    c->to[slot] = x;
    return x;
}

static LLVMValueRef lanes_here(simd_fn *s, LLVMValueRef v)
{
    copies c = { .n = 0 };
    return copy_lanes(s, v, COPY_DEPTH, &c);
}

/* __builtin_expect's odds; not JIT_GUARD_WEIGHT, which would make unbranch.c
 * take the test for a bounds check. */
enum { SIMD_CONTIGUOUS_WEIGHT = 2000 };

/* The branch to a contiguous access (its lanes' addresses in a row) or to
 * the gather or scatter, weighed toward the first: that is what the test
 * expects (an image's edge, an index that might wrap), and the code
 * generator then keeps the expansion's registers and spills on its side.
 * (conv3x3 ran 7% faster for it on an AMD Zen 3, and without it the gathers
 * made straight-line, lane_redirect.h, spilled into its hot loop.) */
static void branch_contiguous(simd_fn *s, LLVMValueRef ok, LLVMBasicBlockRef fast, LLVMBasicBlockRef slow)
{
    jit_weigh_likely(LLVMBuildCondBr(s->b, ok, fast, slow), SIMD_CONTIGUOUS_WEIGHT);
}

/* Whether the lanes' accesses of type t (size bytes apart) at address a are
 * one run of memory, starting at *base: always (RUN_ALWAYS), when the i1
 * *ok says so at run time (RUN_TESTED: *ptrs holds the lanes' addresses,
 * for the other path), or not known to be (RUN_NEVER). */
typedef enum { RUN_NEVER, RUN_ALWAYS, RUN_TESTED } run_kind;

static run_kind lanes_in_a_run(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMTypeRef t, uint64_t size,
                               LLVMValueRef *base, LLVMValueRef *ok, LLVMValueRef *ptrs)
{
    if (a.sh.kind == SIMD_AFFINE && (uint64_t)a.sh.stride == size && packs(s, t)) {
        *base = a.v;
        return RUN_ALWAYS;
    }
    if (g && !g->ncond && may_be_contiguous(s, a, g, t, size)) { /* no test needed */
        *base = g->base;
        return RUN_ALWAYS;
    }
    if (!may_be_contiguous(s, a, g, t, size))
        return RUN_NEVER;
    *ptrs = lane_pointers(s, a, sp);
    *ok = g ? guard_test(s, g) : contiguity_test(s, *ptrs, size, base);
    if (g)
        *base = g->base;
    return RUN_TESTED;
}

/* The two paths of a RUN_TESTED access: the run's, then the lanes' one by
 * one (a gather or scatter), joined. */
typedef struct run_paths {
    LLVMBasicBlockRef join, other, run_end;
    LLVMValueRef run_value;
} run_paths;

static void run_path(simd_fn *s, LLVMValueRef ok, run_paths *p, const char *other)
{
    LLVMBasicBlockRef run = simd_block(s, "contiguous");
    p->other = simd_block(s, other);
    p->join = simd_block(s, "");
    branch_contiguous(s, ok, run, p->other);
    LLVMPositionBuilderAtEnd(s->b, run);
}

static void lanes_path(simd_fn *s, run_paths *p, LLVMValueRef run_value)
{
    p->run_end = LLVMGetInsertBlock(s->b);
    p->run_value = run_value;
    LLVMBuildBr(s->b, p->join);
    LLVMPositionBuilderAtEnd(s->b, p->other);
}

/* Joins the paths; the value of the one taken (NULL for stores). */
static LLVMValueRef join_paths(simd_fn *s, run_paths *p, LLVMValueRef lanes_value)
{
    LLVMBasicBlockRef lanes_end = LLVMGetInsertBlock(s->b);
    LLVMBuildBr(s->b, p->join);
    LLVMPositionBuilderAtEnd(s->b, p->join);
    if (!lanes_value)
        return NULL;
    LLVMValueRef r = LLVMBuildPhi(s->b, LLVMTypeOf(lanes_value), "");
    LLVMAddIncoming(r, (LLVMValueRef[]){ p->run_value, lanes_value }, (LLVMBasicBlockRef[]){ p->run_end, lanes_end },
                    2);
    return r;
}

/* One element per lane of scalar type t from address a (affine or varying). */
static LLVMValueRef load_lanes(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMTypeRef t, unsigned align)
{
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1)
        return LLVMBuildTrunc(s->b, load_lanes(s, a, sp, NULL, s->t_i8, align), s->t_mask, "");
    LLVMTypeRef vt = LLVMVectorType(t, s->W);
    LLVMValueRef base = NULL, ok = NULL, ptrs = NULL;
    switch (lanes_in_a_run(s, a, sp, g, t, LLVMABISizeOfType(s->td, t), &base, &ok, &ptrs)) {
    case RUN_ALWAYS:
        return contiguous_load(s, base, vt, align);
    case RUN_NEVER:
        return gather(s, lane_pointers(s, a, sp), vt, align);
    case RUN_TESTED:
        break;
    }
    run_paths p;
    run_path(s, ok, &p, "gather");
    lanes_path(s, &p, contiguous_load(s, base, vt, align));
    return join_paths(s, &p, gather(s, lanes_here(s, ptrs), vt, align));
}

static void store_lanes(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMValueRef v, LLVMTypeRef t,
                        unsigned align)
{
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1) {
        store_lanes(s, a, sp, NULL, LLVMBuildZExt(s->b, v, LLVMVectorType(s->t_i8, s->W), ""), s->t_i8, align);
        return;
    }
    LLVMValueRef base = NULL, ok = NULL, ptrs = NULL;
    switch (lanes_in_a_run(s, a, sp, g, t, LLVMABISizeOfType(s->td, t), &base, &ok, &ptrs)) {
    case RUN_ALWAYS:
        contiguous_store(s, v, base, align);
        return;
    case RUN_NEVER:
        scatter(s, v, lane_pointers(s, a, sp), align);
        return;
    case RUN_TESTED:
        break;
    }
    run_paths p;
    run_path(s, ok, &p, "scatter");
    contiguous_store(s, v, base, align);
    lanes_path(s, &p, NULL);
    scatter(s, v, lanes_here(s, ptrs), align);
    join_paths(s, &p, NULL);
}

static unsigned member_align(unsigned align, uint64_t off)
{
    unsigned a = align ? align : 1;
    while (a > 1 && off % a)
        a /= 2;
    return a;
}

/* g moved `bytes` further (into *moved), or NULL. */
static const guarded *guard_offset(simd_fn *s, const guarded *g, uint64_t bytes, guarded *moved)
{
    if (!g)
        return NULL;
    *moved = *g;
    if (bytes)
        moved->base =
            LLVMBuildGEP2(s->b, s->t_i8, g->base, (LLVMValueRef[]){ LLVMConstInt(s->t_i64, bytes, 0) }, 1, "");
    return moved;
}

/* --- vectors in a row, one per lane ---------------------------------------------------------------- */

/* The most elements an interleaved access moves at once (W lanes of n). */
enum { MAX_INTERLEAVED = 256 };

/* How many elements vector t has when it is W-fold in a row: lane l's
 * element k at element l × n + k of the sub-group's copies, size(t) apart.
 * Its elements must pack and fill it (a 3-element vector's padding is not
 * its own: a row of them is not one of elements), and the row must be no
 * longer than MAX_INTERLEAVED.  0 when not.  (The vectorizer's preparing
 * passes split loads and stores of structs and arrays into their members.) */
static unsigned row_elements(simd_fn *s, LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return 0;
    LLVMTypeRef e = LLVMGetElementType(t);
    unsigned n = LLVMGetVectorSize(t);
    bool bit = LLVMGetTypeKind(e) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(e) == 1;
    return n >= 2 && n * s->W <= MAX_INTERLEAVED && !bit && packs(s, e) &&
                   n * LLVMStoreSizeOfType(s->td, e) == LLVMABISizeOfType(s->td, t)
               ? n
               : 0;
}

/* The sub-group's mask for the W × n elements: each lane's bit n times. */
static LLVMValueRef interleaved_mask(simd_fn *s, unsigned n)
{
    LLVMValueRef m[MAX_INTERLEAVED];
    for (unsigned j = 0; j < s->W * n; j++)
        m[j] = LLVMConstInt(s->t_i32, j / n, 0);
    return LLVMBuildShuffleVector(s->b, s->mask, LLVMGetPoison(s->t_mask), LLVMConstVector(m, s->W * n), "");
}

/* Vector t's lanes from a row of W × n elements at base: one masked load of
 * them all, element k's lanes every n-th (LLVM's shuffles; a gather per
 * element took every lane's apart: an int4 per work-item was four). */
static LLVMValueRef load_interleaved(simd_fn *s, LLVMValueRef base, LLVMTypeRef t, unsigned n, unsigned align)
{
    LLVMTypeRef all = LLVMVectorType(LLVMGetElementType(t), s->W * n);
    LLVMTypeRef ty[2] = { all, s->t_ptr };
    LLVMValueRef a[4] = { base, align_const(s, align), interleaved_mask(s, n), LLVMGetPoison(all) };
    LLVMValueRef row = simd_intrinsic(s, "llvm.masked.load", ty, 2, a, 4);
    LLVMValueRef r = LLVMGetPoison(jit_simd_widen_type(t, s->W));
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef m[MAX_INTERLEAVED];
        for (unsigned l = 0; l < s->W; l++)
            m[l] = LLVMConstInt(s->t_i32, l * n + k, 0);
        LLVMValueRef element = LLVMBuildShuffleVector(s->b, row, LLVMGetPoison(all), LLVMConstVector(m, s->W), "");
        r = LLVMBuildInsertValue(s->b, r, element, k, "");
    }
    return r;
}

/* The active lanes of widened v (vector type t) to a row of W × n elements
 * at base: the elements' lanes interleaved, one masked store. */
static void store_interleaved(simd_fn *s, LLVMValueRef v, LLVMValueRef base, LLVMTypeRef t, unsigned n, unsigned align)
{
    unsigned len = s->W * n;
    LLVMTypeRef all = LLVMVectorType(LLVMGetElementType(t), len);
    LLVMValueRef row = NULL;
    for (unsigned k = 0; k < n; k++) {
        /* element k's lanes at k, k + n, ...; then the row so far with them */
        LLVMValueRef m[MAX_INTERLEAVED], keep[MAX_INTERLEAVED];
        for (unsigned j = 0; j < len; j++) {
            bool mine = j % n == k;
            m[j] = mine ? LLVMConstInt(s->t_i32, j / n, 0) : LLVMGetPoison(s->t_i32);
            keep[j] = LLVMConstInt(s->t_i32, mine ? len + j : j, 0);
        }
        LLVMValueRef element = LLVMBuildExtractValue(s->b, v, k, "");
        LLVMValueRef spread =
            LLVMBuildShuffleVector(s->b, element, LLVMGetPoison(LLVMTypeOf(element)), LLVMConstVector(m, len), "");
        row = row ? LLVMBuildShuffleVector(s->b, row, spread, LLVMConstVector(keep, len), "") : spread;
    }
    LLVMTypeRef ty[2] = { all, s->t_ptr };
    LLVMValueRef a[4] = { row, base, align_const(s, align), interleaved_mask(s, n) };
    simd_intrinsic(s, "llvm.masked.store", ty, 2, a, 4);
}

static LLVMValueRef load_widened(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMTypeRef t,
                                 unsigned align);
static bool store_widened(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMValueRef v, LLVMTypeRef t,
                          unsigned align);

/* A widened value of aggregate type t from address a, member by member. */
static LLVMValueRef load_members(simd_fn *s, simd_val a, const guarded *g, LLVMTypeRef t, unsigned align)
{
    uint64_t off[MAX_MEMBERS];
    LLVMTypeRef mt[MAX_MEMBERS];
    int n = mem_members(s, t, off, mt, MAX_MEMBERS);
    if (n < 0)
        return NULL;
    LLVMValueRef r = LLVMGetPoison(jit_simd_widen_type(t, s->W));
    for (unsigned k = 0; k < (unsigned)n; k++) {
        guarded moved;
        LLVMValueRef x = load_widened(s, offset(s, a, off[k]), NULL, guard_offset(s, g, off[k], &moved), mt[k],
                                      member_align(align, off[k]));
        if (!x)
            return NULL;
        r = LLVMBuildInsertValue(s->b, r, x, k, "");
    }
    return r;
}

/* A widened value of type t from address a (not uniform): a vector's lanes
 * in a row as one run when they may be (row_elements), else member by
 * member (a gather each where the row is not known to be one). */
static LLVMValueRef load_widened(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMTypeRef t,
                                 unsigned align)
{
    if (!is_aggregate(t))
        return load_lanes(s, a, sp, g, t, align);
    unsigned per_lane = row_elements(s, t);
    LLVMValueRef base = NULL, ok = NULL, ptrs = NULL;
    run_kind run =
        per_lane ? lanes_in_a_run(s, a, sp, g, t, LLVMABISizeOfType(s->td, t), &base, &ok, &ptrs) : RUN_NEVER;
    if (run == RUN_ALWAYS)
        return load_interleaved(s, base, t, per_lane, align);
    if (run == RUN_NEVER)
        return load_members(s, a, g, t, align);
    run_paths p;
    run_path(s, ok, &p, "gather");
    lanes_path(s, &p, load_interleaved(s, base, t, per_lane, align));
    return join_paths(s, &p, load_members(s, a, g, t, align));
}

static bool store_members(simd_fn *s, simd_val a, const guarded *g, LLVMValueRef v, LLVMTypeRef t, unsigned align)
{
    uint64_t off[MAX_MEMBERS];
    LLVMTypeRef mt[MAX_MEMBERS];
    int n = mem_members(s, t, off, mt, MAX_MEMBERS);
    if (n < 0)
        return false;
    for (unsigned k = 0; k < (unsigned)n; k++) {
        guarded moved;
        if (!store_widened(s, offset(s, a, off[k]), NULL, guard_offset(s, g, off[k], &moved),
                           LLVMBuildExtractValue(s->b, v, k, ""), mt[k], member_align(align, off[k])))
            return false;
    }
    return true;
}

static bool store_widened(simd_fn *s, simd_val a, LLVMValueRef sp, const guarded *g, LLVMValueRef v, LLVMTypeRef t,
                          unsigned align)
{
    if (!is_aggregate(t)) {
        store_lanes(s, a, sp, g, v, t, align);
        return true;
    }
    unsigned per_lane = row_elements(s, t);
    LLVMValueRef base = NULL, ok = NULL, ptrs = NULL;
    run_kind run =
        per_lane ? lanes_in_a_run(s, a, sp, g, t, LLVMABISizeOfType(s->td, t), &base, &ok, &ptrs) : RUN_NEVER;
    if (run == RUN_ALWAYS) {
        store_interleaved(s, v, base, t, per_lane, align);
        return true;
    }
    if (run == RUN_NEVER)
        return store_members(s, a, g, v, t, align);
    run_paths p;
    run_path(s, ok, &p, "scatter");
    store_interleaved(s, v, base, t, per_lane, align);
    lanes_path(s, &p, NULL);
    bool done = store_members(s, a, g, v, t, align); /* a vector's members: never refused */
    join_paths(s, &p, NULL);
    return done;
}

/* --- the instructions ----------------------------------------------------------------------------- */

static bool ordinary(LLVMValueRef in)
{
    return !LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic;
}

/* Whether access `in` carries metadata `kind` (jit.h's JIT_*_MD). */
static bool marked(simd_fn *s, LLVMValueRef in, const char *kind)
{
    return LLVMGetMetadata(in, LLVMGetMDKindIDInContext(s->llc, kind, (unsigned)strlen(kind))) != NULL;
}

/* The guarded form of the address p (value a) of access `in`, when it has one. */
static const guarded *access_guard(simd_fn *s, LLVMValueRef in, LLVMValueRef p, simd_val a, guarded *g)
{
    return a.sh.kind == SIMD_VARYING && a.sh.hint && simd_guarded_address(s, p, marked(s, in, JIT_INBOUNDS_MD), g)
               ? g
               : NULL;
}

static int clone_scalar(simd_fn *s, LLVMValueRef in, simd_shape sh)
{
    LLVMValueRef c = LLVMInstructionClone(in);
    for (int k = 0, n = LLVMGetNumOperands(in); k < n; k++)
        LLVMSetOperand(c, k, simd_get(s, LLVMGetOperand(in, k)).v);
    LLVMInsertIntoBuilder(s->b, c);
    if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind)
        simd_set(s, in, (simd_val){ sh, c });
    return s->rc;
}

int simd_emit_load(simd_fn *s, LLVMValueRef in)
{
    simd_val a = simd_get(s, LLVMGetOperand(in, 0));
    simd_shape sh = simd_shape_of(s, in);
    if (!ordinary(in))
        return simd_per_lane(s, in);
    if (a.sh.kind == SIMD_UNIFORM) {
        if (sh.kind != SIMD_UNIFORM)
            return simd_fail(s, "a load from a uniform address that varies");
        return clone_scalar(s, in, sh);
    }
    if (sh.kind != SIMD_VARYING)
        return simd_fail(s, "a uniform load from a varying address");
    guarded g;
    LLVMValueRef p = LLVMGetOperand(in, 0);
    s->wg_access = marked(s, in, JIT_WG_MD);
    LLVMValueRef r = load_widened(s, a, p, access_guard(s, in, p, a, &g), LLVMTypeOf(in), LLVMGetAlignment(in));
    s->wg_access = false;
    if (!r)
        return simd_per_lane(s, in);
    simd_set(s, in, (simd_val){ sh, r });
    return s->rc;
}

int simd_emit_store(simd_fn *s, LLVMValueRef in)
{
    LLVMValueRef val = LLVMGetOperand(in, 0);
    simd_val a = simd_get(s, LLVMGetOperand(in, 1)), v = simd_get(s, val);
    LLVMTypeRef t = LLVMTypeOf(val);
    if (!ordinary(in))
        return simd_per_lane(s, in);
    if (a.sh.kind == SIMD_UNIFORM) {
        if (v.sh.kind == SIMD_UNIFORM)
            return clone_scalar(s, in, v.sh);
        /* every active lane stores to one address: the last one's value stays */
        LLVMTypeRef iw = LLVMIntTypeInContext(s->llc, s->W);
        LLVMValueRef lz =
            simd_intrinsic(s, "llvm.ctlz", &iw, 1, (LLVMValueRef[]){ mask_bits(s), LLVMConstInt(s->t_i1, 1, 0) }, 2);
        LLVMValueRef last = LLVMBuildSub(s->b, LLVMConstInt(iw, s->W - 1, 0), lz, "");
        LLVMValueRef lane = LLVMBuildZExtOrBitCast(s->b, last, s->t_i32, "");
        if (s->W > 32)
            lane = LLVMBuildTrunc(s->b, last, s->t_i32, "");
        LLVMValueRef c = LLVMInstructionClone(in);
        LLVMSetOperand(c, 0, simd_lane(s, v, t, lane));
        LLVMSetOperand(c, 1, a.v);
        LLVMInsertIntoBuilder(s->b, c);
        return s->rc;
    }
    guarded g;
    LLVMValueRef p = LLVMGetOperand(in, 1);
    s->wg_access = marked(s, in, JIT_WG_MD);
    bool done = store_widened(s, a, p, access_guard(s, in, p, a, &g), simd_widened(s, v, t), t, LLVMGetAlignment(in));
    s->wg_access = false;
    if (!done)
        return simd_per_lane(s, in);
    return s->rc;
}

uint64_t simd_private_stride(const simd_fn *s, LLVMValueRef alloca)
{
    uint64_t n = LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0));
    uint64_t size = n * LLVMABISizeOfType(s->td, LLVMGetAllocatedType(alloca));
    uint64_t align = LLVMGetAlignment(alloca) ? LLVMGetAlignment(alloca) : 1;
    size = (size + align - 1) / align * align;
    return size ? size : align;
}
