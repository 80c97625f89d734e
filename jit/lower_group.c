/* jit/lower_group.c — sub-group operations, as calls of the sub-group markers.
 *
 * Every OpGroupNonUniform*, Subgroup-scope OpGroup* and SPV_KHR_shader_ballot
 * instruction becomes the markers of sg_marker.h and plain arithmetic on
 * them; whether a sub-group is W SIMD lanes or one work-item is decided later
 * (the vectorizer gives the markers their cross-lane meaning, or
 * jit_sg_lower_scalar the meaning for one work-item).  Vectors are done
 * component by component.  In terms of the markers:
 *   reductions, scans, clustered reductions  reduce / scan.incl / scan.excl / clustered
 *   Elect                    lane() == first()
 *   BroadcastFirst           shuffle(x, first())
 *   Broadcast, Shuffle, ReadInvocation   shuffle(x, id)
 *   ShuffleXor / Up / Down   shuffle(x, lane ^ m / lane - d / lane + d)
 *   QuadBroadcast / QuadSwap shuffle(x, (lane & ~3) | i / lane ^ (direction + 1))
 *   Rotate                   shuffle(x, (lane & ~(c - 1)) | ((lane + d) & (c - 1)))
 *   All, Any, Ballot         all / any / ballot
 *   AllEqual                 all(x == shuffle(x, first()))
 *   InverseBallot, BallotBitCount, FindLSB/MSB   arithmetic on the ballot with
 *                            lane() and size() (bits >= W are not counted)
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

static LLVMValueRef val(lower_ctx *c, const spv_inst *in, uint32_t i)
{
    return jit_value(c, spv_inst_op(in, i));
}

static LLVMValueRef marker(lower_ctx *c, jit_sg_kind kind, jit_sg_arith op, LLVMValueRef x, LLVMValueRef arg)
{
    return jit_sg_build(c->b, c->mod, kind, op, x, arg);
}

static LLVMValueRef k32(lower_ctx *c, uint32_t v)
{
    return LLVMConstInt(c->t_i32, v, 0);
}

static LLVMValueRef lane(lower_ctx *c)
{
    return marker(c, JIT_SG_LANE, 0, NULL, NULL);
}

/* f(component) for each component of a scalar or vector x. */
static LLVMValueRef per_component(lower_ctx *c, LLVMValueRef x, jit_sg_kind kind, jit_sg_arith op, LLVMValueRef arg)
{
    LLVMTypeRef t = LLVMTypeOf(x);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return marker(c, kind, op, x, arg);
    LLVMValueRef r = LLVMGetPoison(t);
    for (unsigned i = 0; i < LLVMGetVectorSize(t); i++) {
        LLVMValueRef e = LLVMBuildExtractElement(c->b, x, k32(c, i), "");
        r = LLVMBuildInsertElement(c->b, r, marker(c, kind, op, e, arg), k32(c, i), "");
    }
    return r;
}

/* x of lane src (an integer of any width) in every lane. */
static LLVMValueRef shuffle(lower_ctx *c, LLVMValueRef x, LLVMValueRef src)
{
    return per_component(c, x, JIT_SG_SHUFFLE, 0, jit_int_cast(c, src, c->t_i32, false));
}

static LLVMValueRef arith(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef x = val(c, in, 2);
    if (!x)
        return NULL;
    jit_sg_arith op = jit_group_arith(in->opcode);
    switch (spv_inst_op(in, 1)) {
    case SpvGroupOperationReduce:
        return per_component(c, x, JIT_SG_REDUCE, op, NULL);
    case SpvGroupOperationInclusiveScan:
        return per_component(c, x, JIT_SG_SCAN_INCL, op, NULL);
    case SpvGroupOperationExclusiveScan:
        return per_component(c, x, JIT_SG_SCAN_EXCL, op, NULL);
    case SpvGroupOperationClusteredReduce: {
        uint64_t cs = 0;
        if (!jit_shape_u64(c, spv_inst_op(in, 3), &cs) || !cs || (cs & (cs - 1)))
            return jit_fail_inst(c, in, "ClusterSize is not a constant power of two"), NULL;
        return per_component(c, x, JIT_SG_CLUSTERED, op, k32(c, (uint32_t)(cs > 4096 ? 4096 : cs)));
    }
    default:
        jit_fail_inst(c, in,
                      "group operation %u is not supported (Reduce, InclusiveScan, ExclusiveScan, "
                      "ClusteredReduce are)",
                      spv_inst_op(in, 1));
        return NULL;
    }
}

