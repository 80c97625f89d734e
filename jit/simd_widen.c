/* jit/simd_widen.c — instructions of the scalar function in the vector one.
 *
 * A uniform or affine result is computed once, on the operands' scalars
 * (uniform values, lane-0 values of affine ones): for the operations the
 * shape rules accept, that is the lane-0 result, and the shape says how the
 * other lanes follow.  Flags that make a result poison on overflow are
 * dropped from affine computations: lane 0 may be a lane that does not run.
 * A varying result is the same operation on the widened operands (LLVM
 * vectors of the scalar function element by element), divisions with the
 * divisor of inactive lanes replaced by 1.  What has no vector form runs once
 * per active lane, in lane order. */
#include "simd_internal.h"

#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"

/* --- building blocks ------------------------------------------------------------------------- */

LLVMValueRef simd_splat(simd_fn *s, LLVMValueRef x)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(x), s->W);
    if (LLVMIsAConstant(x) && !LLVMIsAGlobalValue(x)) {
        LLVMValueRef e[JIT_SIMD_MAX_WIDTH];
        for (unsigned i = 0; i < s->W; i++)
            e[i] = x;
        return LLVMConstVector(e, s->W);
    }
    LLVMValueRef one = LLVMBuildInsertElement(s->b, LLVMGetPoison(vt), x, LLVMConstInt(s->t_i32, 0, 0), "");
    return LLVMBuildShuffleVector(s->b, one, LLVMGetPoison(vt), LLVMConstNull(LLVMVectorType(s->t_i32, s->W)), "");
}

LLVMValueRef simd_steps(simd_fn *s, LLVMTypeRef t, int64_t step)
{
    LLVMValueRef e[JIT_SIMD_MAX_WIDTH];
    for (unsigned i = 0; i < s->W; i++)
        e[i] = LLVMConstInt(t, (unsigned long long)(step * (int64_t)i), 0);
    return LLVMConstVector(e, s->W);
}

static unsigned members(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMVectorTypeKind:
        return LLVMGetVectorSize(t);
    case LLVMArrayTypeKind:
        return (unsigned)LLVMGetArrayLength2(t);
    case LLVMStructTypeKind:
        return LLVMCountStructElementTypes(t);
    default:
        return 0;
    }
}

static LLVMTypeRef member_type(LLVMTypeRef t, unsigned i)
{
    return LLVMGetTypeKind(t) == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i) : LLVMGetElementType(t);
}

/* Scalar-function member i of value x of type t (a vector element or an aggregate member). */
static LLVMValueRef scalar_member(simd_fn *s, LLVMValueRef x, LLVMTypeRef t, unsigned i)
{
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        return LLVMBuildExtractElement(s->b, x, LLVMConstInt(s->t_i32, i, 0), "");
    return LLVMBuildExtractValue(s->b, x, i, "");
}

static LLVMValueRef widen_uniform(simd_fn *s, LLVMValueRef x, LLVMTypeRef t)
{
    unsigned n = members(t);
    if (!n && LLVMGetTypeKind(t) != LLVMArrayTypeKind && LLVMGetTypeKind(t) != LLVMStructTypeKind)
        return simd_splat(s, x);
    LLVMTypeRef wt = jit_simd_widen_type(t, s->W);
    LLVMValueRef r = LLVMGetPoison(wt);
    for (unsigned i = 0; i < n; i++)
        r = LLVMBuildInsertValue(s->b, r, widen_uniform(s, scalar_member(s, x, t, i), member_type(t, i)), i, "");
    return r;
}

LLVMValueRef simd_widened(simd_fn *s, simd_val v, LLVMTypeRef t)
{
    if (v.sh.kind == SIMD_VARYING)
        return v.v;
    if (v.sh.kind == SIMD_UNIFORM)
        return widen_uniform(s, v.v, t);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
        return LLVMBuildGEP2(s->b, s->t_i8, v.v, (LLVMValueRef[]){ simd_steps(s, s->t_i64, v.sh.stride) }, 1, "");
    return LLVMBuildAdd(s->b, simd_splat(s, v.v), simd_steps(s, t, v.sh.stride), "");
}

static LLVMValueRef extract_lane(simd_fn *s, LLVMValueRef w, LLVMTypeRef t, LLVMValueRef lane)
{
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMVectorTypeKind) {
        LLVMValueRef r = LLVMGetPoison(t);
        for (unsigned i = 0; i < LLVMGetVectorSize(t); i++) {
            LLVMValueRef e = LLVMBuildExtractElement(s->b, LLVMBuildExtractValue(s->b, w, i, ""), lane, "");
            r = LLVMBuildInsertElement(s->b, r, e, LLVMConstInt(s->t_i32, i, 0), "");
        }
        return r;
    }
    if (k == LLVMArrayTypeKind || k == LLVMStructTypeKind) {
        LLVMValueRef r = LLVMGetPoison(t);
        for (unsigned i = 0, n = members(t); i < n; i++)
            r = LLVMBuildInsertValue(s->b, r,
                                     extract_lane(s, LLVMBuildExtractValue(s->b, w, i, ""), member_type(t, i), lane), i,
                                     "");
        return r;
    }
    return LLVMBuildExtractElement(s->b, w, lane, "");
}

