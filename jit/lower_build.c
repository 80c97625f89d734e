/* jit/lower_build.c — small IR-building helpers every instruction class uses:
 * operands as values, intrinsic calls, splats, integer width changes,
 * fast-math flags, the identity of group operations. */
#include "lower_ctx.h"

#include <string.h>
#include <llvm-c/DebugInfo.h>

void jit_add_attr(lower_ctx *c, LLVMValueRef fn, unsigned idx, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(c->llc, kind, 0));
}

void jit_mark(lower_ctx *c, LLVMValueRef v, const char *kind)
{
    LLVMSetMetadata(v, LLVMGetMDKindIDInContext(c->llc, kind, (unsigned)strlen(kind)),
                    LLVMMetadataAsValue(c->llc, LLVMMDNodeInContext2(c->llc, NULL, 0)));
}

void jit_loop_hint(lower_ctx *c, LLVMValueRef br, const char *hint, LLVMValueRef arg)
{
    LLVMMetadataRef ops[2] = { LLVMMDStringInContext2(c->llc, hint, strlen(hint)),
                               arg ? LLVMValueAsMetadata(arg) : NULL };
    LLVMMetadataRef prop = LLVMMDNodeInContext2(c->llc, ops, arg ? 2 : 1);
    LLVMMetadataRef self = LLVMTemporaryMDNode(c->llc, NULL, 0);
    LLVMMetadataRef loop = LLVMMDNodeInContext2(c->llc, (LLVMMetadataRef[]){ self, prop }, 2);
    LLVMMetadataReplaceAllUsesWith(self, loop); /* the loop id refers to itself */
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c->llc, "llvm.loop", 9), LLVMMetadataAsValue(c->llc, loop));
}

void jit_weigh_likely(LLVMValueRef br, unsigned likely)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(br));
    LLVMTypeRef i32 = LLVMInt32TypeInContext(llc);
    LLVMMetadataRef w[3] = { LLVMMDStringInContext2(llc, "branch_weights", 14),
                             LLVMValueAsMetadata(LLVMConstInt(i32, likely, 0)),
                             LLVMValueAsMetadata(LLVMConstInt(i32, 1, 0)) };
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(llc, "prof", 4),
                    LLVMMetadataAsValue(llc, LLVMMDNodeInContext2(llc, w, 3)));
}

void jit_no_unroll(lower_ctx *c, LLVMValueRef br)
{
    jit_loop_hint(c, br, "llvm.loop.unroll.disable", NULL);
}

void jit_set_align(lower_ctx *c, LLVMValueRef load, uint64_t align)
{
    LLVMMetadataRef a = LLVMValueAsMetadata(LLVMConstInt(c->t_i64, align, 0));
    LLVMSetMetadata(load, LLVMGetMDKindIDInContext(c->llc, "align", 5),
                    LLVMMetadataAsValue(c->llc, LLVMMDNodeInContext2(c->llc, &a, 1)));
}

int jit_operands(lower_ctx *c, const spv_inst *in, LLVMValueRef *v, uint32_t n)
{
    if (spv_inst_nops(in) < n)
        return jit_fail_inst(c, in, "expected %u operands", n);
    for (uint32_t i = 0; i < n; i++)
        if (!(v[i] = jit_value(c, spv_inst_op(in, i))))
            return -1;
    return 0;
}

LLVMValueRef jit_intrinsic(lower_ctx *c, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                           unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(c->mod, id, types, ntypes);
    LLVMTypeRef ft = LLVMIntrinsicGetType(c->llc, id, types, ntypes);
    return LLVMBuildCall2(c->b, ft, f, args, nargs, "");
}

LLVMValueRef jit_splat(lower_ctx *c, LLVMValueRef s, LLVMTypeRef vec_t)
{
    if (LLVMGetTypeKind(vec_t) != LLVMVectorTypeKind)
        return s;
    if (LLVMGetTypeKind(LLVMTypeOf(s)) == LLVMVectorTypeKind)
        return s;
    unsigned n = LLVMGetVectorSize(vec_t);
    LLVMValueRef v = LLVMConstNull(LLVMVectorType(LLVMTypeOf(s), n));
    for (unsigned i = 0; i < n; i++)
        v = LLVMBuildInsertElement(c->b, v, s, LLVMConstInt(c->t_i32, i, 0), "");
    return v;
}

