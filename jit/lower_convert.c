/* jit/lower_convert.c — conversions and bit casts.
 *
 * Float → integer conversions of out-of-range values are undefined in SPIR-V;
 * LLVM would make them poison, so the result is frozen into *some* value (or
 * saturated where SaturatedConversion decorates the instruction).  The CPU has
 * one address space, so the generic/specific pointer casts are the identity.
 *
 * FPRoundingMode (OpenCL convert_*_rte/rtz/rtp/rtn): float → integer rounds
 * first (roundeven / ceil / floor; truncation is the default); conversions
 * that round to a float (narrowing OpFConvert, integer → float) convert to
 * nearest, convert back exactly, and step the result one ulp toward the
 * asked direction where the nearest value lies on the wrong side.
 */
#include "lower_ctx.h"

static LLVMTypeRef elem_type(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

/* Clamps integer v (signedness src_signed) into the range of t (dst_signed), then resizes. */
static LLVMValueRef saturate_int(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, bool src_signed, bool dst_signed)
{
    LLVMTypeRef st = LLVMTypeOf(v);
    unsigned sw = jit_scalar_bits(st), dw = jit_scalar_bits(t);
    /* Work in a width that holds both ranges. */
    unsigned ww = (sw > dw ? sw : dw) + 1;
    if (ww > 64)
        ww = 128;
    LLVMTypeRef wt = LLVMIntTypeInContext(c->llc, ww);
    if (LLVMGetTypeKind(st) == LLVMVectorTypeKind)
        wt = LLVMVectorType(wt, LLVMGetVectorSize(st));
    LLVMValueRef x = jit_int_cast(c, v, wt, src_signed);
    LLVMValueRef lo, hi;
    LLVMTypeRef we = elem_type(wt);
    if (dst_signed) {
        hi = jit_splat(c, LLVMConstInt(we, (1ull << (dw - 1)) - 1, 0), wt);
        lo = jit_splat(c, LLVMConstInt(we, (uint64_t)INT64_MIN >> (64 - dw) | ~(~0ull >> (64 - dw)), 1), wt);
    } else {
        hi = jit_splat(c, LLVMConstInt(we, dw >= 64 ? ~0ull : (1ull << dw) - 1, 0), wt);
        lo = LLVMConstNull(wt);
    }
    x = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, x, hi, ""), hi, x, "");
    x = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, x, lo, ""), lo, x, "");
    return LLVMBuildTrunc(c->b, x, t, "");
}

/* The FPRoundingMode decoration of the result, or -1. */
static int rounding_mode(lower_ctx *c, const spv_inst *in)
{
    const spv_decoration *d = spv_find_decoration(c->m, in->result_id, -1, SpvDecorationFPRoundingMode);
    return d && d->nargs ? (int)d->args[0] : -1;
}

static LLVMTypeRef same_shape(lower_ctx *c, LLVMTypeRef like, LLVMTypeRef elem)
{
    (void)c;
    return LLVMGetTypeKind(like) == LLVMVectorTypeKind ? LLVMVectorType(elem, LLVMGetVectorSize(like)) : elem;
}

/* r (rounded to nearest) moved to the mode's direction: gt / lt say whether r
 * is above / below the exact value. */