LLVMValueRef simd_lane(simd_fn *s, simd_val v, LLVMTypeRef t, LLVMValueRef lane)
{
    if (v.sh.kind == SIMD_UNIFORM)
        return v.v;
    if (v.sh.kind == SIMD_VARYING)
        return extract_lane(s, v.v, t, lane);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind) {
        LLVMValueRef off = LLVMBuildMul(s->b, LLVMBuildZExt(s->b, lane, s->t_i64, ""),
                                        LLVMConstInt(s->t_i64, (unsigned long long)v.sh.stride, 0), "");
        return LLVMBuildGEP2(s->b, s->t_i8, v.v, &off, 1, "");
    }
    LLVMValueRef l = LLVMBuildZExtOrBitCast(s->b, lane, t, "");
    if (LLVMGetIntTypeWidth(t) < 32)
        l = LLVMBuildTrunc(s->b, lane, t, "");
    return LLVMBuildAdd(s->b, v.v, LLVMBuildMul(s->b, l, LLVMConstInt(t, (unsigned long long)v.sh.stride, 0), ""), "");
}

LLVMValueRef simd_insert_lane(simd_fn *s, LLVMValueRef w, LLVMValueRef x, LLVMValueRef lane)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMVectorTypeKind) {
        for (unsigned i = 0; i < LLVMGetVectorSize(t); i++) {
            LLVMValueRef e = LLVMBuildExtractElement(s->b, x, LLVMConstInt(s->t_i32, i, 0), "");
            LLVMValueRef m = LLVMBuildInsertElement(s->b, LLVMBuildExtractValue(s->b, w, i, ""), e, lane, "");
            w = LLVMBuildInsertValue(s->b, w, m, i, "");
        }
        return w;
    }
    if (k == LLVMArrayTypeKind || k == LLVMStructTypeKind) {
        for (unsigned i = 0, n = members(t); i < n; i++) {
            LLVMValueRef m =
                simd_insert_lane(s, LLVMBuildExtractValue(s->b, w, i, ""), LLVMBuildExtractValue(s->b, x, i, ""), lane);
            w = LLVMBuildInsertValue(s->b, w, m, i, "");
        }
        return w;
    }
    return LLVMBuildInsertElement(s->b, w, x, lane, "");
}

/* --- once per active lane ----------------------------------------------------------------------- */

/* The operands `in` takes from the scalar function (a call's callee excluded). */
static unsigned value_operands(LLVMValueRef in)
{
    unsigned n = (unsigned)LLVMGetNumOperands(in);
    return LLVMIsACallInst(in) ? n - 1 : n;
}

int simd_per_lane(simd_fn *s, LLVMValueRef in)
{
    unsigned n = value_operands(in);
    simd_val *ops = calloc(n + 1, sizeof *ops);
    if (!ops)
        return simd_fail(s, "out of memory");
    for (unsigned k = 0; k < n; k++)
        ops[k] = simd_get(s, LLVMGetOperand(in, k));
    LLVMTypeRef rt = LLVMTypeOf(in);
    bool has_result = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
    LLVMTypeRef wt = has_result ? jit_simd_widen_type(rt, s->W) : NULL;
    LLVMTypeRef iw = LLVMIntTypeInContext(s->llc, s->W);
    LLVMValueRef bits = LLVMBuildZExt(s->b, LLVMBuildBitCast(s->b, s->mask, iw, ""), s->t_i64, "");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b), loop = simd_block(s, "lane"), done = simd_block(s, "lanes.done");
    LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntNE, bits, LLVMConstInt(s->t_i64, 0, 0), ""), loop, done);
    LLVMPositionBuilderAtEnd(s->b, loop);
    LLVMValueRef bphi = LLVMBuildPhi(s->b, s->t_i64, "");
    LLVMValueRef rphi = has_result ? LLVMBuildPhi(s->b, wt, "") : NULL;
    LLVMValueRef tz =
        simd_intrinsic(s, "llvm.cttz", &s->t_i64, 1, (LLVMValueRef[]){ bphi, LLVMConstInt(s->t_i1, 1, 0) }, 2);
    LLVMValueRef lane = LLVMBuildTrunc(s->b, tz, s->t_i32, "lane");
    LLVMValueRef c = LLVMInstructionClone(in);
    for (unsigned k = 0; k < n; k++)
        LLVMSetOperand(c, k, simd_lane(s, ops[k], LLVMTypeOf(LLVMGetOperand(in, k)), lane));
    LLVMInsertIntoBuilder(s->b, c);
    LLVMValueRef res = has_result ? simd_insert_lane(s, rphi, c, lane) : NULL;
    LLVMValueRef rest = LLVMBuildAnd(s->b, bphi, LLVMBuildSub(s->b, bphi, LLVMConstInt(s->t_i64, 1, 0), ""), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(s->b);
    LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntNE, rest, LLVMConstInt(s->t_i64, 0, 0), ""), loop, done);
    LLVMAddIncoming(bphi, (LLVMValueRef[]){ bits, rest }, (LLVMBasicBlockRef[]){ pre, latch }, 2);
    if (has_result)
        LLVMAddIncoming(rphi, (LLVMValueRef[]){ LLVMGetPoison(wt), res }, (LLVMBasicBlockRef[]){ pre, latch }, 2);
    LLVMPositionBuilderAtEnd(s->b, done);
    if (has_result) {
        LLVMValueRef out = LLVMBuildPhi(s->b, wt, "");
        LLVMAddIncoming(out, (LLVMValueRef[]){ LLVMGetPoison(wt), res }, (LLVMBasicBlockRef[]){ pre, latch }, 2);
        simd_set(s, in, (simd_val){ { .kind = SIMD_VARYING }, out });
    }
    free(ops);
    return s->rc;
}

