/* jit/lower_inst.c — the driver of the lowering: the one dispatch table from
 * opcode to the lowering function of its class, and functions lowered block
 * by block through it.
 *
 * An opcode without an entry is an error naming it (from the generated grammar
 * tables), never a silent skip.  Instructions that only inform (names,
 * decorations, merges, lines) are lowered as no-ops on purpose.
 */
#include "lower_ctx.h"

#include <stdio.h>
#include <string.h>

#include "spirv_grammar.h"

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

/* OpGroup* collectives: at Workgroup scope through work-group memory
 * (lower_wgcoll.c), at Subgroup scope within the sub-group of one (lower_group.c). */
static int lower_group_collective(lower_ctx *c, const spv_inst *in)
{
    return jit_is_wg_collective(c, in) ? jit_lower_wg_group(c, in) : jit_lower_group(c, in);
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
    [SpvOpGroupAll] = lower_group_collective,
    [SpvOpGroupAny] = lower_group_collective,
    [SpvOpGroupBroadcast] = lower_group_collective,
    [SpvOpGroupIAdd] = lower_group_collective,
    [SpvOpGroupFAdd] = lower_group_collective,
    [SpvOpGroupFMin] = lower_group_collective,
    [SpvOpGroupUMin] = lower_group_collective,
    [SpvOpGroupSMin] = lower_group_collective,
    [SpvOpGroupFMax] = lower_group_collective,
    [SpvOpGroupUMax] = lower_group_collective,
    [SpvOpGroupSMax] = lower_group_collective,
    [SpvOpGroupIMulKHR] = lower_group_collective,
    [SpvOpGroupFMulKHR] = lower_group_collective,
    [SpvOpGroupBitwiseAndKHR] = lower_group_collective,
    [SpvOpGroupBitwiseOrKHR] = lower_group_collective,
    [SpvOpGroupBitwiseXorKHR] = lower_group_collective,
    [SpvOpGroupLogicalAndKHR] = lower_group_collective,
    [SpvOpGroupLogicalOrKHR] = lower_group_collective,
    [SpvOpGroupLogicalXorKHR] = lower_group_collective,
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
    if (f(c, in))
        return -1;
    if (c->fn) /* a pointer made in a function: its bounds (memory modes robust, check) */
        jit_bounds_after(c, in);
    return 0;
}

/* --- functions ---------------------------------------------------------------------- */

/* FuncParamAttr decorations of a parameter as LLVM attributes. */
static void param_attrs(lower_ctx *c, LLVMValueRef f, unsigned llvm_idx, uint32_t param_id)
{
    const spv_module *m = c->m;
    const spv_id *d = spv_id_get(m, param_id);
    for (uint32_t k = 0; d && k < d->dec_count; k++) {
        const spv_decoration *dec = &m->decs[d->dec_first + k];
        if (dec->decoration != SpvDecorationFuncParamAttr || !dec->nargs)
            continue;
        switch (dec->args[0]) {
        case SpvFunctionParameterAttributeNoAlias:
            jit_add_attr(c, f, llvm_idx, "noalias");
            break;
        case SpvFunctionParameterAttributeNoCapture:
            jit_add_attr(c, f, llvm_idx, "nocapture");
            break;
        case SpvFunctionParameterAttributeNoWrite:
            jit_add_attr(c, f, llvm_idx, "readonly");
            break;
        case SpvFunctionParameterAttributeNoReadWrite:
            jit_add_attr(c, f, llvm_idx, "readnone");
            break;
        default:
            break;
        }
    }
    if (spv_find_decoration(m, param_id, -1, SpvDecorationRestrict))
        jit_add_attr(c, f, llvm_idx, "noalias");
}

/* Only functions reachable from the compiled one get an LLVM function: another
 * entry point of the module (or a helper only it calls) would stay a body-less
 * internal declaration, which LLVM rejects. */