static LLVMValueRef step_rounding(lower_ctx *c, LLVMValueRef r, LLVMValueRef gt, LLVMValueRef lt, int mode)
{
    LLVMBuilderRef b = c->b;
    LLVMTypeRef ft = LLVMTypeOf(r);
    LLVMTypeRef it = same_shape(c, ft, LLVMIntTypeInContext(c->llc, jit_scalar_bits(ft)));
    LLVMValueRef bits = LLVMBuildBitCast(b, r, it, "");
    LLVMValueRef one = jit_splat(c, LLVMConstInt(elem_type(it), 1, 0), it);
    LLVMValueRef inc = LLVMBuildAdd(b, bits, one, ""), dec = LLVMBuildSub(b, bits, one, "");
    LLVMValueRef zero = LLVMConstNull(ft);
    LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, r, zero, ""), is0 = LLVMBuildFCmp(b, LLVMRealOEQ, r, zero, "");
    LLVMValueRef moved;
    if (mode == SpvFPRoundingModeRTZ) {
        /* r is never zero here when it is off: the magnitude shrinks with bits - 1 */
        moved = LLVMBuildSelect(b, LLVMBuildSelect(b, pos, gt, lt, ""), dec, bits, "");
    } else if (mode == SpvFPRoundingModeRTP) {
        LLVMValueRef up = LLVMBuildSelect(b, is0, one, LLVMBuildSelect(b, pos, inc, dec, ""), "");
        moved = LLVMBuildSelect(b, lt, up, bits, "");
    } else {
        LLVMValueRef neg_min = jit_splat(c, LLVMConstInt(elem_type(it), 1ull << (jit_scalar_bits(ft) - 1) | 1, 0), it);
        LLVMValueRef down = LLVMBuildSelect(b, is0, neg_min, LLVMBuildSelect(b, pos, dec, inc, ""), "");
        moved = LLVMBuildSelect(b, gt, down, bits, "");
    }
    return LLVMBuildBitCast(b, moved, ft, "");
}

/* Narrowing float conversion with a rounding mode. */
static LLVMValueRef fp_trunc_rounded(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, int mode)
{
    LLVMValueRef r = LLVMBuildFPTrunc(c->b, v, t, "");
    if (mode < 0 || mode == SpvFPRoundingModeRTE)
        return r;
    LLVMValueRef back = LLVMBuildFPExt(c->b, r, LLVMTypeOf(v), "");
    return step_rounding(c, r, LLVMBuildFCmp(c->b, LLVMRealOGT, back, v, ""),
                         LLVMBuildFCmp(c->b, LLVMRealOLT, back, v, ""), mode);
}

/* Integer → float with a rounding mode; the comparison is exact in 128 bits. */
static LLVMValueRef int_to_fp_rounded(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, bool s, int mode)
{
    LLVMValueRef r = s ? LLVMBuildSIToFP(c->b, v, t, "") : LLVMBuildUIToFP(c->b, v, t, "");
    if (mode < 0 || mode == SpvFPRoundingModeRTE)
        return r;
    LLVMTypeRef wt = same_shape(c, t, LLVMIntTypeInContext(c->llc, 128));
    LLVMValueRef wide = jit_int_cast(c, v, wt, s);
    LLVMTypeRef tys[2] = { wt, t };
    LLVMValueRef back = jit_intrinsic(c, "llvm.fptosi.sat", tys, 2, &r, 1);
    return step_rounding(c, r, LLVMBuildICmp(c->b, LLVMIntSGT, back, wide, ""),
                         LLVMBuildICmp(c->b, LLVMIntSLT, back, wide, ""), mode);
}

static LLVMValueRef float_to_int(lower_ctx *c, const spv_inst *in, LLVMValueRef v, LLVMTypeRef t, bool s)
{
    int mode = rounding_mode(c, in);
    const char *round = mode == SpvFPRoundingModeRTE   ? "llvm.roundeven"
                        : mode == SpvFPRoundingModeRTP ? "llvm.ceil"
                        : mode == SpvFPRoundingModeRTN ? "llvm.floor"
                                                       : NULL;
    if (round) {
        LLVMTypeRef vt = LLVMTypeOf(v);
        v = jit_intrinsic(c, round, &vt, 1, &v, 1);
    }
    if (spv_find_decoration(c->m, in->result_id, -1, SpvDecorationSaturatedConversion)) {
        LLVMTypeRef tys[2] = { t, LLVMTypeOf(v) };
        return jit_intrinsic(c, s ? "llvm.fptosi.sat" : "llvm.fptoui.sat", tys, 2, &v, 1);
    }
    LLVMValueRef r = s ? LLVMBuildFPToSI(c->b, v, t, "") : LLVMBuildFPToUI(c->b, v, t, "");
    return LLVMBuildFreeze(c->b, r, "");
}

