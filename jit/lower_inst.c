/* jit/lower_inst.c — the one dispatch table from opcode to lowering function,
 * error reporting, and OpExtInst (handed to jit/extinst.h's lowerings).
 *
 * An opcode without an entry is an error naming it (from the generated grammar
 * tables), never a silent skip.  Instructions that only inform (names,
 * decorations, merges, lines) are lowered as no-ops on purpose.
 */
#include "lower_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extinst.h"
#include "spirv_grammar.h"

static void vfail(lower_ctx *c, const spv_inst *in, const char *fmt, va_list ap)
{
    char msg[1024], dis[512] = "";
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (in)
        spv_disasm_inst(c->m, in, dis, sizeof dis);
    const char *fn = (c->fn && c->m->ids[c->fn->id].name) ? c->m->ids[c->fn->id].name : NULL;
    spv_fail(c->diag, "%s: %s%s%s%s%s", c->m->source ? c->m->source : "<memory>", fn ? "in function " : "",
             fn ? fn : "", fn ? ": " : "", in ? dis : "", in ? ": " : "");
    spv_diag_append(c->diag, "%s", msg);
}

int jit_fail_inst(lower_ctx *c, const spv_inst *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, in, fmt, ap);
    va_end(ap);
    return -1;
}

int jit_fail(lower_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, NULL, fmt, ap);
    va_end(ap);
    return -1;
}

static int lower_nop(lower_ctx *c, const spv_inst *in)
{
    (void)c;
    (void)in;
    return 0;
}

static int lower_forbidden(lower_ctx *c, const spv_inst *in)
{
    return jit_fail_inst(c, in, "not allowed in a compute entry point");
}

#define JIT_MAX_OPCODE 6416

