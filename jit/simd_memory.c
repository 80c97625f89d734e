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
 * alone, no extension wraps: guarded_address); otherwise it compares the
 * lanes' pointers with the first active lane's (contiguity_test).
 * Aggregates and LLVM vectors are accessed member by member; volatile and
 * atomic accesses run once per active lane, in lane order.
 *
 * Private memory (the scalar function's allocas) gets one copy per lane,
 * `simd_private_stride` bytes apart, so its address is affine. */
#include "simd_internal.h"

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

static LLVMValueRef masked_load(simd_fn *s, LLVMValueRef base, LLVMTypeRef vt, unsigned align)
{
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

static void masked_store(simd_fn *s, LLVMValueRef v, LLVMValueRef base, unsigned align)
{
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

/* An address computed from affine and uniform values through clamps and
 * extensions (a clamp-to-edge index in i32 arithmetic, say) is affine too
 * when each clamp leaves every lane's value alone and no extension wraps
 * within the lanes: scalar comparisons on lanes 0 and W - 1 that `guard`
 * collects.  Then the access is one vector access at `base` (lane 0's
 * address), under the guard; the gather or scatter otherwise. */
typedef struct guarded {
    LLVMValueRef guard; /* i1: the lanes' addresses are base + l * stride */
    LLVMValueRef base;  /* lane 0's address */
    int64_t stride;
} guarded;

/* An integer (or pointer) whose lane l is v0 + l * stride, under the guard so far. */
typedef struct lanes {
    LLVMValueRef v0;
    int64_t stride;
} lanes;

enum { GUARD_DEPTH = 16, MAX_STRIDE = 1 << 20 };

static void add_guard(simd_fn *s, LLVMValueRef *guard, LLVMValueRef c)
{
    *guard = *guard ? LLVMBuildAnd(s->b, *guard, c, "") : c;
}

/* Lane W - 1's value of integer l (modular). */
static LLVMValueRef last_lane(simd_fn *s, lanes l)
{
    LLVMTypeRef t = LLVMTypeOf(l.v0);
    return LLVMBuildAdd(s->b, l.v0, LLVMConstInt(t, (unsigned long long)(l.stride * (int64_t)(s->W - 1)), 1), "");
}

/* The lanes' values do not wrap around in the signed (or unsigned) sense:
 * lane W - 1 lies on the side of lane 0 the stride points to. */
static void no_wrap(simd_fn *s, lanes l, bool is_signed, LLVMValueRef *guard)
{
    if (!l.stride)
        return;
    LLVMValueRef last = last_lane(s, l);
    LLVMIntPredicate p = l.stride > 0 ? (is_signed ? LLVMIntSGT : LLVMIntUGT) : (is_signed ? LLVMIntSLT : LLVMIntULT);
    add_guard(s, guard, LLVMBuildICmp(s->b, p, last, l.v0, ""));
}

static bool eval_lanes(simd_fn *s, LLVMValueRef v, lanes *out, LLVMValueRef *guard, int depth);

/* smax / smin / umax / umin (x, u) with u the same in every lane: x itself
 * when the clamp does nothing to any lane. */
static bool eval_clamp(simd_fn *s, LLVMValueRef call, const char *name, lanes *out, LLVMValueRef *guard, int depth)
{
    bool is_signed = name[5] == 's', is_max = !strncmp(name + 6, "max", 3);
    lanes a, b;
    if (!eval_lanes(s, LLVMGetOperand(call, 0), &a, guard, depth) ||
        !eval_lanes(s, LLVMGetOperand(call, 1), &b, guard, depth))
        return false;
    if (a.stride && b.stride)
        return false;
    if (!a.stride && !b.stride) {
        LLVMTypeRef t = LLVMTypeOf(a.v0);
        out->v0 = simd_intrinsic(s, name, &t, 1, (LLVMValueRef[]){ a.v0, b.v0 }, 2);
        out->stride = 0;
        return true;
    }
    lanes x = a.stride ? a : b, u = a.stride ? b : a;
    no_wrap(s, x, is_signed, guard);
    /* max(x, u) = x when the smallest lane is >= u; min(x, u) = x when the largest is <= u */
    bool lane0_smallest = x.stride > 0;
    LLVMValueRef extreme = (is_max == lane0_smallest) ? x.v0 : last_lane(s, x);
    LLVMIntPredicate p = is_max ? (is_signed ? LLVMIntSGE : LLVMIntUGE) : (is_signed ? LLVMIntSLE : LLVMIntULE);
    add_guard(s, guard, LLVMBuildICmp(s->b, p, extreme, u.v0, ""));
    *out = x;
    return true;
}

/* v's lanes as lane 0 and a stride, from the affine and uniform values it is
 * computed from, the conditions for it in *guard; false when it is not so. */
static bool eval_lanes(simd_fn *s, LLVMValueRef v, lanes *out, LLVMValueRef *guard, int depth)
{
    if (depth > GUARD_DEPTH)
        return false;
    if (simd_available(s, v)) {
        simd_val x = simd_get(s, v);
        if (x.sh.kind == SIMD_UNIFORM ||
            (x.sh.kind == SIMD_AFFINE && LLVMGetTypeKind(LLVMTypeOf(x.v)) != LLVMVectorTypeKind)) {
            *out = (lanes){ x.v, x.sh.kind == SIMD_AFFINE ? x.sh.stride : 0 };
            return true;
        }
    }
    if (!LLVMIsAInstruction(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
        return false;
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    lanes a, b;
    switch (op) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMOr: {
        if (op == LLVMOr && !LLVMGetIsDisjoint(v))
            return false;
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, guard, depth + 1) ||
            !eval_lanes(s, LLVMGetOperand(v, 1), &b, guard, depth + 1))
            return false;
        bool sub = op == LLVMSub;
        out->stride = sub ? a.stride - b.stride : a.stride + b.stride;
        out->v0 = sub ? LLVMBuildSub(s->b, a.v0, b.v0, "") : LLVMBuildAdd(s->b, a.v0, b.v0, "");
        return out->stride > -MAX_STRIDE && out->stride < MAX_STRIDE;
    }
    case LLVMMul:
    case LLVMShl: {
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, guard, depth + 1) ||
            !eval_lanes(s, LLVMGetOperand(v, 1), &b, guard, depth + 1))
            return false;
        if (op == LLVMShl) {
            if (b.stride || !LLVMIsAConstantInt(b.v0) || LLVMConstIntGetZExtValue(b.v0) > 20)
                return false;
            out->stride = a.stride * ((int64_t)1 << LLVMConstIntGetZExtValue(b.v0));
            out->v0 = LLVMBuildShl(s->b, a.v0, b.v0, "");
        } else {
            if (a.stride && b.stride)
                return false;
            lanes x = a.stride ? a : b, k = a.stride ? b : a;
            if (x.stride) {
                if (!LLVMIsAConstantInt(k.v0))
                    return false;
                int64_t c = LLVMConstIntGetSExtValue(k.v0);
                if (c <= -MAX_STRIDE || c >= MAX_STRIDE)
                    return false;
                out->stride = x.stride * c;
            } else {
                out->stride = 0;
            }
            out->v0 = LLVMBuildMul(s->b, a.v0, b.v0, "");
        }
        return out->stride > -MAX_STRIDE && out->stride < MAX_STRIDE;
    }
    case LLVMSExt:
    case LLVMZExt:
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, guard, depth + 1))
            return false;
        no_wrap(s, a, op == LLVMSExt, guard);
        *out = (lanes){ LLVMBuildCast(s->b, op, a.v0, LLVMTypeOf(v), ""), a.stride };
        return true;
    case LLVMTrunc:
        if (!eval_lanes(s, LLVMGetOperand(v, 0), &a, guard, depth + 1))
            return false;
        *out = (lanes){ LLVMBuildTrunc(s->b, a.v0, LLVMTypeOf(v), ""), a.stride };
        return true;
    case LLVMCall: {
        LLVMValueRef f = LLVMGetCalledValue(v);
        size_t len;
        const char *name = LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : NULL;
        if (!name || (strncmp(name, "llvm.smax.", 10) && strncmp(name, "llvm.smin.", 10) &&
                      strncmp(name, "llvm.umax.", 10) && strncmp(name, "llvm.umin.", 10)))
            return false;
        char base[16];
        memcpy(base, name, 9);
        base[9] = 0;
        return eval_clamp(s, v, base, out, guard, depth + 1);
    }
    default:
        return false;
    }
}