/* Integer width change (component-wise for vectors); splats a scalar to a vector type. */
LLVMValueRef jit_int_cast(lower_ctx *c, LLVMValueRef v, LLVMTypeRef t, bool is_signed)
{
    LLVMTypeRef vt = LLVMTypeOf(v);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind && LLVMGetTypeKind(vt) != LLVMVectorTypeKind) {
        v = jit_int_cast(c, v, LLVMGetElementType(t), is_signed);
        return jit_splat(c, v, t);
    }
    LLVMTypeRef se = LLVMGetTypeKind(vt) == LLVMVectorTypeKind ? LLVMGetElementType(vt) : vt;
    LLVMTypeRef de = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    unsigned sw = LLVMGetIntTypeWidth(se), dw = LLVMGetIntTypeWidth(de);
    if (sw == dw)
        return v;
    if (sw > dw)
        return LLVMBuildTrunc(c->b, v, t, "");
    return is_signed ? LLVMBuildSExt(c->b, v, t, "") : LLVMBuildZExt(c->b, v, t, "");
}

uint8_t jit_fp_relaxed_widths(const spv_entry_point *ep, bool kernel)
{
    if (kernel)
        return 0;
    uint8_t r = 7;
    for (uint32_t i = 0; ep && i < ep->nmodes; i++) { /* ep NULL: an exported function */
        const spv_exec_mode *em = &ep->modes[i];
        if (em->mode == SpvExecutionModeSignedZeroInfNanPreserve && em->nargs && !em->is_id)
            r &= (uint8_t) ~(em->args[0] == 16 ? 1 : em->args[0] == 32 ? 2 : em->args[0] == 64 ? 4 : 0);
    }
    return r;
}

bool jit_fp_contract_allowed(const spv_entry_point *ep, bool kernel)
{
    if (kernel) /* OpenCL C's front end contracted what the source let it (fmuladd: OpenCL's mad) */
        return false;
    for (uint32_t i = 0; ep && i < ep->nmodes; i++) {
        uint32_t mode = ep->modes[i].mode;
        /* FPFastMathDefault (SPV_KHR_float_controls2, 6028): the defaults it
         * names would say; not read, so nothing contracts */
        if (mode == SpvExecutionModeContractionOff || mode == 6028)
            return false;
    }
    return true;
}

/* Whether v is float arithmetic of a width c relaxes. */
static bool relaxed_arith(lower_ctx *c, LLVMValueRef v)
{
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMFAdd:
    case LLVMFSub:
    case LLVMFMul:
    case LLVMFDiv:
    case LLVMFRem:
    case LLVMFNeg:
        break;
    default:
        return false;
    }
    unsigned bits = jit_scalar_bits(LLVMTypeOf(v)); /* fp_relaxed: bit 0 half, 1 float, 2 double */
    return c->fp_relaxed & (bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 4 : 0);
}

/* Marks v, a multiply, add or subtract, for contract.h when `allowed` and
 * no NoContraction decorates it. */
static void mark_contract(lower_ctx *c, uint32_t result_id, LLVMValueRef v, bool allowed)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    if (!allowed || (op != LLVMFAdd && op != LLVMFSub && op != LLVMFMul) ||
        spv_find_decoration(c->m, result_id, -1, SpvDecorationNoContraction))
        return;
    jit_mark(c, v, JIT_CONTRACT_MD);
}

