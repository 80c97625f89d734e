/* jit/simd_subgroup.c — the sub-group markers (sg_marker.h) over the lanes
 * active at the call (the block's mask).
 *
 * Inactive lanes hold the operation's identity before anything is combined.
 * Reductions of floating-point sums and products combine halves (lane i with
 * lane i + W/2, then i + W/4, ...), inclusive scans add the lanes d below for
 * d = 1, 2, 4, ... (Hillis–Steele), clustered reductions exchange with lane
 * i ^ d for d = 1, 2, ... up to the cluster (a butterfly): the order a
 * reference must follow to get the same rounding.  Shuffles with an index
 * known at compile time are one shufflevector; others read the lanes through
 * memory. */
#include "simd_internal.h"

#include "sg_marker.h"

static LLVMValueRef bits(simd_fn *s, LLVMValueRef mask)
{
    return LLVMBuildBitCast(s->b, mask, LLVMIntTypeInContext(s->llc, s->W), "");
}

static LLVMValueRef to_i32(simd_fn *s, LLVMValueRef x)
{
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(x));
    return w > 32 ? LLVMBuildTrunc(s->b, x, s->t_i32, "") : w < 32 ? LLVMBuildZExt(s->b, x, s->t_i32, "") : x;
}

static LLVMValueRef count_lanes(simd_fn *s, LLVMValueRef mask)
{
    LLVMValueRef b = bits(s, mask);
    LLVMTypeRef t = LLVMTypeOf(b);
    return to_i32(s, simd_intrinsic(s, "llvm.ctpop", &t, 1, &b, 1));
}

static LLVMValueRef first_lane(simd_fn *s)
{
    LLVMValueRef b = bits(s, s->mask);
    LLVMTypeRef t = LLVMTypeOf(b);
    return to_i32(s, simd_intrinsic(s, "llvm.cttz", &t, 1, (LLVMValueRef[]){ b, LLVMConstInt(s->t_i1, 1, 0) }, 2));
}

/* x of every lane moved by a constant lane map (src[i] < W: lane src[i] of x;
 * otherwise the corresponding lane of `fill`). */
static LLVMValueRef permute(simd_fn *s, LLVMValueRef x, LLVMValueRef fill, const int *src)
{
    LLVMValueRef m[JIT_SIMD_MAX_WIDTH];
    for (unsigned i = 0; i < s->W; i++)
        m[i] = LLVMConstInt(s->t_i32, src[i] >= 0 ? (unsigned)src[i] : s->W + i, 0);
    return LLVMBuildShuffleVector(s->b, x, fill, LLVMConstVector(m, s->W), "");
}

static LLVMValueRef combine(simd_fn *s, jit_sg_arith op, LLVMValueRef a, LLVMValueRef b)
{
    return jit_sg_combine(s->b, s->mod, op, a, b);
}

/* x with the identity in the inactive lanes. */
static LLVMValueRef active_only(simd_fn *s, jit_sg_arith op, LLVMValueRef x)
{
    return LLVMBuildSelect(s->b, s->mask, x, jit_sg_identity(op, LLVMTypeOf(x)), "");
}

static LLVMValueRef reduce(simd_fn *s, jit_sg_arith op, LLVMValueRef x)
{
    int src[JIT_SIMD_MAX_WIDTH];
    x = active_only(s, op, x);
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(x));
    if (op != JIT_SG_FADD && op != JIT_SG_FMUL) {
        static const char *const names[JIT_SG_NARITH] = {
            [JIT_SG_ADD] = "llvm.vector.reduce.add",   [JIT_SG_MUL] = "llvm.vector.reduce.mul",
            [JIT_SG_SMIN] = "llvm.vector.reduce.smin", [JIT_SG_UMIN] = "llvm.vector.reduce.umin",
            [JIT_SG_FMIN] = "llvm.vector.reduce.fmin", [JIT_SG_SMAX] = "llvm.vector.reduce.smax",
            [JIT_SG_UMAX] = "llvm.vector.reduce.umax", [JIT_SG_FMAX] = "llvm.vector.reduce.fmax",
            [JIT_SG_AND] = "llvm.vector.reduce.and",   [JIT_SG_OR] = "llvm.vector.reduce.or",
            [JIT_SG_XOR] = "llvm.vector.reduce.xor",
        };
        LLVMTypeRef vt = LLVMTypeOf(x);
        return simd_intrinsic(s, names[op], &vt, 1, &x, 1);
    }
    /* halves: a fixed tree */
    for (unsigned h = s->W / 2; h >= 1; h /= 2) {
        for (unsigned i = 0; i < s->W; i++)
            src[i] = i < h ? (int)(i + h) : -1;
        LLVMValueRef hi = permute(s, x, LLVMGetPoison(LLVMTypeOf(x)), src);
        x = combine(s, op, x, hi);
    }
    (void)et;
    return LLVMBuildExtractElement(s->b, x, LLVMConstInt(s->t_i32, 0, 0), "");
}

