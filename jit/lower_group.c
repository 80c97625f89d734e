/* jit/lower_group.c — sub-group operations with a sub-group size of 1.
 *
 * With one invocation per sub-group (spec-legal; jit.h documents it) every
 * OpGroupNonUniform* and every Subgroup-scope OpGroup* has one participant:
 * broadcasts, shuffles, reductions, inclusive scans return the value itself;
 * exclusive scans return the operation's identity; ballots have only bit 0.
 * Work-group-scope OpGroup* collectives are lowered in lower_wgcoll.c (the
 * opcode table picks by scope).
 */
#include "lower_ctx.h"

#include "spirv_grammar.h"

/* Reductions and scans: the instructions with a GroupOperation operand in the
 * grammar, but the ballot bit count (which counts bits, not values). */
static bool is_arith(uint32_t op)
{
    const spv_opcode_desc *d = spv_opcode_desc_get(op);
    if (!d || op == SpvOpGroupNonUniformBallotBitCount)
        return false;
    for (unsigned i = 0; i < d->noperands; i++)
        if (d->operands[i].kind == SPV_OPERAND_GroupOperation)
            return true;
    return false;
}

/* Bit 0 of a ballot value (<4 x i32>), as i1. */
static LLVMValueRef ballot_bit0(lower_ctx *c, LLVMValueRef v)
{
    LLVMValueRef x = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind
                         ? LLVMBuildExtractElement(c->b, v, LLVMConstInt(c->t_i32, 0, 0), "")
                         : v;
    return LLVMBuildTrunc(c->b, x, c->t_i1, "");
}

static LLVMValueRef val(lower_ctx *c, const spv_inst *in, uint32_t i)
{
    return jit_value(c, spv_inst_op(in, i));
}

static LLVMValueRef group_op(lower_ctx *c, const spv_inst *in)
{
    LLVMTypeRef t = in->type_id ? jit_type(c, in->type_id) : NULL;
    uint32_t op = in->opcode;
    if (is_arith(op)) {
        uint32_t gop = spv_inst_op(in, 1);
        LLVMValueRef x = val(c, in, 2);
        if (!x)
            return NULL;
        return gop == SpvGroupOperationExclusiveScan ? jit_group_identity(c, op, t) : x;
    }
    switch (op) {
    case SpvOpGroupNonUniformElect:
    case SpvOpGroupNonUniformAllEqual:
    case SpvOpSubgroupAllEqualKHR:
        return LLVMConstInt(c->t_i1, 1, 0);
    case SpvOpGroupNonUniformAll:
    case SpvOpGroupNonUniformAny:
    case SpvOpGroupAll:
    case SpvOpGroupAny:
    case SpvOpGroupNonUniformBroadcastFirst:
    case SpvOpGroupNonUniformBroadcast:
    case SpvOpGroupBroadcast:
    case SpvOpGroupNonUniformShuffle:
    case SpvOpGroupNonUniformShuffleXor:
    case SpvOpGroupNonUniformShuffleUp:
    case SpvOpGroupNonUniformShuffleDown:
    case SpvOpGroupNonUniformQuadBroadcast:
    case SpvOpGroupNonUniformQuadSwap:
    case SpvOpGroupNonUniformRotateKHR:
        return val(c, in, 1);
    case SpvOpSubgroupAllKHR:
    case SpvOpSubgroupAnyKHR:
    case SpvOpSubgroupFirstInvocationKHR:
    case SpvOpSubgroupReadInvocationKHR:
        return val(c, in, 0);
    case SpvOpGroupNonUniformBallot:
    case SpvOpSubgroupBallotKHR: {
        LLVMValueRef p = val(c, in, op == SpvOpSubgroupBallotKHR ? 0 : 1);
        if (!p)
            return NULL;
        return LLVMBuildInsertElement(c->b, LLVMConstNull(t), LLVMBuildZExt(c->b, p, c->t_i32, ""),
                                      LLVMConstInt(c->t_i32, 0, 0), "");
    }
    case SpvOpGroupNonUniformInverseBallot: {
        LLVMValueRef v = val(c, in, 1);
        return v ? ballot_bit0(c, v) : NULL;
    }
    case SpvOpGroupNonUniformBallotBitExtract: {
        LLVMValueRef v = val(c, in, 1), i = val(c, in, 2);
        if (!v || !i)
            return NULL;
        i = jit_int_cast(c, i, c->t_i32, false);
        LLVMValueRef w = LLVMBuildExtractElement(c->b, v, LLVMBuildLShr(c->b, i, LLVMConstInt(c->t_i32, 5, 0), ""), "");
        LLVMValueRef bit = LLVMBuildLShr(c->b, w, LLVMBuildAnd(c->b, i, LLVMConstInt(c->t_i32, 31, 0), ""), "");
        return LLVMBuildTrunc(c->b, bit, c->t_i1, "");
    }
    case SpvOpGroupNonUniformBallotBitCount: {
        LLVMValueRef v = val(c, in, 2);
        if (!v)
            return NULL;
        if (spv_inst_op(in, 1) == SpvGroupOperationExclusiveScan)
            return LLVMConstNull(t);
        return LLVMBuildZExt(c->b, ballot_bit0(c, v), t, "");
    }
    case SpvOpGroupNonUniformBallotFindLSB:
    case SpvOpGroupNonUniformBallotFindMSB:
        return val(c, in, 1) ? LLVMConstNull(t) : NULL; /* only invocation 0 exists */
    default:
        jit_fail_inst(c, in, "sub-group instruction not supported");
        return NULL;
    }
}

int jit_lower_group(lower_ctx *c, const spv_inst *in)
{
    /* everything but the SPV_KHR_shader_ballot instructions takes a Scope first */
    if (in->opcode != SpvOpSubgroupBallotKHR && in->opcode != SpvOpSubgroupFirstInvocationKHR &&
        in->opcode != SpvOpSubgroupAllKHR && in->opcode != SpvOpSubgroupAnyKHR &&
        in->opcode != SpvOpSubgroupAllEqualKHR && in->opcode != SpvOpSubgroupReadInvocationKHR) {
        uint64_t scope = 0;
        if (!jit_shape_u64(c, spv_inst_op(in, 0), &scope))
            return jit_fail_inst(c, in, "the Scope operand is not a constant");
        if (scope != SpvScopeSubgroup)
            return jit_fail_inst(c, in,
                                 "group operations are supported at Subgroup scope, and the OpGroup* "
                                 "collectives at Workgroup scope; not this one at scope %llu",
                                 (unsigned long long)scope);
    }
    LLVMValueRef r = group_op(c, in);
    if (!r)
        return -1;
    jit_set(c, in->result_id, r);
    return 0;
}