/* --- uniform and affine results: computed on the scalars --------------------------------------------- */

static void strip_poison_flags(LLVMValueRef c)
{
    switch (LLVMGetInstructionOpcode(c)) {
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
        LLVMSetNUW(c, 0);
        LLVMSetNSW(c, 0);
        break;
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMLShr:
    case LLVMAShr:
        LLVMSetExact(c, 0);
        break;
    case LLVMOr:
        LLVMSetIsDisjoint(c, 0);
        break;
    case LLVMZExt:
        LLVMSetNNeg(c, 0);
        break;
    case LLVMGetElementPtr:
        LLVMSetIsInBounds(c, 0);
        break;
    default:
        break;
    }
}

static int emit_on_scalars(simd_fn *s, LLVMValueRef in, simd_shape sh)
{
    /* a disjoint or is an add for the shape rules; lane 0's operands need not be disjoint */
    if (LLVMGetInstructionOpcode(in) == LLVMOr && LLVMGetIsDisjoint(in) && sh.kind == SIMD_AFFINE) {
        simd_val a = simd_get(s, LLVMGetOperand(in, 0)), b = simd_get(s, LLVMGetOperand(in, 1));
        simd_set(s, in, (simd_val){ sh, LLVMBuildAdd(s->b, a.v, b.v, "") });
        return s->rc;
    }
    LLVMValueRef c = LLVMInstructionClone(in);
    for (unsigned k = 0, n = value_operands(in); k < n; k++) {
        simd_val v = simd_get(s, LLVMGetOperand(in, k));
        if (v.sh.kind == SIMD_VARYING) {
            LLVMDeleteInstruction(c);
            return simd_fail(s, "a uniform or affine value computed from a varying one");
        }
        LLVMSetOperand(c, k, v.v);
    }
    if (sh.kind == SIMD_AFFINE || LLVMIsAGetElementPtrInst(c))
        strip_poison_flags(c);
    LLVMInsertIntoBuilder(s->b, c);
    simd_set(s, in, (simd_val){ sh, c });
    return s->rc;
}

/* --- varying results: the same operation on widened operands ------------------------------------------- */

/* Applies `in`'s operation to widened operands w[0..n) whose scalar-function
 * type is a scalar; NULL when it has no vector form. */
static LLVMValueRef vector_op(simd_fn *s, LLVMValueRef in, LLVMValueRef *w, LLVMTypeRef elem_rt)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    LLVMValueRef r;
    switch (op) {
    case LLVMUDiv:
    case LLVMSDiv:
    case LLVMURem:
    case LLVMSRem: {
        /* inactive lanes divide by one: their divisor may be zero */
        LLVMValueRef one = simd_splat(s, LLVMConstInt(LLVMGetElementType(LLVMTypeOf(w[1])), 1, 0));
        w[1] = LLVMBuildSelect(s->b, s->mask, w[1], one, "");
    }
        /* fall through */
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
    case LLVMShl:
    case LLVMLShr:
    case LLVMAShr:
    case LLVMAnd:
    case LLVMOr:
    case LLVMXor:
    case LLVMFAdd:
    case LLVMFSub:
    case LLVMFMul:
    case LLVMFDiv:
    case LLVMFRem:
        r = LLVMBuildBinOp(s->b, op, w[0], w[1], "");
        if (op == LLVMAdd || op == LLVMSub || op == LLVMMul || op == LLVMShl) {
            LLVMSetNUW(r, LLVMGetNUW(in));
            LLVMSetNSW(r, LLVMGetNSW(in));
        } else if (op == LLVMUDiv || op == LLVMSDiv || op == LLVMLShr || op == LLVMAShr) {
            LLVMSetExact(r, LLVMGetExact(in));
        } else if (op == LLVMOr) {
            LLVMSetIsDisjoint(r, LLVMGetIsDisjoint(in));
        }
        break;
    case LLVMFNeg:
        r = LLVMBuildFNeg(s->b, w[0], "");
        break;
    case LLVMTrunc:
    case LLVMZExt:
    case LLVMSExt:
    case LLVMFPToUI:
    case LLVMFPToSI:
    case LLVMUIToFP:
    case LLVMSIToFP:
    case LLVMFPTrunc:
    case LLVMFPExt:
    case LLVMPtrToInt:
    case LLVMIntToPtr:
    case LLVMAddrSpaceCast:
        r = LLVMBuildCast(s->b, op, w[0], LLVMVectorType(elem_rt, s->W), "");
        break;
    case LLVMBitCast: {
        LLVMTypeRef from = LLVMGetElementType(LLVMTypeOf(w[0]));
        if (LLVMGetTypeKind(from) == LLVMVectorTypeKind)
            return NULL;
        r = LLVMBuildBitCast(s->b, w[0], LLVMVectorType(elem_rt, s->W), "");
        break;
    }
    case LLVMICmp:
        r = LLVMBuildICmp(s->b, LLVMGetICmpPredicate(in), w[0], w[1], "");
        break;
    case LLVMFCmp:
        r = LLVMBuildFCmp(s->b, LLVMGetFCmpPredicate(in), w[0], w[1], "");
        break;
    case LLVMSelect:
        r = LLVMBuildSelect(s->b, w[0], w[1], w[2], "");
        break;
    case LLVMFreeze:
        r = LLVMBuildFreeze(s->b, w[0], "");
        break;
    default:
        return NULL;
    }
    if (LLVMCanValueUseFastMathFlags(in) && LLVMCanValueUseFastMathFlags(r))
        LLVMSetFastMathFlags(r, LLVMGetFastMathFlags(in));
    return r;
}