static const jit_lower_fn table[JIT_MAX_OPCODE] = {
    /* informational / handled elsewhere */
    [SpvOpNop] = lower_nop,
    [SpvOpLine] = lower_nop,
    [SpvOpNoLine] = lower_nop,
    [SpvOpUndef] = lower_nop,
    [SpvOpSelectionMerge] = jit_lower_cfg,
    [SpvOpLoopMerge] = jit_lower_cfg,
    [SpvOpLifetimeStart] = lower_nop,
    [SpvOpLifetimeStop] = lower_nop,
    [SpvOpSource] = lower_nop,
    [SpvOpName] = lower_nop,
    [SpvOpMemberName] = lower_nop,
    [SpvOpString] = lower_nop,
    [SpvOpModuleProcessed] = lower_nop,
    [SpvOpDecorate] = lower_nop,
    [SpvOpMemberDecorate] = lower_nop,
    [SpvOpAssumeTrueKHR] = lower_nop,
    [SpvOpExpectKHR] = jit_lower_composite,
    /* arithmetic */
    [SpvOpSNegate] = jit_lower_arith,
    [SpvOpFNegate] = jit_lower_arith,
    [SpvOpIAdd] = jit_lower_arith,
    [SpvOpFAdd] = jit_lower_arith,
    [SpvOpISub] = jit_lower_arith,
    [SpvOpFSub] = jit_lower_arith,
    [SpvOpIMul] = jit_lower_arith,
    [SpvOpFMul] = jit_lower_arith,
    [SpvOpUDiv] = jit_lower_arith,
    [SpvOpSDiv] = jit_lower_arith,
    [SpvOpFDiv] = jit_lower_arith,
    [SpvOpUMod] = jit_lower_arith,
    [SpvOpSRem] = jit_lower_arith,
    [SpvOpSMod] = jit_lower_arith,
    [SpvOpFRem] = jit_lower_arith,
    [SpvOpFMod] = jit_lower_arith,
    [SpvOpIAddCarry] = jit_lower_arith,
    [SpvOpISubBorrow] = jit_lower_arith,
    [SpvOpUMulExtended] = jit_lower_arith,
    [SpvOpSMulExtended] = jit_lower_arith,
    /* matrices and vectors */
    [SpvOpVectorTimesScalar] = jit_lower_matrix,
    [SpvOpMatrixTimesScalar] = jit_lower_matrix,
    [SpvOpVectorTimesMatrix] = jit_lower_matrix,
    [SpvOpMatrixTimesVector] = jit_lower_matrix,
    [SpvOpMatrixTimesMatrix] = jit_lower_matrix,
    [SpvOpOuterProduct] = jit_lower_matrix,
    [SpvOpDot] = jit_lower_matrix,
    [SpvOpTranspose] = jit_lower_matrix,
    /* bits */
    [SpvOpShiftRightLogical] = jit_lower_bits,
    [SpvOpShiftRightArithmetic] = jit_lower_bits,
    [SpvOpShiftLeftLogical] = jit_lower_bits,
    [SpvOpBitwiseOr] = jit_lower_bits,
    [SpvOpBitwiseXor] = jit_lower_bits,
    [SpvOpBitwiseAnd] = jit_lower_bits,
    [SpvOpNot] = jit_lower_bits,
    [SpvOpBitFieldInsert] = jit_lower_bits,
    [SpvOpBitFieldSExtract] = jit_lower_bits,
    [SpvOpBitFieldUExtract] = jit_lower_bits,
    [SpvOpBitReverse] = jit_lower_bits,
    [SpvOpBitCount] = jit_lower_bits,
    /* relational and logical */
    [SpvOpAny] = jit_lower_compare,
    [SpvOpAll] = jit_lower_compare,
    [SpvOpIsNan] = jit_lower_compare,
    [SpvOpIsInf] = jit_lower_compare,
    [SpvOpIsFinite] = jit_lower_compare,
    [SpvOpIsNormal] = jit_lower_compare,
    [SpvOpSignBitSet] = jit_lower_compare,
    [SpvOpLessOrGreater] = jit_lower_compare,
    [SpvOpOrdered] = jit_lower_compare,
    [SpvOpUnordered] = jit_lower_compare,
    [SpvOpLogicalEqual] = jit_lower_compare,
    [SpvOpLogicalNotEqual] = jit_lower_compare,
    [SpvOpLogicalOr] = jit_lower_compare,
    [SpvOpLogicalAnd] = jit_lower_compare,
    [SpvOpLogicalNot] = jit_lower_compare,
    [SpvOpSelect] = jit_lower_compare,
    [SpvOpIEqual] = jit_lower_compare,
    [SpvOpINotEqual] = jit_lower_compare,
    [SpvOpUGreaterThan] = jit_lower_compare,
    [SpvOpSGreaterThan] = jit_lower_compare,
    [SpvOpUGreaterThanEqual] = jit_lower_compare,
    [SpvOpSGreaterThanEqual] = jit_lower_compare,
    [SpvOpULessThan] = jit_lower_compare,
    [SpvOpSLessThan] = jit_lower_compare,
    [SpvOpULessThanEqual] = jit_lower_compare,
    [SpvOpSLessThanEqual] = jit_lower_compare,
    [SpvOpFOrdEqual] = jit_lower_compare,
    [SpvOpFUnordEqual] = jit_lower_compare,
    [SpvOpFOrdNotEqual] = jit_lower_compare,
    [SpvOpFUnordNotEqual] = jit_lower_compare,
    [SpvOpFOrdLessThan] = jit_lower_compare,
    [SpvOpFUnordLessThan] = jit_lower_compare,
    [SpvOpFOrdGreaterThan] = jit_lower_compare,
    [SpvOpFUnordGreaterThan] = jit_lower_compare,
    [SpvOpFOrdLessThanEqual] = jit_lower_compare,
    [SpvOpFUnordLessThanEqual] = jit_lower_compare,
    [SpvOpFOrdGreaterThanEqual] = jit_lower_compare,
    [SpvOpFUnordGreaterThanEqual] = jit_lower_compare,
    /* conversions */
    [SpvOpConvertFToU] = jit_lower_convert,
    [SpvOpConvertFToS] = jit_lower_convert,
    [SpvOpConvertSToF] = jit_lower_convert,
    [SpvOpConvertUToF] = jit_lower_convert,
    [SpvOpUConvert] = jit_lower_convert,
    [SpvOpSConvert] = jit_lower_convert,
    [SpvOpFConvert] = jit_lower_convert,
    [SpvOpQuantizeToF16] = jit_lower_convert,
    [SpvOpConvertPtrToU] = jit_lower_convert,
    [SpvOpSatConvertSToU] = jit_lower_convert,
    [SpvOpSatConvertUToS] = jit_lower_convert,
    [SpvOpConvertUToPtr] = jit_lower_convert,
    [SpvOpPtrCastToGeneric] = jit_lower_convert,
    [SpvOpGenericCastToPtr] = jit_lower_convert,
    [SpvOpGenericCastToPtrExplicit] = jit_lower_convert,
    [SpvOpBitcast] = jit_lower_convert,
    /* composites */
    [SpvOpVectorExtractDynamic] = jit_lower_composite,
    [SpvOpVectorInsertDynamic] = jit_lower_composite,
    [SpvOpVectorShuffle] = jit_lower_composite,
    [SpvOpCompositeConstruct] = jit_lower_composite,
    [SpvOpCompositeExtract] = jit_lower_composite,
    [SpvOpCompositeInsert] = jit_lower_composite,
    [SpvOpCopyObject] = jit_lower_composite,
    [SpvOpCopyLogical] = jit_lower_composite,
    /* memory */
    [SpvOpVariable] = jit_lower_memory,
    [SpvOpLoad] = jit_lower_memory,
    [SpvOpStore] = jit_lower_memory,
    [SpvOpCopyMemory] = jit_lower_memory,
    [SpvOpCopyMemorySized] = jit_lower_memory,
    [SpvOpAccessChain] = jit_lower_memory,
    [SpvOpInBoundsAccessChain] = jit_lower_memory,
    [SpvOpPtrAccessChain] = jit_lower_memory,
    [SpvOpInBoundsPtrAccessChain] = jit_lower_memory,
    [SpvOpArrayLength] = jit_lower_memory,
    [SpvOpPtrEqual] = jit_lower_memory,
    [SpvOpPtrNotEqual] = jit_lower_memory,
    [SpvOpPtrDiff] = jit_lower_memory,
    /* control flow */
    [SpvOpPhi] = jit_lower_cfg,
    [SpvOpBranch] = jit_lower_cfg,
    [SpvOpBranchConditional] = jit_lower_cfg,
    [SpvOpSwitch] = jit_lower_cfg,
    [SpvOpReturn] = jit_lower_cfg,
    [SpvOpReturnValue] = jit_lower_cfg,
    [SpvOpUnreachable] = jit_lower_cfg,
    [SpvOpFunctionCall] = jit_lower_cfg,
    [SpvOpKill] = lower_forbidden,
    [SpvOpTerminateInvocation] = lower_forbidden,
    [SpvOpDemoteToHelperInvocation] = lower_forbidden,
    /* atomics */
    [SpvOpAtomicLoad] = jit_lower_atomic,
    [SpvOpAtomicStore] = jit_lower_atomic,
    [SpvOpAtomicExchange] = jit_lower_atomic,
    [SpvOpAtomicCompareExchange] = jit_lower_atomic,
    [SpvOpAtomicCompareExchangeWeak] = jit_lower_atomic,
    [SpvOpAtomicIIncrement] = jit_lower_atomic,
    [SpvOpAtomicIDecrement] = jit_lower_atomic,
    [SpvOpAtomicIAdd] = jit_lower_atomic,
    [SpvOpAtomicISub] = jit_lower_atomic,
    [SpvOpAtomicSMin] = jit_lower_atomic,
    [SpvOpAtomicUMin] = jit_lower_atomic,
    [SpvOpAtomicSMax] = jit_lower_atomic,
    [SpvOpAtomicUMax] = jit_lower_atomic,
    [SpvOpAtomicAnd] = jit_lower_atomic,
    [SpvOpAtomicOr] = jit_lower_atomic,
    [SpvOpAtomicXor] = jit_lower_atomic,
    [SpvOpAtomicFlagTestAndSet] = jit_lower_atomic,
    [SpvOpAtomicFlagClear] = jit_lower_atomic,
    [SpvOpAtomicFAddEXT] = jit_lower_atomic,
    [SpvOpAtomicFMinEXT] = jit_lower_atomic,
    [SpvOpAtomicFMaxEXT] = jit_lower_atomic,
    /* barriers */
    [SpvOpControlBarrier] = jit_lower_barrier,
    [SpvOpMemoryBarrier] = jit_lower_barrier,
    /* groups (sub-group size 1) */
    [SpvOpGroupAsyncCopy] = jit_lower_wg_group,
    [SpvOpGroupWaitEvents] = jit_lower_wg_group,
    [SpvOpSDot] = jit_lower_dot,
    [SpvOpUDot] = jit_lower_dot,
    [SpvOpSUDot] = jit_lower_dot,
    [SpvOpSDotAccSat] = jit_lower_dot,
    [SpvOpUDotAccSat] = jit_lower_dot,
    [SpvOpSUDotAccSat] = jit_lower_dot,
    [SpvOpGroupAll] = jit_lower_group,
    [SpvOpGroupAny] = jit_lower_group,
    [SpvOpGroupBroadcast] = jit_lower_group,
    [SpvOpGroupIAdd] = jit_lower_group,
    [SpvOpGroupFAdd] = jit_lower_group,
    [SpvOpGroupFMin] = jit_lower_group,
    [SpvOpGroupUMin] = jit_lower_group,
    [SpvOpGroupSMin] = jit_lower_group,
    [SpvOpGroupFMax] = jit_lower_group,
    [SpvOpGroupUMax] = jit_lower_group,
    [SpvOpGroupSMax] = jit_lower_group,
    [SpvOpGroupIMulKHR] = jit_lower_group,
    [SpvOpGroupFMulKHR] = jit_lower_group,
    [SpvOpGroupBitwiseAndKHR] = jit_lower_group,
    [SpvOpGroupBitwiseOrKHR] = jit_lower_group,
    [SpvOpGroupBitwiseXorKHR] = jit_lower_group,
    [SpvOpGroupLogicalAndKHR] = jit_lower_group,
    [SpvOpGroupLogicalOrKHR] = jit_lower_group,
    [SpvOpGroupLogicalXorKHR] = jit_lower_group,
    [SpvOpGroupNonUniformElect] = jit_lower_group,
    [SpvOpGroupNonUniformAll] = jit_lower_group,
    [SpvOpGroupNonUniformAny] = jit_lower_group,
    [SpvOpGroupNonUniformAllEqual] = jit_lower_group,
    [SpvOpGroupNonUniformBroadcast] = jit_lower_group,
    [SpvOpGroupNonUniformBroadcastFirst] = jit_lower_group,
    [SpvOpGroupNonUniformBallot] = jit_lower_group,
    [SpvOpGroupNonUniformInverseBallot] = jit_lower_group,
    [SpvOpGroupNonUniformBallotBitExtract] = jit_lower_group,
    [SpvOpGroupNonUniformBallotBitCount] = jit_lower_group,
    [SpvOpGroupNonUniformBallotFindLSB] = jit_lower_group,
    [SpvOpGroupNonUniformBallotFindMSB] = jit_lower_group,
    [SpvOpGroupNonUniformShuffle] = jit_lower_group,
    [SpvOpGroupNonUniformShuffleXor] = jit_lower_group,
    [SpvOpGroupNonUniformShuffleUp] = jit_lower_group,
    [SpvOpGroupNonUniformShuffleDown] = jit_lower_group,
    [SpvOpGroupNonUniformIAdd] = jit_lower_group,
    [SpvOpGroupNonUniformFAdd] = jit_lower_group,
    [SpvOpGroupNonUniformIMul] = jit_lower_group,
    [SpvOpGroupNonUniformFMul] = jit_lower_group,
    [SpvOpGroupNonUniformSMin] = jit_lower_group,
    [SpvOpGroupNonUniformUMin] = jit_lower_group,
    [SpvOpGroupNonUniformFMin] = jit_lower_group,
    [SpvOpGroupNonUniformSMax] = jit_lower_group,
    [SpvOpGroupNonUniformUMax] = jit_lower_group,
    [SpvOpGroupNonUniformFMax] = jit_lower_group,
    [SpvOpGroupNonUniformBitwiseAnd] = jit_lower_group,
    [SpvOpGroupNonUniformBitwiseOr] = jit_lower_group,
    [SpvOpGroupNonUniformBitwiseXor] = jit_lower_group,
    [SpvOpGroupNonUniformLogicalAnd] = jit_lower_group,
    [SpvOpGroupNonUniformLogicalOr] = jit_lower_group,
    [SpvOpGroupNonUniformLogicalXor] = jit_lower_group,
    [SpvOpGroupNonUniformQuadBroadcast] = jit_lower_group,
    [SpvOpGroupNonUniformQuadSwap] = jit_lower_group,
    [SpvOpGroupNonUniformRotateKHR] = jit_lower_group,
    [SpvOpSubgroupBallotKHR] = jit_lower_group,
    [SpvOpSubgroupFirstInvocationKHR] = jit_lower_group,
    [SpvOpSubgroupAllKHR] = jit_lower_group,
    [SpvOpSubgroupAnyKHR] = jit_lower_group,
    [SpvOpSubgroupAllEqualKHR] = jit_lower_group,
    [SpvOpSubgroupReadInvocationKHR] = jit_lower_group,
    /* extended instruction sets */
    [SpvOpExtInst] = jit_lower_extinst,
};

