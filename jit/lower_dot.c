/* jit/lower_dot.c — integer dot products (SPV_KHR_integer_dot_product, SPIR-V 1.6).
 *
 * OpSDot / OpUDot / OpSUDot (Vector 1, Vector 2[, Packed Vector Format]) and
 * the ...AccSat forms (Vector 1, Vector 2, Accumulator[, format]).  Operands
 * are integer vectors, or 32-bit scalars holding four packed 8-bit lanes
 * (PackedVectorFormat4x8Bit).  Lanes are extended (signed for SDot and the
 * first operand of SUDot, unsigned otherwise) into a type wide enough that
 * the products, their sum and the accumulator cannot overflow; the plain forms
 * wrap to the result width, the AccSat forms add the accumulator and clamp to
 * the result type's range (signed for SDot / SUDot, unsigned for UDot).
 */
#include "lower_ctx.h"

static bool dot_signedness(uint32_t op, bool *s1, bool *s2, bool *acc)
{
    switch (op) {
    case SpvOpSDot:
        *s1 = *s2 = true;
        *acc = false;
        return true;
    case SpvOpUDot:
        *s1 = *s2 = false;
        *acc = false;
        return true;
    case SpvOpSUDot:
        *s1 = true;
        *s2 = false;
        *acc = false;
        return true;
    case SpvOpSDotAccSat:
        *s1 = *s2 = true;
        *acc = true;
        return true;
    case SpvOpUDotAccSat:
        *s1 = *s2 = false;
        *acc = true;
        return true;
    case SpvOpSUDotAccSat:
        *s1 = true;
        *s2 = false;
        *acc = true;
        return true;
    default:
        return false;
    }
}

/* A vector operand, a packed 4x8-bit scalar unpacked to <4 x i8>. */
static LLVMValueRef as_vector(lower_ctx *c, const spv_inst *in, LLVMValueRef v, bool packed)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        return v;
    if (!packed || t != c->t_i32) {
        jit_fail_inst(c, in, "a scalar operand needs the PackedVectorFormat4x8Bit operand and a 32-bit type");
        return NULL;
    }
    return LLVMBuildBitCast(c->b, v, LLVMVectorType(c->t_i8, 4), "");
}

int jit_lower_dot(lower_ctx *c, const spv_inst *in)
{
    bool s1, s2, acc_sat;
    if (!dot_signedness(in->opcode, &s1, &s2, &acc_sat))
        return jit_fail_inst(c, in, "not an integer dot product");
    uint32_t nfixed = acc_sat ? 3 : 2, nops = spv_inst_nops(in);
    bool packed = nops > nfixed;
    if (packed && spv_inst_op(in, nfixed) != SpvPackedVectorFormatPackedVectorFormat4x8Bit)
        return jit_fail_inst(c, in, "unknown packed vector format %u", spv_inst_op(in, nfixed));
    LLVMTypeRef rt = jit_type(c, in->type_id);
    if (!rt)
        return -1;
    if (LLVMGetTypeKind(rt) != LLVMIntegerTypeKind)
        return jit_fail_inst(c, in, "the result must be an integer scalar");
    LLVMValueRef a = jit_value(c, spv_inst_op(in, 0)), b = jit_value(c, spv_inst_op(in, 1));
    if (!a || !b)
        return -1;
    if (!(a = as_vector(c, in, a, packed)) || !(b = as_vector(c, in, b, packed)))
        return -1;
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(a)), ew = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(a)));
    unsigned rw = LLVMGetIntTypeWidth(rt);
    if (LLVMGetVectorSize(LLVMTypeOf(b)) != n)
        return jit_fail_inst(c, in, "the operands differ in component count");
    /* products take 2*ew bits, a sum of n of them a few more; the accumulator rw + 1 */
    unsigned ww = 2 * ew + 6;
    if (ww < rw + 2)
        ww = rw + 2;
    if (ww > 128)
        ww = 128;
    LLVMTypeRef wt = LLVMIntTypeInContext(c->llc, ww), wvt = LLVMVectorType(wt, n);
    LLVMValueRef prod = LLVMBuildMul(c->b, jit_int_cast(c, a, wvt, s1), jit_int_cast(c, b, wvt, s2), "");
    LLVMValueRef sum = jit_intrinsic(c, "llvm.vector.reduce.add", &wvt, 1, &prod, 1);
    if (!acc_sat) {
        jit_set(c, in->result_id, LLVMBuildTrunc(c->b, sum, rt, ""));
        return 0;
    }
    bool sres = in->opcode != SpvOpUDotAccSat;
    LLVMValueRef acc = jit_value(c, spv_inst_op(in, 2));
    if (!acc)
        return -1;
    sum = LLVMBuildAdd(c->b, sum, jit_int_cast(c, acc, wt, sres), "");
    uint64_t maxv =
        sres ? (rw >= 64 ? (uint64_t)INT64_MAX : (1ull << (rw - 1)) - 1) : (rw >= 64 ? ~0ull : (1ull << rw) - 1);
    LLVMValueRef hi = LLVMConstInt(wt, maxv, 0);
    LLVMValueRef lo = sres ? jit_int_cast(c, LLVMConstInt(rt, 1ull << (rw - 1), 0), wt, true) : LLVMConstNull(wt);
    LLVMValueRef r = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSGT, sum, hi, ""), hi, sum, "");
    r = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, r, lo, ""), lo, r, "");
    jit_set(c, in->result_id, LLVMBuildTrunc(c->b, r, rt, ""));
    return 0;
}