/* A bit cast in the scalar function between an LLVM vector and a type of
 * another element count (i32 to <2 x i16>: OpenCL's as_ushort2, OpenCL and
 * SPIR-V's OpBitcast): each lane's bits gathered into one integer (element
 * k at bit k times its width: the order of a little-endian target's
 * memory, which LLVM's bit cast follows), then cut into the result's
 * elements.  NULL (the lanes one at a time) for more than 64 bits, a
 * pointer, or a big-endian target. */
static LLVMValueRef widen_bitcast(simd_fn *s, LLVMValueRef in, LLVMValueRef w)
{
    LLVMTypeRef from = LLVMTypeOf(LLVMGetOperand(in, 0)), to = LLVMTypeOf(in);
    bool vfrom = LLVMGetTypeKind(from) == LLVMVectorTypeKind, vto = LLVMGetTypeKind(to) == LLVMVectorTypeKind;
    LLVMTypeRef efrom = vfrom ? LLVMGetElementType(from) : from, eto = vto ? LLVMGetElementType(to) : to;
    unsigned long long bits = LLVMSizeOfTypeInBits(s->td, to);
    if (bits > 64 || LLVMByteOrder(s->td) != LLVMLittleEndian || LLVMGetTypeKind(efrom) == LLVMPointerTypeKind ||
        LLVMGetTypeKind(eto) == LLVMPointerTypeKind)
        return NULL;
    LLVMTypeRef lane_int = LLVMIntTypeInContext(s->llc, (unsigned)bits), iw = LLVMVectorType(lane_int, s->W);
    LLVMValueRef x;
    if (vfrom) {
        unsigned eb = (unsigned)LLVMSizeOfTypeInBits(s->td, efrom);
        LLVMTypeRef ew = LLVMVectorType(LLVMIntTypeInContext(s->llc, eb), s->W);
        x = LLVMConstNull(iw);
        for (unsigned k = 0; k < LLVMGetVectorSize(from); k++) {
            LLVMValueRef part = LLVMBuildBitCast(s->b, LLVMBuildExtractValue(s->b, w, k, ""), ew, "");
            part = LLVMBuildZExtOrBitCast(s->b, part, iw, "");
            if (k)
                part =
                    LLVMBuildShl(s->b, part, simd_splat(s, LLVMConstInt(lane_int, (unsigned long long)k * eb, 0)), "");
            x = LLVMBuildOr(s->b, x, part, "");
        }
    } else {
        x = LLVMBuildBitCast(s->b, w, iw, "");
    }
    if (!vto)
        return LLVMBuildBitCast(s->b, x, LLVMVectorType(to, s->W), "");
    unsigned eb = (unsigned)LLVMSizeOfTypeInBits(s->td, eto);
    LLVMTypeRef ew = LLVMVectorType(LLVMIntTypeInContext(s->llc, eb), s->W);
    LLVMValueRef r = LLVMGetPoison(jit_simd_widen_type(to, s->W));
    for (unsigned k = 0; k < LLVMGetVectorSize(to); k++) {
        LLVMValueRef part =
            k ? LLVMBuildLShr(s->b, x, simd_splat(s, LLVMConstInt(lane_int, (unsigned long long)k * eb, 0)), "") : x;
        part = LLVMBuildTruncOrBitCast(s->b, part, ew, "");
        r = LLVMBuildInsertValue(s->b, r, LLVMBuildBitCast(s->b, part, LLVMVectorType(eto, s->W), ""), k, "");
    }
    return r;
}

/* Element-wise operations on LLVM vectors of the scalar function: element k
 * of each widened operand is member k. */
