/* jit/lower_relational.c — comparisons, logical operations, Select, Any/All and
 * the float classification tests (IsNan, IsInf, IsFinite, IsNormal, SignBitSet,
 * LessOrGreater, Ordered, Unordered).  Results are i1 / <n x i1>. */
#include "lower_ctx.h"

static int int_pred(uint32_t op, LLVMIntPredicate *p)
{
    switch (op) {
    case SpvOpIEqual:
    case SpvOpLogicalEqual:
        *p = LLVMIntEQ;
        return 1;
    case SpvOpINotEqual:
    case SpvOpLogicalNotEqual:
        *p = LLVMIntNE;
        return 1;
    case SpvOpUGreaterThan:
        *p = LLVMIntUGT;
        return 1;
    case SpvOpSGreaterThan:
        *p = LLVMIntSGT;
        return 1;
    case SpvOpUGreaterThanEqual:
        *p = LLVMIntUGE;
        return 1;
    case SpvOpSGreaterThanEqual:
        *p = LLVMIntSGE;
        return 1;
    case SpvOpULessThan:
        *p = LLVMIntULT;
        return 1;
    case SpvOpSLessThan:
        *p = LLVMIntSLT;
        return 1;
    case SpvOpULessThanEqual:
        *p = LLVMIntULE;
        return 1;
    case SpvOpSLessThanEqual:
        *p = LLVMIntSLE;
        return 1;
    default:
        return 0;
    }
}

static int real_pred(uint32_t op, LLVMRealPredicate *p)
{
    switch (op) {
    case SpvOpFOrdEqual:
        *p = LLVMRealOEQ;
        return 1;
    case SpvOpFUnordEqual:
        *p = LLVMRealUEQ;
        return 1;
    case SpvOpFOrdNotEqual:
    case SpvOpLessOrGreater:
        *p = LLVMRealONE;
        return 1;
    case SpvOpFUnordNotEqual:
        *p = LLVMRealUNE;
        return 1;
    case SpvOpFOrdLessThan:
        *p = LLVMRealOLT;
        return 1;
    case SpvOpFUnordLessThan:
        *p = LLVMRealULT;
        return 1;
    case SpvOpFOrdGreaterThan:
        *p = LLVMRealOGT;
        return 1;
    case SpvOpFUnordGreaterThan:
        *p = LLVMRealUGT;
        return 1;
    case SpvOpFOrdLessThanEqual:
        *p = LLVMRealOLE;
        return 1;
    case SpvOpFUnordLessThanEqual:
        *p = LLVMRealULE;
        return 1;
    case SpvOpFOrdGreaterThanEqual:
        *p = LLVMRealOGE;
        return 1;
    case SpvOpFUnordGreaterThanEqual:
        *p = LLVMRealUGE;
        return 1;
    case SpvOpOrdered:
        *p = LLVMRealORD;
        return 1;
    case SpvOpUnordered:
        *p = LLVMRealUNO;
        return 1;
    default:
        return 0;
    }
}

/* llvm.is.fpclass test masks */
enum { FC_NAN = 0x3, FC_INF = 0x204, FC_NORMAL = 0x108, FC_FINITE = 0x1F8 };

static LLVMValueRef fpclass(lower_ctx *c, LLVMValueRef x, unsigned mask)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    LLVMValueRef args[2] = { x, LLVMConstInt(c->t_i32, mask, 0) };
    return jit_intrinsic(c, "llvm.is.fpclass", &t, 1, args, 2);
}

static LLVMValueRef sign_bit(lower_ctx *c, LLVMValueRef x)
{
    LLVMTypeRef t = LLVMTypeOf(x), et = t;
    unsigned n = 0;
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
        n = LLVMGetVectorSize(t);
        et = LLVMGetElementType(t);
    }
    unsigned w = jit_scalar_bits(et);
    LLVMTypeRef it = LLVMIntTypeInContext(c->llc, w);
    if (n)
        it = LLVMVectorType(it, n);
    return LLVMBuildICmp(c->b, LLVMIntSLT, LLVMBuildBitCast(c->b, x, it, ""), LLVMConstNull(it), "");
}

int jit_lower_compare(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v[3], r;
    LLVMIntPredicate ip;
    LLVMRealPredicate rp;
    uint32_t op = in->opcode;
    uint32_t n = 2;
    switch (op) {
    case SpvOpSelect:
        n = 3;
        break;
    case SpvOpLogicalNot:
    case SpvOpAny:
    case SpvOpAll:
    case SpvOpIsNan:
    case SpvOpIsInf:
    case SpvOpIsFinite:
    case SpvOpIsNormal:
    case SpvOpSignBitSet:
        n = 1;
        break;
    default:
        break;
    }
    if (jit_operands(c, in, v, n))
        return -1;
    if (int_pred(op, &ip)) {
        r = LLVMBuildICmp(c->b, ip, v[0], v[1], "");
    } else if (real_pred(op, &rp)) {
        r = LLVMBuildFCmp(c->b, rp, v[0], v[1], "");
        jit_fp_flags(c, in->result_id, r);
    } else {
        switch (op) {
        case SpvOpLogicalOr:
            r = LLVMBuildOr(c->b, v[0], v[1], "");
            break;
        case SpvOpLogicalAnd:
            r = LLVMBuildAnd(c->b, v[0], v[1], "");
            break;
        case SpvOpLogicalNot:
            r = LLVMBuildNot(c->b, v[0], "");
            break;
        case SpvOpSelect:
            r = LLVMBuildSelect(c->b, v[0], v[1], v[2], "");
            break;
        case SpvOpAny:
        case SpvOpAll: {
            LLVMTypeRef t = LLVMTypeOf(v[0]);
            r = LLVMGetTypeKind(t) != LLVMVectorTypeKind
                    ? v[0]
                    : jit_intrinsic(c, op == SpvOpAny ? "llvm.vector.reduce.or" : "llvm.vector.reduce.and", &t, 1, v,
                                    1);
            break;
        }
        case SpvOpIsNan:
            r = fpclass(c, v[0], FC_NAN);
            break;
        case SpvOpIsInf:
            r = fpclass(c, v[0], FC_INF);
            break;
        case SpvOpIsFinite:
            r = fpclass(c, v[0], FC_FINITE);
            break;
        case SpvOpIsNormal:
            r = fpclass(c, v[0], FC_NORMAL);
            break;
        case SpvOpSignBitSet:
            r = sign_bit(c, v[0]);
            break;
        default:
            return jit_fail_inst(c, in, "not a relational instruction");
        }
    }
    jit_set(c, in->result_id, r);
    return 0;
}