/* OpBitcast: same total size; pointers go through a 64-bit integer. */
static LLVMValueRef bitcast(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t)
{
    LLVMTypeRef st = LLVMTypeOf(v);
    bool sp = LLVMGetTypeKind(st) == LLVMPointerTypeKind, dp = LLVMGetTypeKind(t) == LLVMPointerTypeKind;
    if (sp && dp)
        return v;
    if (sp) {
        LLVMValueRef i = LLVMBuildPtrToInt(c->b, v, c->t_i64, "");
        return LLVMBuildBitCast(c->b, i, t, "");
    }
    if (dp) {
        LLVMValueRef i = LLVMBuildBitCast(c->b, v, c->t_i64, "");
        return LLVMBuildIntToPtr(c->b, i, t, "");
    }
    return LLVMBuildBitCast(c->b, v, t, "");
}

int jit_lower_convert(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v, r;
    if (jit_operands(c, in, &v, 1))
        return -1;
    LLVMTypeRef t = jit_type(c, in->type_id);
    if (!t)
        return -1;
    bool sat = spv_find_decoration(c->m, in->result_id, -1, SpvDecorationSaturatedConversion) != NULL;
    LLVMBuilderRef b = c->b;
    switch (in->opcode) {
    case SpvOpConvertFToU:
        r = float_to_int(c, in, v, t, false);
        break;
    case SpvOpConvertFToS:
        r = float_to_int(c, in, v, t, true);
        break;
    case SpvOpConvertSToF:
        r = int_to_fp_rounded(c, v, t, true, rounding_mode(c, in));
        break;
    case SpvOpConvertUToF:
        r = int_to_fp_rounded(c, v, t, false, rounding_mode(c, in));
        break;
    case SpvOpUConvert:
        r = (sat && jit_scalar_bits(t) < jit_scalar_bits(LLVMTypeOf(v))) ? saturate_int(c, v, t, false, false)
                                                         : jit_int_cast(c, v, t, false);
        break;
    case SpvOpSConvert:
        r = (sat && jit_scalar_bits(t) < jit_scalar_bits(LLVMTypeOf(v))) ? saturate_int(c, v, t, true, true)
                                                         : jit_int_cast(c, v, t, true);
        break;
    case SpvOpSatConvertSToU:
        r = saturate_int(c, v, t, true, false);
        break;
    case SpvOpSatConvertUToS:
        r = saturate_int(c, v, t, false, true);
        break;
    case SpvOpFConvert: {
        unsigned sw = jit_scalar_bits(LLVMTypeOf(v)), dw = jit_scalar_bits(t);
        r = sw == dw ? v : sw < dw ? LLVMBuildFPExt(b, v, t, "") : fp_trunc_rounded(c, v, t, rounding_mode(c, in));
        break;
    }
    case SpvOpQuantizeToF16: {
        LLVMTypeRef h = LLVMHalfTypeInContext(c->llc);
        if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
            h = LLVMVectorType(h, LLVMGetVectorSize(t));
        r = LLVMBuildFPExt(b, LLVMBuildFPTrunc(b, v, h, ""), t, "");
        break;
    }
    case SpvOpConvertPtrToU:
        r = LLVMBuildPtrToInt(b, v, t, "");
        break;
    case SpvOpConvertUToPtr:
        r = LLVMBuildIntToPtr(b, v, t, "");
        break;
    case SpvOpPtrCastToGeneric:
    case SpvOpGenericCastToPtr:
    case SpvOpGenericCastToPtrExplicit:
        r = v;
        break;
    case SpvOpBitcast:
        r = bitcast(c, v, t);
        break;
    default:
        return jit_fail_inst(c, in, "not a conversion");
    }
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    return 0;
}