static LLVMValueRef elementwise(simd_fn *s, LLVMValueRef in, LLVMValueRef *w, unsigned n)
{
    LLVMTypeRef rt = LLVMTypeOf(in);
    if (LLVMGetInstructionOpcode(in) == LLVMBitCast) {
        LLVMTypeRef ft = LLVMTypeOf(LLVMGetOperand(in, 0));
        bool vr = LLVMGetTypeKind(rt) == LLVMVectorTypeKind, vf = LLVMGetTypeKind(ft) == LLVMVectorTypeKind;
        if ((vr || vf) && !(vr && vf && LLVMGetVectorSize(rt) == LLVMGetVectorSize(ft)))
            return widen_bitcast(s, in, w[0]);
    }
    if (LLVMGetTypeKind(rt) != LLVMVectorTypeKind)
        return vector_op(s, in, w, rt);
    LLVMTypeRef wt = jit_simd_widen_type(rt, s->W);
    LLVMValueRef r = LLVMGetPoison(wt);
    for (unsigned e = 0; e < LLVMGetVectorSize(rt); e++) {
        LLVMValueRef m[3];
        for (unsigned k = 0; k < n && k < 3; k++) {
            bool vec = LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(in, k))) == LLVMVectorTypeKind;
            m[k] = vec ? LLVMBuildExtractValue(s->b, w[k], e, "") : w[k]; /* a select's scalar condition */
        }
        LLVMValueRef x = vector_op(s, in, m, LLVMGetElementType(rt));
        if (!x)
            return NULL;
        r = LLVMBuildInsertValue(s->b, r, x, e, "");
    }
    return r;
}

static LLVMValueRef widen_gep(simd_fn *s, LLVMValueRef in)
{
    unsigned n = (unsigned)LLVMGetNumOperands(in);
    LLVMValueRef *ix = calloc(n + 1, sizeof *ix);
    if (!ix)
        return NULL;
    LLVMValueRef base = simd_widened(s, simd_get(s, LLVMGetOperand(in, 0)), s->t_ptr);
    for (unsigned k = 1; k < n; k++) {
        LLVMValueRef x = LLVMGetOperand(in, k);
        simd_val v = simd_get(s, x);
        ix[k - 1] = v.sh.kind == SIMD_UNIFORM ? v.v : simd_widened(s, v, LLVMTypeOf(x));
    }
    LLVMValueRef r = LLVMBuildGEP2(s->b, LLVMGetGEPSourceElementType(in), base, ix, n - 1, "");
    free(ix);
    return r;
}

/* extractelement / insertelement / shufflevector on widened LLVM vectors. */
static LLVMValueRef vector_element_op(simd_fn *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    LLVMValueRef vec = LLVMGetOperand(in, 0);
    LLVMTypeRef vt = LLVMTypeOf(vec);
    unsigned n = LLVMGetVectorSize(vt);
    LLVMValueRef wv = simd_widened(s, simd_get(s, vec), vt);
    if (op == LLVMShuffleVector) {
        LLVMValueRef wb = simd_widened(s, simd_get(s, LLVMGetOperand(in, 1)), vt);
        LLVMTypeRef rt = LLVMTypeOf(in), wt = jit_simd_widen_type(rt, s->W);
        LLVMValueRef r = LLVMGetPoison(wt);
        for (unsigned k = 0; k < LLVMGetVectorSize(rt); k++) {
            int m = LLVMGetMaskValue(in, k);
            LLVMValueRef e = m == LLVMGetUndefMaskElem() ? LLVMGetPoison(LLVMVectorType(LLVMGetElementType(rt), s->W))
                             : (unsigned)m < n           ? LLVMBuildExtractValue(s->b, wv, (unsigned)m, "")
                                                         : LLVMBuildExtractValue(s->b, wb, (unsigned)m - n, "");
            r = LLVMBuildInsertValue(s->b, r, e, k, "");
        }
        return r;
    }
    LLVMValueRef idx = LLVMGetOperand(in, op == LLVMExtractElement ? 1 : 2);
    simd_val iv = simd_get(s, idx);
    if (iv.sh.kind != SIMD_UNIFORM)
        return NULL;
    if (op == LLVMExtractElement) {
        if (LLVMIsAConstantInt(iv.v)) {
            unsigned long long k = LLVMConstIntGetZExtValue(iv.v);
            return k < n ? LLVMBuildExtractValue(s->b, wv, (unsigned)k, "")
                         : LLVMGetPoison(LLVMVectorType(LLVMGetElementType(vt), s->W));
        }
        LLVMValueRef r = LLVMBuildExtractValue(s->b, wv, 0, "");
        for (unsigned k = 1; k < n; k++) {
            LLVMValueRef is = LLVMBuildICmp(s->b, LLVMIntEQ, iv.v, LLVMConstInt(LLVMTypeOf(iv.v), k, 0), "");
            r = LLVMBuildSelect(s->b, is, LLVMBuildExtractValue(s->b, wv, k, ""), r, "");
        }
        return r;
    }
    LLVMValueRef x = LLVMGetOperand(in, 1);
    LLVMValueRef wx = simd_widened(s, simd_get(s, x), LLVMTypeOf(x));
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef is = LLVMIsAConstantInt(iv.v)
                              ? LLVMConstInt(s->t_i1, LLVMConstIntGetZExtValue(iv.v) == k, 0)
                              : LLVMBuildICmp(s->b, LLVMIntEQ, iv.v, LLVMConstInt(LLVMTypeOf(iv.v), k, 0), "");
        if (LLVMIsAConstantInt(is) && !LLVMConstIntGetZExtValue(is))
            continue;
        LLVMValueRef old = LLVMBuildExtractValue(s->b, wv, k, "");
        wv = LLVMBuildInsertValue(s->b, wv, LLVMBuildSelect(s->b, is, wx, old, ""), k, "");
    }
    return wv;
}