bool spvjit_opcode_lowered(uint32_t opcode)
{
    return opcode < JIT_MAX_OPCODE && table[opcode] && table[opcode] != lower_forbidden;
}

int jit_lower_inst(lower_ctx *c, const spv_inst *in)
{
    jit_lower_fn f = in->opcode < JIT_MAX_OPCODE ? table[in->opcode] : NULL;
    if (!f) {
        const char *name = spv_opcode_name(in->opcode);
        return jit_fail_inst(c, in, "Op%s (opcode %u) has no lowering in the JIT yet",
                             name ? (strncmp(name, "Op", 2) == 0 ? name + 2 : name) : "?", in->opcode);
    }
    return f(c, in);
}

/* --- OpExtInst ------------------------------------------------------------------ */

/* The bytes of a constant string an OpenCL printf format pointer designates. */
static char *format_string(lower_ctx *c, uint32_t id)
{
    for (int depth = 0; depth < 8; depth++) {
        const spv_inst *d = spv_def(c->m, id);
        if (!d)
            return NULL;
        if (d->opcode == SpvOpSpecConstantOp && spv_inst_nops(d) >= 2) {
            id = spv_inst_op(d, 1);
            continue;
        }
        if (d->opcode == SpvOpInBoundsPtrAccessChain || d->opcode == SpvOpPtrAccessChain ||
            d->opcode == SpvOpAccessChain || d->opcode == SpvOpInBoundsAccessChain || d->opcode == SpvOpBitcast ||
            d->opcode == SpvOpPtrCastToGeneric) {
            id = spv_inst_op(d, 0);
            continue;
        }
        if (d->opcode != SpvOpVariable || spv_inst_nops(d) < 2)
            return NULL;
        const spv_id *init = spv_id_get(c->m, spv_inst_op(d, 1));
        if (!init || !init->is_composite)
            return NULL;
        char *s = calloc(init->nparts + 1, 1);
        for (uint32_t i = 0; i < init->nparts; i++)
            s[i] = (char)c->m->ids[init->parts[i]].scalar;
        return s;
    }
    return NULL;
}

