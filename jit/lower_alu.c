/* jit/lower_alu.c — integer and float arithmetic, bit operations.
 *
 * SPIR-V semantics over LLVM's: integer arithmetic wraps; a shift by >= the
 * width is masked (LLVM would give poison); division and remainder by zero or
 * INT_MIN / -1 divide by 1 instead (x86 idiv traps); the result is then
 * undefined per the spec but always a defined value here.  Float operations
 * carry fast-math flags only where FPFastMathMode decorates them.
 */
#include "lower_ctx.h"

#include <string.h>

static unsigned int_width(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        t = LLVMGetElementType(t);
    return LLVMGetIntTypeWidth(t);
}

/* The divisor to use: 1 where the division would trap or is undefined. */
static LLVMValueRef safe_divisor(lower_ctx *c, LLVMValueRef a, LLVMValueRef d, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(d);
    unsigned w = int_width(d);
    LLVMValueRef bad = LLVMBuildICmp(c->b, LLVMIntEQ, d, LLVMConstNull(t), "");
    if (is_signed) {
        LLVMValueRef min = jit_const_int(c, t, 1ull << (w - 1));
        LLVMValueRef ovf = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, a, min, ""),
                                        LLVMBuildICmp(c->b, LLVMIntEQ, d, LLVMConstAllOnes(t), ""), "");
        bad = LLVMBuildOr(c->b, bad, ovf, "");
    }
    return LLVMBuildSelect(c->b, bad, jit_const_int(c, t, 1), d, "");
}

/* {low, carry/borrow/high} results as a struct of two members of the operand type. */
static LLVMValueRef pair(lower_ctx *c, uint32_t type_id, LLVMValueRef lo, LLVMValueRef hi)
{
    LLVMValueRef parts[2] = { lo, hi };
    return jit_build_composite(c, type_id, parts, 2);
}

static LLVMValueRef mul_extended(lower_ctx *c, const spv_inst *in, LLVMValueRef a, LLVMValueRef b, bool is_signed)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    unsigned w = int_width(a);
    LLVMTypeRef wide = LLVMIntTypeInContext(c->llc, 2 * w);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        wide = LLVMVectorType(wide, LLVMGetVectorSize(t));
    LLVMValueRef p = LLVMBuildMul(c->b, jit_int_cast(c, a, wide, is_signed), jit_int_cast(c, b, wide, is_signed), "");
    LLVMValueRef lo = LLVMBuildTrunc(c->b, p, t, "");
    LLVMValueRef hi = LLVMBuildTrunc(c->b, LLVMBuildLShr(c->b, p, jit_const_int(c, wide, w), ""), t, "");
    return pair(c, in->type_id, lo, hi);
}

static LLVMValueRef add_carry(lower_ctx *c, const spv_inst *in, LLVMValueRef a, LLVMValueRef b, bool sub)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef r = sub ? LLVMBuildSub(c->b, a, b, "") : LLVMBuildAdd(c->b, a, b, "");
    LLVMValueRef flag = sub ? LLVMBuildICmp(c->b, LLVMIntULT, a, b, "") : LLVMBuildICmp(c->b, LLVMIntULT, r, a, "");
    return pair(c, in->type_id, r, LLVMBuildZExt(c->b, flag, t, ""));
}

/* OpFMod: the sign of a non-zero result follows the divisor. */
static LLVMValueRef fmod_divisor_sign(lower_ctx *c, LLVMValueRef a, LLVMValueRef d)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef r = LLVMBuildFRem(c->b, a, d, "");
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMValueRef nz = LLVMBuildFCmp(c->b, LLVMRealONE, r, zero, "");
    LLVMValueRef diff = LLVMBuildXor(c->b, LLVMBuildFCmp(c->b, LLVMRealOLT, r, zero, ""),
                                     LLVMBuildFCmp(c->b, LLVMRealOLT, d, zero, ""), "");
    return LLVMBuildSelect(c->b, LLVMBuildAnd(c->b, nz, diff, ""), LLVMBuildFAdd(c->b, r, d, ""), r, "");
}