/* The guarded form of scalar address p: a GEP of a uniform (or guarded)
 * base by guarded indices. */
static bool guarded_address(simd_fn *s, LLVMValueRef p, guarded *g)
{
    if (!LLVMIsAGetElementPtrInst(p) || !simd_available(s, LLVMGetOperand(p, 0)))
        return false;
    simd_val base = simd_get(s, LLVMGetOperand(p, 0));
    if (base.sh.kind != SIMD_UNIFORM)
        return false;
    LLVMValueRef guard = NULL, addr = base.v;
    int64_t stride = 0;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(p);
    for (unsigned k = 1, n = (unsigned)LLVMGetNumOperands(p); k < n; k++) {
        LLVMValueRef idx = LLVMGetOperand(p, k);
        if (k > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) { /* a field: a constant offset */
            if (!LLVMIsAConstantInt(idx))
                return false;
            unsigned field = (unsigned)LLVMConstIntGetZExtValue(idx);
            addr = LLVMBuildGEP2(s->b, s->t_i8, addr,
                                 (LLVMValueRef[]){ LLVMConstInt(s->t_i64, LLVMOffsetOfElement(s->td, t, field), 0) }, 1,
                                 "");
            t = LLVMStructGetTypeAtIndex(t, field);
            continue;
        }
        if (k > 1) {
            if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
                return false;
            t = LLVMGetElementType(t);
        }
        lanes l;
        if (!eval_lanes(s, idx, &l, &guard, 0) || LLVMGetTypeKind(LLVMTypeOf(l.v0)) != LLVMIntegerTypeKind)
            return false;
        int64_t size = (int64_t)LLVMABISizeOfType(s->td, t);
        if (LLVMGetIntTypeWidth(LLVMTypeOf(l.v0)) < 64) { /* a GEP sign-extends its indices */
            no_wrap(s, l, true, &guard);
            l.v0 = LLVMBuildSExt(s->b, l.v0, s->t_i64, "");
        }
        addr = LLVMBuildGEP2(s->b, s->t_i8, addr,
                             (LLVMValueRef[]){
                                 LLVMBuildMul(s->b, l.v0, LLVMConstInt(s->t_i64, (unsigned long long)size, 1), "") },
                             1, "");
        stride += l.stride * size;
        if (stride <= -MAX_STRIDE || stride >= MAX_STRIDE)
            return false;
    }
    g->guard = guard ? guard : LLVMConstInt(s->t_i1, 1, 0);
    g->base = addr;
    g->stride = stride;
    return true;
}