void jit_fp_flags(lower_ctx *c, uint32_t result_id, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || !LLVMCanValueUseFastMathFlags(v))
        return;
    const spv_decoration *d = spv_find_decoration(c->m, result_id, -1, SpvDecorationFPFastMathMode);
    if (!d || !d->nargs) {
        if (relaxed_arith(c, v))
            LLVMSetFastMathFlags(v, LLVMFastMathNoNaNs | LLVMFastMathNoInfs | LLVMFastMathNoSignedZeros);
        mark_contract(c, result_id, v, c->fp_contract);
        return;
    }
    uint32_t m = d->args[0];
    LLVMFastMathFlags f = 0;
    if (m & SpvFPFastMathModeNotNaNMask)
        f |= LLVMFastMathNoNaNs;
    if (m & SpvFPFastMathModeNotInfMask)
        f |= LLVMFastMathNoInfs;
    if (m & SpvFPFastMathModeNSZMask)
        f |= LLVMFastMathNoSignedZeros;
    if (m & SpvFPFastMathModeAllowRecipMask)
        f |= LLVMFastMathAllowReciprocal;
    if (m & 0x10000)
        f |= LLVMFastMathAllowContract; /* AllowContract (SPV_KHR_float_controls2) */
    if (m & 0x20000)
        f |= LLVMFastMathAllowReassoc; /* AllowReassoc */
    if (m & 0x40000)
        f |= LLVMFastMathApproxFunc; /* AllowTransform */
    if (m & SpvFPFastMathModeFastMask)
        f = LLVMFastMathAll;
    if (spv_find_decoration(c->m, result_id, -1, SpvDecorationNoContraction))
        f &= ~LLVMFastMathAllowContract;
    LLVMSetFastMathFlags(v, f);
    mark_contract(c, result_id, v, f & LLVMFastMathAllowContract);
}

jit_sg_arith jit_group_arith(uint32_t op)
{
    switch (op) {
    case SpvOpGroupNonUniformIMul:
    case SpvOpGroupIMulKHR:
        return JIT_SG_MUL;
    case SpvOpGroupNonUniformFAdd:
    case SpvOpGroupFAdd:
        return JIT_SG_FADD;
    case SpvOpGroupNonUniformFMul:
    case SpvOpGroupFMulKHR:
        return JIT_SG_FMUL;
    case SpvOpGroupNonUniformSMin:
    case SpvOpGroupSMin:
        return JIT_SG_SMIN;
    case SpvOpGroupNonUniformUMin:
    case SpvOpGroupUMin:
        return JIT_SG_UMIN;
    case SpvOpGroupNonUniformFMin:
    case SpvOpGroupFMin:
        return JIT_SG_FMIN;
    case SpvOpGroupNonUniformSMax:
    case SpvOpGroupSMax:
        return JIT_SG_SMAX;
    case SpvOpGroupNonUniformUMax:
    case SpvOpGroupUMax:
        return JIT_SG_UMAX;
    case SpvOpGroupNonUniformFMax:
    case SpvOpGroupFMax:
        return JIT_SG_FMAX;
    case SpvOpGroupNonUniformBitwiseAnd:
    case SpvOpGroupNonUniformLogicalAnd:
    case SpvOpGroupBitwiseAndKHR:
    case SpvOpGroupLogicalAndKHR:
    case SpvOpGroupAll:
        return JIT_SG_AND;
    case SpvOpGroupNonUniformBitwiseOr:
    case SpvOpGroupNonUniformLogicalOr:
    case SpvOpGroupBitwiseOrKHR:
    case SpvOpGroupLogicalOrKHR:
    case SpvOpGroupAny:
        return JIT_SG_OR;
    case SpvOpGroupNonUniformBitwiseXor:
    case SpvOpGroupNonUniformLogicalXor:
    case SpvOpGroupBitwiseXorKHR:
    case SpvOpGroupLogicalXorKHR:
        return JIT_SG_XOR;
    default: /* IAdd of both kinds */
        return JIT_SG_ADD;
    }
}

unsigned jit_scalar_bits(LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
        t = LLVMGetElementType(t);
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind:
        return LLVMGetIntTypeWidth(t);
    case LLVMHalfTypeKind:
        return 16;
    case LLVMFloatTypeKind:
        return 32;
    case LLVMDoubleTypeKind:
        return 64;
    default:
        return 0;
    }
}
