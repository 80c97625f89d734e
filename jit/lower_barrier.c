/* jit/lower_barrier.c — OpControlBarrier and OpMemoryBarrier.
 *
 * A work-group (or wider) execution barrier becomes a call of the barrier
 * intrinsic (jit/barrier_intrinsic.h): the kernel is then compiled into
 * barrier-free regions looping over the items (jit/regions.h) where it can be,
 * or run on fibers, the call lowered to ctx->barrier(ctx, site) (jit/abi.h).
 * Sites are numbered before lowering (number_barriers in jit/analyze.c) in
 * module order of the barrier instructions.  A sub-group barrier only orders
 * memory (sub-groups have one work-item).  The CPU is coherent, so memory
 * semantics become at most one fence.
 */
#include "barrier_intrinsic.h"

/* All work-items of a group run on one thread (fibers or region loops), so
 * ordering memory for the group (Workgroup / Subgroup / Invocation memory scope,
 * or only Workgroup / Subgroup memory) needs no fence: the barrier call, or the
 * end of a region loop, is the compiler barrier.  Wider scopes get one. */
static void fence(lower_ctx *c, uint32_t scope_id, uint32_t sem_id)
{
    uint64_t sem = 0, scope = SpvScopeDevice;
    const uint64_t group_mem = SpvMemorySemanticsSubgroupMemoryMask | SpvMemorySemanticsWorkgroupMemoryMask;
    if (!jit_shape_u64(c, sem_id, &sem))
        sem = SpvMemorySemanticsSequentiallyConsistentMask;
    if (jit_shape_u64(c, scope_id, &scope) &&
        (scope == SpvScopeWorkgroup || scope == SpvScopeSubgroup || scope == SpvScopeInvocation))
        return;
    if ((sem & group_mem) && !(sem & ~(group_mem | 0x1Full)))
        return;
    if (sem & 0x1F) /* any ordering bit */
        LLVMBuildFence(c->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    else if (sem) /* storage-class bits alone still ask for visibility */
        LLVMBuildFence(c->b, LLVMAtomicOrderingAcquireRelease, 0, "");
}

/* Whether OpControlBarrier's execution scope makes work-items wait for each other. */
bool jit_is_group_barrier(lower_ctx *c, const spv_inst *in)
{
    uint64_t scope = SpvScopeWorkgroup;
    if (in->opcode != SpvOpControlBarrier)
        return false;
    if (!jit_shape_u64(c, spv_inst_op(in, 0), &scope))
        return true;
    return scope == SpvScopeWorkgroup || scope == SpvScopeDevice || scope == SpvScopeCrossDevice;
}

int jit_lower_barrier(lower_ctx *c, const spv_inst *in)
{
    if (in->opcode == SpvOpMemoryBarrier) {
        fence(c, spv_inst_op(in, 0), spv_inst_op(in, 1));
        return 0;
    }
    if (in->opcode != SpvOpControlBarrier)
        return jit_fail_inst(c, in, "not a barrier");
    fence(c, spv_inst_op(in, 1), spv_inst_op(in, 2));
    if (!jit_is_group_barrier(c, in))
        return 0;
    uint32_t idx = (uint32_t)(in - c->m->insts);
    if (idx >= c->m->ninsts || !c->barrier_site[idx])
        return jit_fail_inst(c, in, "barrier site was not numbered");
    jit_build_barrier(c, c->barrier_site[idx] - 1);
    fence(c, spv_inst_op(in, 1), spv_inst_op(in, 2));
    return 0;
}