/* --- calls --------------------------------------------------------------------------------------- */

typedef enum ovl {
    OVL_RET,             /* overloaded on the result; every operand widened */
    OVL_RET_LAST_FLAG,   /* on the result; the last operand a uniform flag (ctlz, cttz, abs) */
    OVL_RET_ARG1,        /* on the result and operand 1, both widened (ldexp) */
    OVL_RET_ARG1_SCALAR, /* on the result and operand 1, which stays uniform (powi) */
    OVL_ARG0_LAST_FLAG,  /* on operand 0; the last operand uniform (is.fpclass) */
    OVL_RET_ARG0,        /* on the result and operand 0 (fptosi.sat) */
} ovl;

static const struct {
    const char *prefix;
    ovl kind;
} elementwise_intrinsics[] = {
    { "llvm.fabs.", OVL_RET },
    { "llvm.sqrt.", OVL_RET },
    { "llvm.sin.", OVL_RET },
    { "llvm.cos.", OVL_RET },
    { "llvm.tan.", OVL_RET },
    { "llvm.exp.", OVL_RET },
    { "llvm.exp2.", OVL_RET },
    { "llvm.exp10.", OVL_RET },
    { "llvm.log.", OVL_RET },
    { "llvm.log2.", OVL_RET },
    { "llvm.log10.", OVL_RET },
    { "llvm.floor.", OVL_RET },
    { "llvm.ceil.", OVL_RET },
    { "llvm.trunc.", OVL_RET },
    { "llvm.rint.", OVL_RET },
    { "llvm.nearbyint.", OVL_RET },
    { "llvm.round.", OVL_RET },
    { "llvm.roundeven.", OVL_RET },
    { "llvm.canonicalize.", OVL_RET },
    { "llvm.pow.", OVL_RET },
    { "llvm.minnum.", OVL_RET },
    { "llvm.maxnum.", OVL_RET },
    { "llvm.minimum.", OVL_RET },
    { "llvm.maximum.", OVL_RET },
    { "llvm.copysign.", OVL_RET },
    { "llvm.fma.", OVL_RET },
    { "llvm.fmuladd.", OVL_RET },
    { "llvm.ctpop.", OVL_RET },
    { "llvm.bitreverse.", OVL_RET },
    { "llvm.bswap.", OVL_RET },
    { "llvm.smin.", OVL_RET },
    { "llvm.smax.", OVL_RET },
    { "llvm.umin.", OVL_RET },
    { "llvm.umax.", OVL_RET },
    { "llvm.sadd.sat.", OVL_RET },
    { "llvm.uadd.sat.", OVL_RET },
    { "llvm.ssub.sat.", OVL_RET },
    { "llvm.usub.sat.", OVL_RET },
    { "llvm.sshl.sat.", OVL_RET },
    { "llvm.ushl.sat.", OVL_RET },
    { "llvm.fshl.", OVL_RET },
    { "llvm.fshr.", OVL_RET },
    { "llvm.ctlz.", OVL_RET_LAST_FLAG },
    { "llvm.cttz.", OVL_RET_LAST_FLAG },
    { "llvm.abs.", OVL_RET_LAST_FLAG },
    { "llvm.ldexp.", OVL_RET_ARG1 },
    { "llvm.powi.", OVL_RET_ARG1_SCALAR },
    { "llvm.is.fpclass.", OVL_ARG0_LAST_FLAG },
    { "llvm.fptosi.sat.", OVL_RET_ARG0 },
    { "llvm.fptoui.sat.", OVL_RET_ARG0 },
};

static const char *callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    return LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
}

/* A call of an element-wise intrinsic on widened scalars; NULL when not one
 * (or an operand that must stay uniform varies). */