int jit_lower_extinst(lower_ctx *c, const spv_inst *in)
{
    const spv_id *set = spv_id_get(c->m, spv_inst_op(in, 0));
    uint32_t inst = spv_inst_op(in, 1), n = spv_inst_nops(in) - 2;
    if (!set || set->kind != SPV_ID_EXT_IMPORT)
        return jit_fail_inst(c, in, "set is not an OpExtInstImport");
    if (set->ext_set == SPV_EXT_NONSEMANTIC)
        return 0;
    if (set->ext_set != SPV_EXT_GLSL_STD_450 && set->ext_set != SPV_EXT_OPENCL_STD)
        return jit_fail_inst(c, in, "unknown extended instruction set");
    LLVMValueRef *args = calloc(n + 1, sizeof *args);
    LLVMTypeRef *pointees = calloc(n + 1, sizeof *pointees);
    char *fmt = NULL;
    int rc = -1;
    /* OpenCL.std operands that are literals, not ids: vloadn / vload_halfn /
     * vloada_halfn's n (operand 2), vstore*_r's rounding mode (operand 3). */
    int literal_at = -1;
    if (set->ext_set == SPV_EXT_OPENCL_STD)
        literal_at = (inst == 171 || inst == 174 || inst == 179)   ? 2
                     : (inst == 176 || inst == 178 || inst == 181) ? 3
                                                                   : -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = spv_inst_op(in, 2 + i);
        if ((int)i == literal_at) {
            args[i] = LLVMConstInt(c->t_i32, id, 0);
            continue;
        }
        if (!(args[i] = jit_value(c, id)))
            goto out;
        const spv_type *t = spv_type_get(c->m, c->m->ids[id].type_id);
        if (t && t->kind == SPV_TYPE_POINTER && t->elem && !(pointees[i] = jit_type(c, t->elem)))
            goto out;
    }
    ext_lower_ctx e = {
        .ctx = c->llc,
        .mod = c->mod,
        .b = c->b,
        .result_type = jit_type(c, in->type_id),
        .pointee_types = pointees,
        .printf_format = NULL,
        .wg_ctx = c->arg_ctx,
    };
    if (!e.result_type)
        goto out;
    if (set->ext_set == SPV_EXT_OPENCL_STD && inst == 184 /* printf */ && n >= 1) {
        if (!(fmt = format_string(c, spv_inst_op(in, 2)))) {
            jit_fail_inst(c, in, "printf format is not a constant string");
            goto out;
        }
        e.printf_format = fmt;
    }
    LLVMValueRef r = set->ext_set == SPV_EXT_GLSL_STD_450 ? lower_glsl450(&e, inst, args, n, c->diag)
                                                          : lower_opencl_std(&e, inst, args, n, c->diag);
    if (!r) {
        char msg[sizeof c->diag->msg];
        snprintf(msg, sizeof msg, "%s", c->diag->msg);
        jit_fail_inst(c, in, "%s", msg);
        goto out;
    }
    jit_fp_flags(c, in->result_id, r);
    jit_set(c, in->result_id, r);
    rc = 0;
out:
    free(args);
    free(pointees);
    free(fmt);
    return rc;
}