static LLVMValueRef scan_inclusive(simd_fn *s, jit_sg_arith op, LLVMValueRef x)
{
    int src[JIT_SIMD_MAX_WIDTH];
    LLVMValueRef id = jit_sg_identity(op, LLVMTypeOf(x));
    for (unsigned d = 1; d < s->W; d *= 2) {
        for (unsigned i = 0; i < s->W; i++)
            src[i] = i >= d ? (int)(i - d) : -1;
        x = combine(s, op, permute(s, x, id, src), x);
    }
    return x;
}

static LLVMValueRef clustered(simd_fn *s, jit_sg_arith op, LLVMValueRef x, unsigned cluster)
{
    int src[JIT_SIMD_MAX_WIDTH];
    for (unsigned d = 1; d < cluster && d < s->W; d *= 2) {
        for (unsigned i = 0; i < s->W; i++)
            src[i] = (int)(i ^ d);
        x = combine(s, op, x, permute(s, x, LLVMGetPoison(LLVMTypeOf(x)), src));
    }
    return x;
}

/* Lane idx[i] of x for every lane i (idx widened, i32). */
static LLVMValueRef shuffle(simd_fn *s, LLVMValueRef x, LLVMValueRef idx)
{
    idx = LLVMBuildAnd(s->b, idx, simd_splat(s, LLVMConstInt(s->t_i32, s->W - 1, 0)), "");
    if (LLVMIsAConstant(idx)) {
        int src[JIT_SIMD_MAX_WIDTH];
        for (unsigned i = 0; i < s->W; i++) {
            LLVMValueRef e = LLVMGetAggregateElement(idx, i);
            src[i] = e && LLVMIsAConstantInt(e) ? (int)LLVMConstIntGetZExtValue(e) : 0;
        }
        return permute(s, x, LLVMGetPoison(LLVMTypeOf(x)), src);
    }
    /* through memory: every lane reads its source lane */
    LLVMTypeRef vt = LLVMTypeOf(x), et = LLVMGetElementType(vt);
    LLVMValueRef mem = simd_alloca(s, vt, 0);
    LLVMBuildStore(s->b, x, mem);
    LLVMValueRef ptrs = LLVMBuildGEP2(s->b, et, mem, &idx, 1, "");
    LLVMTypeRef ty[2] = { vt, LLVMTypeOf(ptrs) };
    LLVMValueRef a[4] = { ptrs, LLVMConstInt(s->t_i32, LLVMABIAlignmentOfType(s->td, et), 0), s->mask,
                          LLVMGetPoison(vt) };
    return simd_intrinsic(s, "llvm.masked.gather", ty, 2, a, 4);
}