/* all(x == x of the first active lane), component by component. */
static LLVMValueRef all_equal(lower_ctx *c, LLVMValueRef x)
{
    LLVMValueRef first = marker(c, JIT_SG_FIRST, 0, NULL, NULL), y = shuffle(c, x, first);
    LLVMTypeRef t = LLVMTypeOf(x), et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
    LLVMTypeKind k = LLVMGetTypeKind(et);
    LLVMValueRef eq;
    if (k == LLVMHalfTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind)
        eq = LLVMBuildFCmp(c->b, LLVMRealOEQ, x, y, "");
    else if (k == LLVMPointerTypeKind)
        eq = LLVMBuildICmp(c->b, LLVMIntEQ, LLVMBuildPtrToInt(c->b, x, c->t_i64, ""),
                           LLVMBuildPtrToInt(c->b, y, c->t_i64, ""), "");
    else
        eq = LLVMBuildICmp(c->b, LLVMIntEQ, x, y, "");
    if (LLVMGetTypeKind(LLVMTypeOf(eq)) == LLVMVectorTypeKind)
        eq = jit_intrinsic(c, "llvm.vector.reduce.and", (LLVMTypeRef[]){ LLVMTypeOf(eq) }, 1, &eq, 1);
    return marker(c, JIT_SG_ALL, 0, eq, NULL);
}

/* The ballot bits of lanes [from, to) that are set in v, counted. */
static LLVMValueRef count_bits(lower_ctx *c, LLVMValueRef v, LLVMValueRef from, LLVMValueRef to, LLVMTypeRef rt)
{
    LLVMValueRef m = LLVMBuildAnd(c->b, v, jit_lane_range_mask(c, from, to), "");
    LLVMTypeRef vt = LLVMTypeOf(m);
    LLVMValueRef pc = jit_intrinsic(c, "llvm.ctpop", &vt, 1, &m, 1);
    LLVMValueRef sum = jit_intrinsic(c, "llvm.vector.reduce.add", &vt, 1, &pc, 1);
    return jit_int_cast(c, sum, rt, false);
}

/* A ballot as one 128-bit integer, the bits of lanes >= W cleared. */
static LLVMValueRef ballot_bits(lower_ctx *c, LLVMValueRef v)
{
    LLVMValueRef w = LLVMBuildZExt(c->b, marker(c, JIT_SG_SIZE, 0, NULL, NULL), c->t_i64, "");
    LLVMValueRef m = LLVMBuildAnd(c->b, v, jit_lane_range_mask(c, LLVMConstInt(c->t_i64, 0, 0), w), "");
    return LLVMBuildBitCast(c->b, m, LLVMIntTypeInContext(c->llc, 128), "");
}

static LLVMValueRef lane64(lower_ctx *c)
{
    return LLVMBuildZExt(c->b, lane(c), c->t_i64, "");
}