/* One element per lane of scalar type t from address a (affine or varying). */
static LLVMValueRef load_lanes(simd_fn *s, simd_val a, const guarded *g, LLVMTypeRef t, unsigned align)
{
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1)
        return LLVMBuildTrunc(s->b, load_lanes(s, a, NULL, s->t_i8, align), s->t_mask, "");
    LLVMTypeRef vt = LLVMVectorType(t, s->W);
    uint64_t size = LLVMABISizeOfType(s->td, t);
    if (a.sh.kind == SIMD_AFFINE && (uint64_t)a.sh.stride == size && packs(s, t))
        return masked_load(s, a.v, vt, align);
    LLVMValueRef ptrs = simd_widened(s, a, s->t_ptr);
    if (a.sh.kind != SIMD_VARYING || !a.sh.hint || !packs(s, t) || (g && (uint64_t)g->stride != size))
        return gather(s, ptrs, vt, align);
    LLVMValueRef base, ok = g ? g->guard : contiguity_test(s, ptrs, size, &base);
    if (g)
        base = g->base;
    LLVMBasicBlockRef fast = simd_block(s, "contiguous"), slow = simd_block(s, "gather"), join = simd_block(s, "");
    LLVMBuildCondBr(s->b, ok, fast, slow);
    LLVMPositionBuilderAtEnd(s->b, fast);
    LLVMValueRef vf = masked_load(s, base, vt, align);
    LLVMBuildBr(s->b, join);
    LLVMPositionBuilderAtEnd(s->b, slow);
    LLVMValueRef vs = gather(s, ptrs, vt, align);
    LLVMBuildBr(s->b, join);
    LLVMPositionBuilderAtEnd(s->b, join);
    LLVMValueRef r = LLVMBuildPhi(s->b, vt, "");
    LLVMAddIncoming(r, (LLVMValueRef[]){ vf, vs }, (LLVMBasicBlockRef[]){ fast, slow }, 2);
    return r;
}