static LLVMValueRef widen_intrinsic_call(simd_fn *s, LLVMValueRef in, LLVMValueRef *w, simd_val *v, unsigned n,
                                         LLVMTypeRef elem_rt)
{
    const char *name = callee_name(in);
    for (size_t i = 0; i < sizeof elementwise_intrinsics / sizeof *elementwise_intrinsics; i++) {
        size_t pl = strlen(elementwise_intrinsics[i].prefix);
        if (strncmp(name, elementwise_intrinsics[i].prefix, pl))
            continue;
        ovl kind = elementwise_intrinsics[i].kind;
        LLVMValueRef args[4];
        for (unsigned k = 0; k < n && k < 4; k++)
            args[k] = w[k];
        LLVMTypeRef types[2], rt = LLVMVectorType(elem_rt, s->W);
        unsigned nt = 1;
        types[0] = rt;
        bool flag_last = kind == OVL_RET_LAST_FLAG || kind == OVL_ARG0_LAST_FLAG;
        if (flag_last || kind == OVL_RET_ARG1_SCALAR) {
            unsigned k = kind == OVL_RET_ARG1_SCALAR ? 1 : n - 1;
            if (v[k].sh.kind != SIMD_UNIFORM)
                return NULL;
            args[k] = v[k].v;
        }
        if (kind == OVL_RET_ARG1 || kind == OVL_RET_ARG1_SCALAR)
            types[nt++] = LLVMTypeOf(args[1]);
        if (kind == OVL_ARG0_LAST_FLAG)
            types[0] = LLVMTypeOf(args[0]);
        if (kind == OVL_RET_ARG0)
            types[nt++] = LLVMTypeOf(args[0]);
        char full[64];
        size_t nl = strlen(elementwise_intrinsics[i].prefix) - 1;
        memcpy(full, name, nl);
        full[nl] = 0;
        LLVMValueRef r = simd_intrinsic(s, full, types, nt, args, n);
        if (LLVMCanValueUseFastMathFlags(in) && LLVMCanValueUseFastMathFlags(r))
            LLVMSetFastMathFlags(r, LLVMGetFastMathFlags(in));
        return r;
    }
    return NULL;
}

/* llvm.vector.reduce.* of an LLVM vector: its widened elements combined in order. */
static LLVMValueRef widen_vector_reduce(simd_fn *s, LLVMValueRef in)
{
    const char *name = callee_name(in);
    static const char *const ops[] = { "add",  "mul",  "and",  "or",   "xor",  "smin", "smax",
                                       "umin", "umax", "fmin", "fmax", "fadd", "fmul" };
    const char *rest = name + strlen("llvm.vector.reduce.");
    unsigned which = sizeof ops / sizeof *ops;
    for (unsigned i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t l = strlen(ops[i]);
        if (!strncmp(rest, ops[i], l) && rest[l] == '.')
            which = i;
    }
    if (which == sizeof ops / sizeof *ops)
        return NULL;
    bool ordered = which >= 11; /* fadd, fmul: (start, vector) */
    LLVMValueRef vec = LLVMGetOperand(in, ordered ? 1 : 0);
    LLVMTypeRef vt = LLVMTypeOf(vec), et = LLVMGetElementType(vt);
    LLVMValueRef wv = simd_widened(s, simd_get(s, vec), vt);
    LLVMValueRef acc =
        ordered ? simd_widened(s, simd_get(s, LLVMGetOperand(in, 0)), et) : LLVMBuildExtractValue(s->b, wv, 0, "");
    for (unsigned k = ordered ? 0 : 1; k < LLVMGetVectorSize(vt); k++) {
        LLVMValueRef x = LLVMBuildExtractValue(s->b, wv, k, "");
        LLVMTypeRef wt = LLVMTypeOf(x);
        switch (which) {
        case 0:
            acc = LLVMBuildAdd(s->b, acc, x, "");
            break;
        case 1:
            acc = LLVMBuildMul(s->b, acc, x, "");
            break;
        case 2:
            acc = LLVMBuildAnd(s->b, acc, x, "");
            break;
        case 3:
            acc = LLVMBuildOr(s->b, acc, x, "");
            break;
        case 4:
            acc = LLVMBuildXor(s->b, acc, x, "");
            break;
        case 11:
            acc = LLVMBuildFAdd(s->b, acc, x, "");
            break;
        case 12:
            acc = LLVMBuildFMul(s->b, acc, x, "");
            break;
        default: {
            static const char *const names[] = { "llvm.smin", "llvm.smax",   "llvm.umin",
                                                 "llvm.umax", "llvm.minnum", "llvm.maxnum" };
            acc = simd_intrinsic(s, names[which - 5], &wt, 1, (LLVMValueRef[]){ acc, x }, 2);
            break;
        }
        }
        if (LLVMCanValueUseFastMathFlags(in) && LLVMCanValueUseFastMathFlags(acc))
            LLVMSetFastMathFlags(acc, LLVMGetFastMathFlags(in));
    }
    return acc;
}

/* Whether a call has no effect but its result (may run once for uniform operands). */
static bool call_is_pure(LLVMValueRef in)
{
    const char *name = callee_name(in);
    if (jit_call_pure(in))
        return true;
    for (size_t i = 0; i < sizeof elementwise_intrinsics / sizeof *elementwise_intrinsics; i++)
        if (!strncmp(name, elementwise_intrinsics[i].prefix, strlen(elementwise_intrinsics[i].prefix)))
            return true;
    return !strncmp(name, "llvm.vector.reduce.", 19) || !strncmp(name, "llvm.memcpy.", 12) ||
           !strncmp(name, "llvm.memmove.", 13) || !strncmp(name, "llvm.memset.", 12);
}

static bool all_operands_scalar(simd_fn *s, LLVMValueRef in)
{
    for (unsigned k = 0, n = value_operands(in); k < n; k++)
        if (simd_get(s, LLVMGetOperand(in, k)).sh.kind == SIMD_VARYING)
            return false;
    return true;
}