/* OpSMod: the sign of a non-zero result follows the divisor. */
static LLVMValueRef smod(lower_ctx *c, LLVMValueRef a, LLVMValueRef d)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef r = LLVMBuildSRem(c->b, a, safe_divisor(c, a, d, true), "");
    LLVMValueRef zero = LLVMConstNull(t);
    LLVMValueRef fix = LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntNE, r, zero, ""),
                                    LLVMBuildICmp(c->b, LLVMIntSLT, LLVMBuildXor(c->b, r, d, ""), zero, ""), "");
    return LLVMBuildSelect(c->b, fix, LLVMBuildAdd(c->b, r, d, ""), r, "");
}

int jit_lower_arith(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[2], r = NULL;
    LLVMBuilderRef b = c->b;
    bool unary = in->opcode == SpvOpSNegate || in->opcode == SpvOpFNegate;
    if (jit_operands(c, in, v, unary ? 1 : 2))
        return -1;
    switch (in->opcode) {
    case SpvOpSNegate:
        r = LLVMBuildNeg(b, v[0], "");
        break;
    case SpvOpFNegate:
        r = LLVMBuildFNeg(b, v[0], "");
        break;
    case SpvOpIAdd:
        r = LLVMBuildAdd(b, v[0], v[1], "");
        break;
    case SpvOpISub:
        r = LLVMBuildSub(b, v[0], v[1], "");
        break;
    case SpvOpIMul:
        r = LLVMBuildMul(b, v[0], v[1], "");
        break;
    case SpvOpFAdd:
        r = LLVMBuildFAdd(b, v[0], v[1], "");
        break;
    case SpvOpFSub:
        r = LLVMBuildFSub(b, v[0], v[1], "");
        break;
    case SpvOpFMul:
        r = LLVMBuildFMul(b, v[0], v[1], "");
        break;
    case SpvOpFDiv:
        r = LLVMBuildFDiv(b, v[0], v[1], "");
        break;
    case SpvOpFRem:
        r = LLVMBuildFRem(b, v[0], v[1], "");
        break;
    case SpvOpFMod:
        r = fmod_divisor_sign(c, v[0], v[1]);
        break;
    case SpvOpUDiv:
        r = LLVMBuildUDiv(b, v[0], safe_divisor(c, v[0], v[1], false), "");
        break;
    case SpvOpUMod:
        r = LLVMBuildURem(b, v[0], safe_divisor(c, v[0], v[1], false), "");
        break;
    case SpvOpSDiv:
        r = LLVMBuildSDiv(b, v[0], safe_divisor(c, v[0], v[1], true), "");
        break;
    case SpvOpSRem:
        r = LLVMBuildSRem(b, v[0], safe_divisor(c, v[0], v[1], true), "");
        break;
    case SpvOpSMod:
        r = smod(c, v[0], v[1]);
        break;
    case SpvOpIAddCarry:
        r = add_carry(c, in, v[0], v[1], false);
        break;
    case SpvOpISubBorrow:
        r = add_carry(c, in, v[0], v[1], true);
        break;
    case SpvOpUMulExtended:
        r = mul_extended(c, in, v[0], v[1], false);
        break;
    case SpvOpSMulExtended:
        r = mul_extended(c, in, v[0], v[1], true);
        break;
    default:
        return jit_fail_inst(c, in, "not an arithmetic instruction");
    }
    if (!r)
        return -1;
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    return 0;
}

/* Shift amounts: cast to the base's width and masked to width - 1. */
static LLVMValueRef shift_amount(lower_ctx *c, LLVMValueRef base, LLVMValueRef s)
{
    LLVMValueRef a = jit_int_cast(c, s, LLVMTypeOf(base), false);
    return LLVMBuildAnd(c->b, a, jit_const_int(c, LLVMTypeOf(base), int_width(base) - 1), "");
}

/* Mask of `count` low bits (count may equal the width). */
static LLVMValueRef low_mask(lower_ctx *c, LLVMTypeRef t, LLVMValueRef count, unsigned w)
{
    LLVMValueRef ones = LLVMConstAllOnes(t);
    LLVMValueRef sh =
        LLVMBuildAnd(c->b, LLVMBuildSub(c->b, jit_const_int(c, t, w), count, ""), jit_const_int(c, t, w - 1), "");
    LLVMValueRef m = LLVMBuildLShr(c->b, ones, sh, "");
    return LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, count, LLVMConstNull(t), ""), LLVMConstNull(t), m, "");
}

