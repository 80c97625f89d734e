/* jit/lower_wgcoll.c — work-group collective operations and async copies.
 *
 * Work-group-scope OpGroupAll/Any/Broadcast and the OpGroup* reductions and
 * scans (OpenCL 2.0 work_group_*) exchange values through a scratch area in
 * work-group memory: one slot per work-item (jit/analyze.c reserves it after the
 * module's Workgroup variables and counts it in the facts' wg_mem_size).
 * Each work-item stores its value in its slot, waits at a barrier, computes
 * the result from the slots itself (every work-item walks them in the same
 * order, so float reductions agree bit for bit across the group), and waits
 * at a second barrier before the scratch may be reused.  A collective thus
 * takes two barrier sites (jit_barrier_sites) and makes the kernel a barrier
 * kernel; the barrier intrinsic (jit/barrier_intrinsic.h) orders the scratch
 * accesses.
 *
 * OpGroupAsyncCopy is done at once, cooperatively: work-item l copies
 * elements l, l + n, l + 2n ... (n work-items in the group); the copy becomes
 * visible to the group at OpGroupWaitEvents, which is a barrier.  The event
 * is a placeholder (the event operand passed through).
 */
#include "barrier_intrinsic.h"


static LLVMValueRef k64(lower_ctx *c, uint64_t v)
{
    return LLVMConstInt(c->t_i64, v, 0);
}

static bool is_collective_op(uint32_t op)
{
    switch (op) {
    case SpvOpGroupAll:
    case SpvOpGroupAny:
    case SpvOpGroupBroadcast:
    case SpvOpGroupIAdd:
    case SpvOpGroupFAdd:
    case SpvOpGroupFMin:
    case SpvOpGroupUMin:
    case SpvOpGroupSMin:
    case SpvOpGroupFMax:
    case SpvOpGroupUMax:
    case SpvOpGroupSMax:
    case SpvOpGroupIMulKHR:
    case SpvOpGroupFMulKHR:
    case SpvOpGroupBitwiseAndKHR:
    case SpvOpGroupBitwiseOrKHR:
    case SpvOpGroupBitwiseXorKHR:
    case SpvOpGroupLogicalAndKHR:
    case SpvOpGroupLogicalOrKHR:
    case SpvOpGroupLogicalXorKHR:
        return true;
    default:
        return false;
    }
}

static bool workgroup_scope(lower_ctx *c, const spv_inst *in)
{
    uint64_t scope = SpvScopeSubgroup;
    return spv_inst_nops(in) > 0 && jit_shape_u64(c, spv_inst_op(in, 0), &scope) && scope == SpvScopeWorkgroup;
}

bool jit_is_wg_collective(lower_ctx *c, const spv_inst *in)
{
    return is_collective_op(in->opcode) && workgroup_scope(c, in);
}

unsigned jit_barrier_sites(lower_ctx *c, const spv_inst *in)
{
    if (jit_is_group_barrier(c, in))
        return 1;
    if (in->opcode == SpvOpGroupWaitEvents)
        return 1;
    if (jit_is_wg_collective(c, in))
        return 2;
    return 0;
}

uint64_t jit_wg_scratch_slot(lower_ctx *c, const spv_inst *in)
{
    if (!jit_is_wg_collective(c, in) || !in->type_id)
        return 0;
    const spv_layout *l = jit_layout_of(c, in->type_id);
    uint64_t size = l && l->size ? l->size : 8;
    return (size + 7) & ~7ull;
}

/* --- pieces ------------------------------------------------------------------------------------------ */

/* First barrier site of a collective instruction (numbered in jit/analyze.c). */
static int first_site(lower_ctx *c, const spv_inst *in, uint32_t *site)
{
    uint32_t idx = (uint32_t)(in - c->m->insts);
    if (idx >= c->m->ninsts || !c->barrier_site[idx])
        return jit_fail_inst(c, in, "barrier site was not numbered");
    *site = c->barrier_site[idx] - 1;
    return 0;
}

static LLVMValueRef item_size_product(lower_ctx *c)
{
    LLVMValueRef n = NULL;
    for (unsigned i = 0; i < 3; i++) {
        LLVMValueRef l = LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, JIT_ITEM_LSIZE + 4 * i), "");
        LLVMSetAlignment(l, 4);
        l = LLVMBuildZExt(c->b, l, c->t_i64, "");
        n = n ? LLVMBuildMul(c->b, n, l, "") : l;
    }
    return n;
}

/* Values live in the slots in a memory type: bools as i8. */
static LLVMTypeRef mem_type(lower_ctx *c, LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind && LLVMGetElementType(t) == c->t_i1)
        return LLVMVectorType(c->t_i8, LLVMGetVectorSize(t));
    return t == c->t_i1 ? c->t_i8 : t;
}

static LLVMValueRef slot_ptr(lower_ctx *c, LLVMValueRef index)
{
    LLVMValueRef off =
        LLVMBuildAdd(c->b, k64(c, c->wg_scratch_offset), LLVMBuildMul(c->b, index, k64(c, c->wg_scratch_slot), ""), "");
    return jit_byte_gep(c, jit_env(c, JIT_ENV_WGMEM), off, true);
}