int simd_emit_subgroup(simd_fn *s, LLVMValueRef call)
{
    jit_sg_call k = jit_sg_decode(call);
    simd_shape sh = simd_shape_of(s, call);
    LLVMValueRef xs = LLVMGetNumArgOperands(call) ? LLVMGetOperand(call, 0) : NULL;
    simd_val x = xs ? simd_get(s, xs) : (simd_val){ { 0 }, NULL };
    LLVMTypeRef xt = xs ? LLVMTypeOf(xs) : NULL;
    LLVMValueRef r;
    switch (k.kind) {
    case JIT_SG_SIZE:
        r = LLVMConstInt(s->t_i32, s->W, 0);
        break;
    case JIT_SG_LIVE:
        r = count_lanes(s, s->live);
        break;
    case JIT_SG_LANE:
        r = LLVMConstInt(s->t_i32, 0, 0); /* affine: lane l is l */
        break;
    case JIT_SG_ID: { /* lane 0's index over W: the lanes' indices are consecutive from a multiple of W */
        LLVMValueRef i0 =
            x.sh.kind == SIMD_VARYING ? LLVMBuildExtractElement(s->b, x.v, LLVMConstInt(s->t_i32, 0, 0), "") : x.v;
        r = LLVMBuildUDiv(s->b, i0, LLVMConstInt(s->t_i32, s->W, 0), "");
        break;
    }
    case JIT_SG_FIRST:
        r = first_lane(s);
        break;
    case JIT_SG_ALL:
    case JIT_SG_ANY: {
        if (x.sh.kind == SIMD_UNIFORM) {
            r = x.v;
            break;
        }
        bool all = k.kind == JIT_SG_ALL;
        LLVMValueRef p = LLVMBuildSelect(s->b, s->mask, simd_widened(s, x, xt),
                                         all ? LLVMConstAllOnes(s->t_mask) : LLVMConstNull(s->t_mask), "");
        if (all)
            p = LLVMBuildXor(s->b, p, LLVMConstAllOnes(s->t_mask), ""); /* all: no active lane without p */
        r = simd_any(s, p);
        if (all)
            r = LLVMBuildXor(s->b, r, LLVMConstInt(s->t_i1, 1, 0), "");
        break;
    }
    case JIT_SG_BALLOT: {
        LLVMValueRef p = simd_mask_and(s, s->mask, simd_widened(s, x, xt));
        LLVMTypeRef i128 = LLVMIntTypeInContext(s->llc, 128);
        r = LLVMBuildBitCast(s->b, LLVMBuildZExt(s->b, bits(s, p), i128, ""), LLVMTypeOf(call), "");
        break;
    }
    case JIT_SG_SHUFFLE: {
        if (x.sh.kind == SIMD_UNIFORM) {
            r = x.v;
            break;
        }
        LLVMValueRef is = LLVMGetOperand(call, 1);
        simd_val iv = simd_get(s, is);
        LLVMValueRef w = simd_widened(s, x, xt);
        if (iv.sh.kind == SIMD_UNIFORM) {
            LLVMValueRef l = LLVMBuildAnd(s->b, iv.v, LLVMConstInt(s->t_i32, s->W - 1, 0), "");
            r = LLVMBuildExtractElement(s->b, w, l, "");
        } else {
            r = shuffle(s, w, simd_widened(s, iv, LLVMTypeOf(is)));
        }
        break;
    }
    case JIT_SG_REDUCE:
        r = reduce(s, k.arith, simd_widened(s, x, xt));
        break;
    case JIT_SG_SCAN_INCL:
        r = scan_inclusive(s, k.arith, active_only(s, k.arith, simd_widened(s, x, xt)));
        break;
    case JIT_SG_SCAN_EXCL: {
        int src[JIT_SIMD_MAX_WIDTH];
        LLVMValueRef a = active_only(s, k.arith, simd_widened(s, x, xt));
        for (unsigned i = 0; i < s->W; i++)
            src[i] = i >= 1 ? (int)i - 1 : -1;
        r = scan_inclusive(s, k.arith, permute(s, a, jit_sg_excl_start(k.arith, LLVMTypeOf(a)), src));
        break;
    }
    case JIT_SG_CLUSTERED: {
        simd_val c = simd_get(s, LLVMGetOperand(call, 1));
        if (c.sh.kind != SIMD_UNIFORM || !LLVMIsAConstantInt(c.v))
            return simd_decline(s, "a clustered sub-group operation whose cluster size is not a constant");
        unsigned long long cs = LLVMConstIntGetZExtValue(c.v);
        r = clustered(s, k.arith, active_only(s, k.arith, simd_widened(s, x, xt)), cs > s->W ? s->W : (unsigned)cs);
        break;
    }
    default:
        return simd_fail(s, "an unknown sub-group marker");
    }
    LLVMTypeRef want = sh.kind == SIMD_VARYING ? jit_simd_widen_type(LLVMTypeOf(call), s->W) : LLVMTypeOf(call);
    if (LLVMTypeOf(r) != want)
        return simd_fail(s, "a sub-group result of the wrong shape");
    simd_set(s, call, (simd_val){ sh, r });
    return s->rc;
}