static LLVMValueRef group_op(lower_ctx *c, const spv_inst *in)
{
    LLVMTypeRef t = in->type_id ? jit_type(c, in->type_id) : NULL;
    uint32_t op = in->opcode;
    if (is_arith(op))
        return arith(c, in);
    /* the SPV_KHR_shader_ballot instructions take no Scope: their value is operand 0 */
    bool khr = op == SpvOpSubgroupBallotKHR || op == SpvOpSubgroupFirstInvocationKHR || op == SpvOpSubgroupAllKHR ||
               op == SpvOpSubgroupAnyKHR || op == SpvOpSubgroupAllEqualKHR || op == SpvOpSubgroupReadInvocationKHR;
    LLVMValueRef x = spv_inst_nops(in) > (khr ? 0u : 1u) ? val(c, in, khr ? 0 : 1) : NULL;
    LLVMValueRef y = spv_inst_nops(in) > (khr ? 1u : 2u) ? val(c, in, khr ? 1 : 2) : NULL;
    switch (op) {
    case SpvOpGroupNonUniformElect:
        return LLVMBuildICmp(c->b, LLVMIntEQ, lane(c), marker(c, JIT_SG_FIRST, 0, NULL, NULL), "");
    case SpvOpGroupNonUniformAll:
    case SpvOpGroupAll:
    case SpvOpSubgroupAllKHR:
        return x ? marker(c, JIT_SG_ALL, 0, x, NULL) : NULL;
    case SpvOpGroupNonUniformAny:
    case SpvOpGroupAny:
    case SpvOpSubgroupAnyKHR:
        return x ? marker(c, JIT_SG_ANY, 0, x, NULL) : NULL;
    case SpvOpGroupNonUniformAllEqual:
    case SpvOpSubgroupAllEqualKHR:
        return x ? all_equal(c, x) : NULL;
    case SpvOpGroupNonUniformBroadcastFirst:
    case SpvOpSubgroupFirstInvocationKHR:
        return x ? shuffle(c, x, marker(c, JIT_SG_FIRST, 0, NULL, NULL)) : NULL;
    case SpvOpGroupNonUniformBroadcast:
    case SpvOpGroupBroadcast:
    case SpvOpGroupNonUniformShuffle:
    case SpvOpSubgroupReadInvocationKHR:
        if (y && LLVMGetTypeKind(LLVMTypeOf(y)) == LLVMVectorTypeKind) /* a LocalId vector: x is the sub-group's */
            y = LLVMBuildExtractElement(c->b, y, k32(c, 0), "");
        return x && y ? shuffle(c, x, y) : NULL;
    case SpvOpGroupNonUniformShuffleXor:
        return x && y ? shuffle(c, x, LLVMBuildXor(c->b, lane(c), jit_int_cast(c, y, c->t_i32, false), "")) : NULL;
    case SpvOpGroupNonUniformShuffleUp:
        return x && y ? shuffle(c, x, LLVMBuildSub(c->b, lane(c), jit_int_cast(c, y, c->t_i32, false), "")) : NULL;
    case SpvOpGroupNonUniformShuffleDown:
        return x && y ? shuffle(c, x, LLVMBuildAdd(c->b, lane(c), jit_int_cast(c, y, c->t_i32, false), "")) : NULL;
    case SpvOpGroupNonUniformQuadBroadcast: {
        if (!x || !y)
            return NULL;
        LLVMValueRef quad = LLVMBuildAnd(c->b, lane(c), k32(c, ~3u), "");
        return shuffle(c, x,
                       LLVMBuildOr(c->b, quad, LLVMBuildAnd(c->b, jit_int_cast(c, y, c->t_i32, false), k32(c, 3), ""),
                                   ""));
    }
    case SpvOpGroupNonUniformQuadSwap: {
        uint64_t dir = 0;
        if (!x || !jit_shape_u64(c, spv_inst_op(in, 2), &dir) || dir > 2)
            return jit_fail_inst(c, in, "the direction is not a constant 0, 1 or 2"), NULL;
        return shuffle(c, x, LLVMBuildXor(c->b, lane(c), k32(c, (uint32_t)dir + 1), ""));
    }
    case SpvOpGroupNonUniformRotateKHR: {
        if (!x || !y)
            return NULL;
        LLVMValueRef size = marker(c, JIT_SG_SIZE, 0, NULL, NULL);
        if (spv_inst_nops(in) > 3) {
            uint64_t cs = 0;
            if (!jit_shape_u64(c, spv_inst_op(in, 3), &cs) || !cs || (cs & (cs - 1)))
                return jit_fail_inst(c, in, "ClusterSize is not a constant power of two"), NULL;
            LLVMValueRef k = k32(c, (uint32_t)cs);
            size = LLVMBuildSelect(c->b, LLVMBuildICmp(c->b, LLVMIntULT, k, size, ""), k, size, "");
        }
        LLVMValueRef m = LLVMBuildSub(c->b, size, k32(c, 1), ""), l = lane(c);
        LLVMValueRef moved = LLVMBuildAdd(c->b, l, jit_int_cast(c, y, c->t_i32, false), "");
        LLVMValueRef base = LLVMBuildAnd(c->b, l, LLVMBuildXor(c->b, m, k32(c, ~0u), ""), "");
        return shuffle(c, x, LLVMBuildOr(c->b, base, LLVMBuildAnd(c->b, moved, m, ""), ""));
    }
    case SpvOpGroupNonUniformBallot:
    case SpvOpSubgroupBallotKHR:
        return x ? marker(c, JIT_SG_BALLOT, 0, x, NULL) : NULL;
    case SpvOpGroupNonUniformInverseBallot: {
        if (!x)
            return NULL;
        LLVMValueRef l = lane(c);
        LLVMValueRef w = LLVMBuildExtractElement(c->b, x, LLVMBuildLShr(c->b, l, k32(c, 5), ""), "");
        LLVMValueRef bit = LLVMBuildLShr(c->b, w, LLVMBuildAnd(c->b, l, k32(c, 31), ""), "");
        return LLVMBuildTrunc(c->b, bit, c->t_i1, "");
    }
    case SpvOpGroupNonUniformBallotBitExtract: {
        if (!x || !y)
            return NULL;
        LLVMValueRef i = jit_int_cast(c, y, c->t_i32, false);
        LLVMValueRef w = LLVMBuildExtractElement(c->b, x, LLVMBuildLShr(c->b, i, k32(c, 5), ""), "");
        LLVMValueRef bit = LLVMBuildLShr(c->b, w, LLVMBuildAnd(c->b, i, k32(c, 31), ""), "");
        return LLVMBuildTrunc(c->b, bit, c->t_i1, "");
    }
    case SpvOpGroupNonUniformBallotBitCount: {
        LLVMValueRef v = val(c, in, 2), zero = LLVMConstInt(c->t_i64, 0, 0);
        if (!v)
            return NULL;
        LLVMValueRef w = LLVMBuildZExt(c->b, marker(c, JIT_SG_SIZE, 0, NULL, NULL), c->t_i64, "");
        switch (spv_inst_op(in, 1)) {
        case SpvGroupOperationReduce:
            return count_bits(c, v, zero, w, t);
        case SpvGroupOperationInclusiveScan:
            return count_bits(c, v, zero, LLVMBuildAdd(c->b, lane64(c), LLVMConstInt(c->t_i64, 1, 0), ""), t);
        case SpvGroupOperationExclusiveScan:
            return count_bits(c, v, zero, lane64(c), t);
        default:
            jit_fail_inst(c, in, "group operation %u is not Reduce, InclusiveScan or ExclusiveScan",
                          spv_inst_op(in, 1));
            return NULL;
        }
    }
    case SpvOpGroupNonUniformBallotFindLSB:
    case SpvOpGroupNonUniformBallotFindMSB: {
        if (!x)
            return NULL;
        LLVMValueRef b = ballot_bits(c, x);
        LLVMTypeRef bt = LLVMTypeOf(b);
        bool lsb = op == SpvOpGroupNonUniformBallotFindLSB;
        LLVMValueRef n = jit_intrinsic(c, lsb ? "llvm.cttz" : "llvm.ctlz", &bt, 1,
                                       (LLVMValueRef[]){ b, LLVMConstInt(c->t_i1, 0, 0) }, 2);
        if (!lsb) /* 127 - leading zeros (no bit set: -1, undefined by the spec) */
            n = LLVMBuildSub(c->b, LLVMConstInt(bt, 127, 0), n, "");
        return jit_int_cast(c, n, t, false);
    }
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