static LLVMValueRef bitfield(lower_ctx *c, const spv_inst *in, LLVMValueRef *v)
{
    LLVMBuilderRef b = c->b;
    bool insert = in->opcode == SpvOpBitFieldInsert;
    LLVMValueRef base = v[0];
    LLVMTypeRef t = LLVMTypeOf(base);
    unsigned w = int_width(base);
    LLVMValueRef off = shift_amount(c, base, v[insert ? 2 : 1]);
    LLVMValueRef cnt = jit_int_cast(c, v[insert ? 3 : 2], t, false);
    LLVMValueRef mask = low_mask(c, t, cnt, w);
    if (insert) {
        LLVMValueRef m = LLVMBuildShl(b, mask, off, "");
        LLVMValueRef ins = LLVMBuildAnd(b, LLVMBuildShl(b, v[1], off, ""), m, "");
        return LLVMBuildOr(b, LLVMBuildAnd(b, base, LLVMBuildNot(b, m, ""), ""), ins, "");
    }
    if (in->opcode == SpvOpBitFieldUExtract)
        return LLVMBuildAnd(b, LLVMBuildLShr(b, base, off, ""), mask, "");
    /* signed: move the field to the top, then shift it down arithmetically */
    LLVMValueRef wv = jit_const_int(c, t, w), wm = jit_const_int(c, t, w - 1);
    LLVMValueRef up = LLVMBuildAnd(b, LLVMBuildSub(b, LLVMBuildSub(b, wv, off, ""), cnt, ""), wm, "");
    LLVMValueRef down = LLVMBuildAnd(b, LLVMBuildSub(b, wv, cnt, ""), wm, "");
    LLVMValueRef r = LLVMBuildAShr(b, LLVMBuildShl(b, base, up, ""), down, "");
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, cnt, LLVMConstNull(t), ""), LLVMConstNull(t), r, "");
}

int jit_lower_bits(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[4], r = NULL;
    LLVMBuilderRef b = c->b;
    uint32_t n = 2;
    switch (in->opcode) {
    case SpvOpNot:
    case SpvOpBitReverse:
    case SpvOpBitCount:
        n = 1;
        break;
    case SpvOpBitFieldInsert:
        n = 4;
        break;
    case SpvOpBitFieldSExtract:
    case SpvOpBitFieldUExtract:
        n = 3;
        break;
    default:
        break;
    }
    if (jit_operands(c, in, v, n))
        return -1;
    switch (in->opcode) {
    case SpvOpShiftLeftLogical:
        r = LLVMBuildShl(b, v[0], shift_amount(c, v[0], v[1]), "");
        break;
    case SpvOpShiftRightLogical:
        r = LLVMBuildLShr(b, v[0], shift_amount(c, v[0], v[1]), "");
        break;
    case SpvOpShiftRightArithmetic:
        r = LLVMBuildAShr(b, v[0], shift_amount(c, v[0], v[1]), "");
        break;
    case SpvOpBitwiseOr:
        r = LLVMBuildOr(b, v[0], v[1], "");
        break;
    case SpvOpBitwiseXor:
        r = LLVMBuildXor(b, v[0], v[1], "");
        break;
    case SpvOpBitwiseAnd:
        r = LLVMBuildAnd(b, v[0], v[1], "");
        break;
    case SpvOpNot:
        r = LLVMBuildNot(b, v[0], "");
        break;
    case SpvOpBitFieldInsert:
    case SpvOpBitFieldSExtract:
    case SpvOpBitFieldUExtract:
        r = bitfield(c, in, v);
        break;
    case SpvOpBitReverse: {
        LLVMTypeRef t = LLVMTypeOf(v[0]);
        r = jit_intrinsic(c, "llvm.bitreverse", &t, 1, v, 1);
        break;
    }
    case SpvOpBitCount: {
        LLVMTypeRef t = LLVMTypeOf(v[0]);
        LLVMTypeRef rt = jit_type(c, in->type_id);
        if (!rt)
            return -1;
        r = jit_int_cast(c, jit_intrinsic(c, "llvm.ctpop", &t, 1, v, 1), rt, false);
        break;
    }
    default:
        return jit_fail_inst(c, in, "not a bit instruction");
    }
    jit_set(c, in->result_id, r);
    return 0;
}