static void store_lanes(simd_fn *s, simd_val a, const guarded *g, LLVMValueRef v, LLVMTypeRef t, unsigned align)
{
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) == 1) {
        store_lanes(s, a, NULL, LLVMBuildZExt(s->b, v, LLVMVectorType(s->t_i8, s->W), ""), s->t_i8, align);
        return;
    }
    uint64_t size = LLVMABISizeOfType(s->td, t);
    if (a.sh.kind == SIMD_AFFINE && (uint64_t)a.sh.stride == size && packs(s, t)) {
        masked_store(s, v, a.v, align);
        return;
    }
    LLVMValueRef ptrs = simd_widened(s, a, s->t_ptr);
    if (a.sh.kind != SIMD_VARYING || !a.sh.hint || !packs(s, t) || (g && (uint64_t)g->stride != size)) {
        scatter(s, v, ptrs, align);
        return;
    }
    LLVMValueRef base, ok = g ? g->guard : contiguity_test(s, ptrs, size, &base);
    if (g)
        base = g->base;
    LLVMBasicBlockRef fast = simd_block(s, "contiguous"), slow = simd_block(s, "scatter"), join = simd_block(s, "");
    LLVMBuildCondBr(s->b, ok, fast, slow);
    LLVMPositionBuilderAtEnd(s->b, fast);
    masked_store(s, v, base, align);
    LLVMBuildBr(s->b, join);
    LLVMPositionBuilderAtEnd(s->b, slow);
    scatter(s, v, ptrs, align);
    LLVMBuildBr(s->b, join);
    LLVMPositionBuilderAtEnd(s->b, join);
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

/* A widened value of type t from address a (not uniform). */
static LLVMValueRef load_widened(simd_fn *s, simd_val a, const guarded *g, LLVMTypeRef t, unsigned align)
{
    if (!is_aggregate(t))
        return load_lanes(s, a, g, t, align);
    uint64_t off[MAX_MEMBERS];
    LLVMTypeRef mt[MAX_MEMBERS];
    int n = mem_members(s, t, off, mt, MAX_MEMBERS);
    if (n < 0)
        return NULL;
    LLVMValueRef r = LLVMGetPoison(jit_simd_widen_type(t, s->W));
    for (unsigned k = 0; k < (unsigned)n; k++) {
        guarded moved;
        LLVMValueRef x = load_widened(s, offset(s, a, off[k]), guard_offset(s, g, off[k], &moved), mt[k],
                                      member_align(align, off[k]));
        if (!x)
            return NULL;
        r = LLVMBuildInsertValue(s->b, r, x, k, "");
    }
    return r;
}

static bool store_widened(simd_fn *s, simd_val a, const guarded *g, LLVMValueRef v, LLVMTypeRef t, unsigned align)
{
    if (!is_aggregate(t)) {
        store_lanes(s, a, g, v, t, align);
        return true;
    }
    uint64_t off[MAX_MEMBERS];
    LLVMTypeRef mt[MAX_MEMBERS];
    int n = mem_members(s, t, off, mt, MAX_MEMBERS);
    if (n < 0)
        return false;
    for (unsigned k = 0; k < (unsigned)n; k++) {
        guarded moved;
        if (!store_widened(s, offset(s, a, off[k]), guard_offset(s, g, off[k], &moved),
                           LLVMBuildExtractValue(s->b, v, k, ""), mt[k], member_align(align, off[k])))
            return false;
    }
    return true;
}

/* --- the instructions ----------------------------------------------------------------------------- */

static bool ordinary(LLVMValueRef in)
{
    return !LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic;
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
    bool have_g = a.sh.kind == SIMD_VARYING && a.sh.hint && guarded_address(s, LLVMGetOperand(in, 0), &g);
    LLVMValueRef r = load_widened(s, a, have_g ? &g : NULL, LLVMTypeOf(in), LLVMGetAlignment(in));
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
    bool have_g = a.sh.kind == SIMD_VARYING && a.sh.hint && guarded_address(s, LLVMGetOperand(in, 1), &g);
    if (!store_widened(s, a, have_g ? &g : NULL, simd_widened(s, v, t), t, LLVMGetAlignment(in)))
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