static int emit_call(simd_fn *s, LLVMValueRef in)
{
    if (jit_call_harmless(in) || !strncmp(callee_name(in), "llvm.experimental.noalias.scope.decl", 36))
        return 0; /* lifetime markers, assumptions: dropped */
    simd_shape sh = simd_shape_of(s, in);
    bool pure = call_is_pure(in), scalars = all_operands_scalar(s, in);
    if (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVoidTypeKind) /* memcpy of uniform operands: once */
        return pure && scalars ? emit_on_scalars(s, in, sh) : simd_per_lane(s, in);
    if (sh.kind != SIMD_VARYING) {
        if (!pure || !scalars)
            return simd_fail(s, "a uniform call result from varying operands or with side effects");
        return emit_on_scalars(s, in, sh);
    }
    if (!pure)
        return simd_per_lane(s, in);
    LLVMTypeRef rt = LLVMTypeOf(in);
    if (!strncmp(callee_name(in), "llvm.vector.reduce.", 19) && LLVMGetTypeKind(rt) != LLVMVectorTypeKind) {
        LLVMValueRef r = widen_vector_reduce(s, in);
        if (r) {
            simd_set(s, in, (simd_val){ sh, r });
            return s->rc;
        }
        return simd_per_lane(s, in);
    }
    unsigned n = value_operands(in);
    if (n > 4 || LLVMGetTypeKind(rt) == LLVMVectorTypeKind || LLVMGetTypeKind(rt) == LLVMStructTypeKind)
        return simd_per_lane(s, in);
    simd_val v[4];
    LLVMValueRef w[4];
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef x = LLVMGetOperand(in, k);
        if (LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind)
            return simd_per_lane(s, in);
        v[k] = simd_get(s, x);
        w[k] = simd_widened(s, v[k], LLVMTypeOf(x));
    }
    LLVMValueRef r = widen_intrinsic_call(s, in, w, v, n, rt);
    if (!r)
        return simd_per_lane(s, in);
    simd_set(s, in, (simd_val){ sh, r });
    return s->rc;
}

int simd_emit_inst(simd_fn *s, LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    if (op == LLVMCall)
        return emit_call(s, in);
    simd_shape sh = simd_shape_of(s, in);
    if (sh.kind == SIMD_UNIFORM || sh.kind == SIMD_AFFINE)
        return emit_on_scalars(s, in, sh);
    LLVMValueRef r = NULL;
    switch (op) {
    case LLVMGetElementPtr:
        if (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMPointerTypeKind)
            r = widen_gep(s, in);
        break;
    case LLVMExtractElement:
    case LLVMInsertElement:
    case LLVMShuffleVector:
        r = vector_element_op(s, in);
        break;
    case LLVMExtractValue:
    case LLVMInsertValue: {
        LLVMValueRef agg = LLVMGetOperand(in, 0);
        LLVMValueRef wa = simd_widened(s, simd_get(s, agg), LLVMTypeOf(agg));
        unsigned ni = LLVMGetNumIndices(in);
        const unsigned *idx = LLVMGetIndices(in);
        if (op == LLVMExtractValue) {
            r = wa;
            for (unsigned k = 0; k < ni; k++)
                r = LLVMBuildExtractValue(s->b, r, idx[k], "");
        } else {
            LLVMValueRef x = LLVMGetOperand(in, 1);
            LLVMValueRef wx = simd_widened(s, simd_get(s, x), LLVMTypeOf(x));
            /* rebuild the path from the innermost member out */
            LLVMValueRef path[16];
            if (ni > 16)
                break;
            path[0] = wa;
            for (unsigned k = 0; k + 1 < ni; k++)
                path[k + 1] = LLVMBuildExtractValue(s->b, path[k], idx[k], "");
            r = wx;
            for (unsigned k = ni; k-- > 0;)
                r = LLVMBuildInsertValue(s->b, path[k], r, idx[k], "");
        }
        break;
    }
    case LLVMSelect: {
        LLVMValueRef c = LLVMGetOperand(in, 0), x = LLVMGetOperand(in, 1), y = LLVMGetOperand(in, 2);
        simd_val cv = simd_get(s, c);
        LLVMValueRef wx = simd_widened(s, simd_get(s, x), LLVMTypeOf(x));
        LLVMValueRef wy = simd_widened(s, simd_get(s, y), LLVMTypeOf(y));
        LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(in));
        if (cv.sh.kind == SIMD_UNIFORM) {
            r = LLVMBuildSelect(s->b, cv.v, wx, wy, "");
        } else if (k != LLVMStructTypeKind && k != LLVMArrayTypeKind) {
            LLVMValueRef w[3] = { simd_widened(s, cv, LLVMTypeOf(c)), wx, wy };
            r = elementwise(s, in, w, 3);
        }
        break;
    }
    default: {
        unsigned n = value_operands(in);
        if (n > 3)
            break;
        LLVMValueRef w[3];
        for (unsigned k = 0; k < n; k++) {
            LLVMValueRef x = LLVMGetOperand(in, k);
            w[k] = simd_widened(s, simd_get(s, x), LLVMTypeOf(x));
        }
        r = elementwise(s, in, w, n);
        break;
    }
    }
    if (!r)
        return simd_per_lane(s, in);
    simd_set(s, in, (simd_val){ sh, r });
    return s->rc;
}