int jit_declare_functions(lower_ctx *c)
{
    for (uint32_t i = 0; i < c->m->nfuncs; i++) {
        const spv_function *f = &c->m->funcs[i];
        if (c->reach && !c->reach[i])
            continue;
        LLVMTypeRef ft = jit_type(c, f->fn_type);
        if (!ft)
            return -1;
        char name[96];
        snprintf(name, sizeof name, "spv.%u.%.64s", f->id, jit_name_of(c, f->id));
        LLVMValueRef fn = LLVMAddFunction(c->mod, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "alwaysinline");
        jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
        for (uint32_t p = 0; p < f->nparams; p++)
            param_attrs(c, fn, 3 + p, f->params[p]);
        c->fns[i] = fn;
    }
    return 0;
}

/* A ByVal pointer parameter (FuncParamAttr ByVal: "passed by value") gets
 * its own copy of the pointee in the prologue, so that the callee's stores
 * never reach the caller's object. */
static int copy_byval_param(lower_ctx *c, uint32_t param_id)
{
    bool byval = false;
    const spv_id *d = spv_id_get(c->m, param_id);
    for (uint32_t k = 0; d && k < d->dec_count; k++) {
        const spv_decoration *dec = &c->m->decs[d->dec_first + k];
        byval |= dec->decoration == SpvDecorationFuncParamAttr && dec->nargs &&
                 dec->args[0] == SpvFunctionParameterAttributeByVal;
    }
    const spv_type *pt = d ? spv_type_get(c->m, d->type_id) : NULL;
    if (!byval || !pt || pt->kind != SPV_TYPE_POINTER)
        return 0;
    const spv_layout *l = jit_layout_of(c, pt->elem);
    if (!l)
        return -1;
    unsigned align = l->align < 16 ? 16 : l->align;
    LLVMValueRef copy = LLVMBuildAlloca(c->pb, LLVMArrayType2(c->t_i8, l->size ? l->size : 1), "byval");
    LLVMSetAlignment(copy, align);
    LLVMBuildMemCpy(c->pb, copy, align, jit_value(c, param_id), 1, LLVMConstInt(c->t_i64, l->size, 0));
    jit_set(c, param_id, copy);
    jit_bounds_set(c, param_id, LLVMConstInt(c->t_i64, 0, 0), LLVMConstInt(c->t_i64, l->size, 0), SPVJIT_BOUND_VARIABLE,
                   param_id);
    return 0;
}

int jit_lower_function(lower_ctx *c, uint32_t fidx)
{
    const spv_module *m = c->m;
    const spv_function *f = &m->funcs[fidx];
    c->fn = f;
    c->llfn = c->fns[fidx];
    c->arg_ctx = LLVMGetParam(c->llfn, 0);
    c->arg_item = LLVMGetParam(c->llfn, 1);
    c->phis.size = 0;
    jit_clear_values(c);
    for (uint32_t p = 0; p < f->nparams; p++)
        jit_set(c, f->params[p], LLVMGetParam(c->llfn, 2 + p));
    jit_bounds_of_params(c, f, c->llfn);
    LLVMBasicBlockRef pro = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "prologue");
    LLVMPositionBuilderAtEnd(c->pb, pro);
    for (uint32_t p = 0; p < f->nparams; p++)
        if (copy_byval_param(c, f->params[p]))
            return -1;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        char name[24];
        snprintf(name, sizeof name, "L%u", f->blocks[b].label);
        c->blocks[f->blocks[b].label] = LLVMAppendBasicBlockInContext(c->llc, c->llfn, name);
        c->block_ends[f->blocks[b].label] = NULL;
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const spv_block *bl = &f->blocks[b];
        c->cur_label = bl->label;
        LLVMPositionBuilderAtEnd(c->fb, c->blocks[bl->label]);
        c->b = c->fb;
        for (uint32_t i = bl->first; i < bl->end; i++)
            if (jit_lower_inst(c, &m->insts[i]))
                return -1;
    }
    if (jit_fill_phis(c))
        return -1;
    LLVMPositionBuilderAtEnd(c->pb, pro);
    LLVMBuildBr(c->pb, c->blocks[f->blocks[0].label]);
    for (uint32_t b = 0; b < f->nblocks; b++)
        c->blocks[f->blocks[b].label] = NULL;
    c->llfn = NULL;
    return 0;
}