static void store_slot(lower_ctx *c, LLVMValueRef index, LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v), mt = mem_type(c, t);
    if (mt != t)
        v = LLVMBuildZExt(c->b, v, mt, "");
    LLVMSetAlignment(LLVMBuildStore(c->b, v, slot_ptr(c, index)), 8);
}

static LLVMValueRef load_slot(lower_ctx *c, LLVMValueRef index, LLVMTypeRef t)
{
    LLVMTypeRef mt = mem_type(c, t);
    LLVMValueRef v = LLVMBuildLoad2(c->b, mt, slot_ptr(c, index), "");
    LLVMSetAlignment(v, 8);
    return mt != t ? LLVMBuildTrunc(c->b, v, t, "") : v;
}

static LLVMValueRef combine(lower_ctx *c, uint32_t op, LLVMValueRef a, LLVMValueRef b)
{
    return jit_sg_combine(c->b, c->mod, jit_group_arith(op), a, b);
}

/* Folds slots [0, end) with op, starting from the identity.  The fold and
 * copy loops are not unrolled: they run once per work-item, and inside the
 * barrier regions' loop over the work-items (jit/region_loops.c) unrolling
 * both makes code quadratic in the group size. */
static LLVMValueRef fold_slots(lower_ctx *c, uint32_t op, LLVMTypeRef t, LLVMValueRef end)
{
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.fold");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.fold.body");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.fold.done");
    LLVMValueRef init = jit_sg_identity(jit_group_arith(op), t);
    LLVMBuildBr(c->b, head);
    LLVMPositionBuilderAtEnd(c->b, head);
    LLVMValueRef i = LLVMBuildPhi(c->b, c->t_i64, "");
    LLVMValueRef acc = LLVMBuildPhi(c->b, t, "");
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, i, end, ""), body, done);
    LLVMPositionBuilderAtEnd(c->b, body);
    LLVMValueRef next_acc = combine(c, op, acc, load_slot(c, i, t));
    LLVMValueRef next_i = LLVMBuildAdd(c->b, i, k64(c, 1), "");
    LLVMBasicBlockRef body_end = LLVMGetInsertBlock(c->b);
    jit_no_unroll(c, LLVMBuildBr(c->b, head));
    LLVMAddIncoming(i, (LLVMValueRef[]){ k64(c, 0), next_i }, (LLVMBasicBlockRef[]){ pre, body_end }, 2);
    LLVMAddIncoming(acc, (LLVMValueRef[]){ init, next_acc }, (LLVMBasicBlockRef[]){ pre, body_end }, 2);
    LLVMPositionBuilderAtEnd(c->b, done);
    return acc;
}

/* The linear local index named by OpGroupBroadcast's LocalId (scalar or 2/3-vector). */
static LLVMValueRef broadcast_index(lower_ctx *c, LLVMValueRef id)
{
    LLVMTypeRef t = LLVMTypeOf(id);
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
        return jit_int_cast(c, id, c->t_i64, false);
    LLVMValueRef r = NULL, stride = k64(c, 1);
    for (unsigned i = 0; i < LLVMGetVectorSize(t) && i < 3; i++) {
        LLVMValueRef v =
            jit_int_cast(c, LLVMBuildExtractElement(c->b, id, LLVMConstInt(c->t_i32, i, 0), ""), c->t_i64, false);
        v = LLVMBuildMul(c->b, v, stride, "");
        r = r ? LLVMBuildAdd(c->b, r, v, "") : v;
        LLVMValueRef ls = LLVMBuildLoad2(c->b, c->t_i32, jit_item_field_ptr(c, JIT_ITEM_LSIZE + 4 * i), "");
        stride = LLVMBuildMul(c->b, stride, LLVMBuildZExt(c->b, ls, c->t_i64, ""), "");
    }
    return r;
}

static int lower_collective(lower_ctx *c, const spv_inst *in)
{
    uint32_t site;
    if (first_site(c, in, &site))
        return -1;
    if (!c->wg_scratch_slot)
        return jit_fail_inst(c, in, "internal error: no work-group scratch area");
    LLVMTypeRef t = jit_type(c, in->type_id);
    if (!t)
        return -1;
    uint32_t op = in->opcode;
    bool is_all_any = op == SpvOpGroupAll || op == SpvOpGroupAny;
    LLVMValueRef x = jit_value(c, spv_inst_op(in, is_all_any || op == SpvOpGroupBroadcast ? 1 : 2));
    if (!x)
        return -1;
    uint32_t gop = is_all_any || op == SpvOpGroupBroadcast ? SpvGroupOperationReduce : spv_inst_op(in, 1);
    if (gop != SpvGroupOperationReduce && gop != SpvGroupOperationInclusiveScan &&
        gop != SpvGroupOperationExclusiveScan)
        return jit_fail_inst(c, in,
                             "group operation %u is not Reduce, InclusiveScan or ExclusiveScan at "
                             "Workgroup scope",
                             gop);
    LLVMValueRef bidx = NULL;
    if (op == SpvOpGroupBroadcast && !(bidx = jit_value(c, spv_inst_op(in, 2))))
        return -1;
    LLVMValueRef li = jit_local_index(c);
    store_slot(c, li, x);
    jit_build_barrier(c, site);
    LLVMValueRef r;
    if (op == SpvOpGroupBroadcast) {
        r = load_slot(c, broadcast_index(c, bidx), t);
    } else {
        LLVMValueRef end = gop == SpvGroupOperationReduce          ? item_size_product(c)
                           : gop == SpvGroupOperationInclusiveScan ? LLVMBuildAdd(c->b, li, k64(c, 1), "")
                                                                   : li;
        r = fold_slots(c, op, t, end);
    }
    jit_build_barrier(c, site + 1);
    jit_set(c, in->result_id, r);
    return 0;
}

/* --- async copies -------------------------------------------------------------------------------------- */

/* OpGroupAsyncCopy: Execution, Destination, Source, NumElements, Stride, Event. */
static int lower_async_copy(lower_ctx *c, const spv_inst *in)
{
    if (!workgroup_scope(c, in))
        return jit_fail_inst(c, in, "OpGroupAsyncCopy needs Workgroup scope");
    const spv_type *dt = spv_type_get(c->m, c->m->ids[spv_inst_op(in, 1)].type_id);
    const spv_type *st = spv_type_get(c->m, c->m->ids[spv_inst_op(in, 2)].type_id);
    if (!dt || !st || dt->kind != SPV_TYPE_POINTER || st->kind != SPV_TYPE_POINTER)
        return jit_fail_inst(c, in, "destination and source must be pointers");
    bool gather = dt->storage == SpvStorageClassWorkgroup; /* global -> local: the stride is on the source */
    if (!gather && st->storage != SpvStorageClassWorkgroup)
        return jit_fail_inst(c, in, "one of destination and source must be in Workgroup storage");
    uint32_t elem = dt->elem;
    const spv_layout *l = jit_layout_of(c, elem);
    if (!l)
        return -1;
    LLVMValueRef dst = jit_value(c, spv_inst_op(in, 1)), src = jit_value(c, spv_inst_op(in, 2));
    LLVMValueRef num = jit_value(c, spv_inst_op(in, 3)), stride = jit_value(c, spv_inst_op(in, 4));
    LLVMValueRef ev = jit_value(c, spv_inst_op(in, 5));
    if (!dst || !src || !num || !stride || !ev)
        return -1;
    num = jit_int_cast(c, num, c->t_i64, false);
    stride = jit_int_cast(c, stride, c->t_i64, false);
    LLVMValueRef n = item_size_product(c), li = jit_local_index(c);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(c->b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.copy");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.copy.body");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, c->llfn, "wg.copy.done");
    LLVMBuildBr(c->b, head);
    LLVMPositionBuilderAtEnd(c->b, head);
    LLVMValueRef i = LLVMBuildPhi(c->b, c->t_i64, "");
    LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntULT, i, num, ""), body, done);
    LLVMPositionBuilderAtEnd(c->b, body);
    LLVMValueRef strided = LLVMBuildMul(c->b, i, stride, "");
    LLVMValueRef size = k64(c, l->size);
    LLVMValueRef soff = LLVMBuildMul(c->b, gather ? strided : i, size, "");
    LLVMValueRef doff = LLVMBuildMul(c->b, gather ? i : strided, size, "");
    LLVMValueRef v =
        jit_checked_load(c, in, spv_inst_op(in, 2), elem, src, soff, l->align, false, 0, SPVJIT_ACCESS_COPY_FROM);
    if (!v ||
        jit_checked_store(c, in, spv_inst_op(in, 1), elem, dst, doff, v, l->align, false, 0, SPVJIT_ACCESS_COPY_TO))
        return -1;
    LLVMValueRef next = LLVMBuildAdd(c->b, i, n, "");
    LLVMBasicBlockRef body_end = LLVMGetInsertBlock(c->b);
    jit_no_unroll(c, LLVMBuildBr(c->b, head));
    LLVMAddIncoming(i, (LLVMValueRef[]){ li, next }, (LLVMBasicBlockRef[]){ pre, body_end }, 2);
    LLVMPositionBuilderAtEnd(c->b, done);
    jit_set(c, in->result_id, ev);
    return 0;
}

int jit_lower_wg_group(lower_ctx *c, const spv_inst *in)
{
    if (in->opcode == SpvOpGroupAsyncCopy)
        return lower_async_copy(c, in);
    if (in->opcode == SpvOpGroupWaitEvents) {
        if (!workgroup_scope(c, in))
            return jit_fail_inst(c, in, "OpGroupWaitEvents needs Workgroup scope");
        uint32_t site;
        if (first_site(c, in, &site))
            return -1;
        jit_build_barrier(c, site);
        return 0;
    }
    return lower_collective(c, in);
}
