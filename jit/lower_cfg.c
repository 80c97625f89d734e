/* jit/lower_cfg.c — branches, switches, returns, phis and calls.
 *
 * The driver (lower_inst.c) gives every SPIR-V block an LLVM block up front and
 * lowers blocks in module order (which puts dominators first); phis are
 * created where they stand and their incoming values filled in once the whole
 * function is lowered (jit_fill_phis).  A block may end in a different LLVM
 * block than it started (block_ends), which is the one phis name as
 * predecessor.  Recursion is rejected before lowering (analyze.c).
 */
#include "lower_ctx.h"

/* --- terminators and phis ------------------------------------------------------ */

static LLVMBasicBlockRef block_of(lower_ctx *c, const spv_inst *in, uint32_t label)
{
    LLVMBasicBlockRef bb = label < c->m->bound ? c->blocks[label] : NULL;
    if (!bb)
        jit_fail_inst(c, in, "%%%u is not a block of this function", label);
    return bb;
}

static int lower_switch(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef sel = jit_value(c, spv_inst_op(in, 0));
    LLVMBasicBlockRef def = block_of(c, in, spv_inst_op(in, 1));
    if (!sel || !def)
        return -1;
    unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(sel)), lw = w > 32 ? 2 : 1;
    uint32_t n = (spv_inst_nops(in) - 2) / (lw + 1);
    LLVMValueRef sw = LLVMBuildSwitch(c->b, sel, def, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = 2 + i * (lw + 1);
        uint64_t lit = spv_inst_op(in, k);
        if (lw == 2)
            lit |= (uint64_t)spv_inst_op(in, k + 1) << 32;
        LLVMBasicBlockRef bb = block_of(c, in, spv_inst_op(in, k + lw));
        if (!bb)
            return -1;
        LLVMAddCase(sw, LLVMConstInt(LLVMTypeOf(sel), lit, 0), bb);
    }
    return 0;
}

static int lower_call(lower_ctx *c, const spv_inst *in)
{
    uint32_t fi = spv_function_index(c->m, spv_inst_op(in, 0));
    if (fi == SPV_NONE)
        return jit_fail_inst(c, in, "callee is not a function");
    const spv_function *f = &c->m->funcs[fi];
    if (f->is_declaration)
        return jit_fail_inst(c, in,
                             "%s is an Import-linkage declaration without a body (link the module "
                             "that defines it first)",
                             jit_name_of(c, f->id));
    uint32_t n = spv_inst_nops(in) - 1;
    LLVMValueRef *args = jit_alloc(c, 3 * n + 2, sizeof *args);
    args[0] = c->arg_ctx;
    args[1] = c->arg_item;
    for (uint32_t i = 0; i < n; i++)
        if (!(args[2 + i] = jit_value(c, spv_inst_op(in, 1 + i))))
            return -1;
    /* pointer arguments pass their bounds on as hidden parameters */
    unsigned nb = jit_bounds_args(c, &in->w[in->first_op + 1], n, args + 2 + n);
    LLVMValueRef fn = c->fns[fi];
    jit_set(c, in->result_id, LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, args, n + 2 + nb, ""));
    return 0;
}

/* --- loop control ------------------------------------------------------------
 * OpLoopMerge's Unroll / DontUnroll / PartialCount become llvm.loop metadata
 * on the loop's back edge: a branch to the header from the header itself or
 * a block after it (SPIR-V orders a loop's blocks after its header). */

/* The OpLoopMerge of the block labelled `label` in the current function, and
 * whether the block at index `from` branching there is a back edge. */
static const spv_inst *back_edge_merge(lower_ctx *c, uint32_t label, uint32_t from_label)
{
    const spv_function *f = c->fn;
    uint32_t target = UINT32_MAX, from = UINT32_MAX;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        if (f->blocks[b].label == label)
            target = b;
        if (f->blocks[b].label == from_label)
            from = b;
    }
    if (target == UINT32_MAX || from == UINT32_MAX || from < target)
        return NULL;
    const spv_block *bl = &f->blocks[target];
    if (bl->end < bl->first + 2)
        return NULL;
    const spv_inst *merge = &c->m->insts[bl->end - 2];
    return merge->opcode == SpvOpLoopMerge ? merge : NULL;
}

static void add_loop_metadata(lower_ctx *c, LLVMValueRef br, const spv_inst *merge)
{
    uint32_t control = spv_inst_op(merge, 2);
    if (control & SpvLoopControlDontUnrollMask) {
        jit_loop_hint(c, br, "llvm.loop.unroll.disable", NULL);
        return;
    }
    if (control & SpvLoopControlPartialCountMask) {
        /* the literal parameters follow in mask-bit order; PartialCount's is after those of
         * the lower bits that take one (DependencyLength, MinIterations, MaxIterations, IterationMultiple,
         * PeelCount) */
        uint32_t idx = 3;
        for (uint32_t bit = 0; bit < 8; bit++)
            if ((control & (1u << bit)) &&
                (1u << bit) & (SpvLoopControlDependencyLengthMask | SpvLoopControlMinIterationsMask |
                               SpvLoopControlMaxIterationsMask | SpvLoopControlIterationMultipleMask |
                               SpvLoopControlPeelCountMask))
                idx++;
        if (idx < spv_inst_nops(merge)) {
            jit_loop_hint(c, br, "llvm.loop.unroll.count", LLVMConstInt(c->t_i32, spv_inst_op(merge, idx), 0));
            return;
        }
    }
    if (control & SpvLoopControlUnrollMask)
        jit_loop_hint(c, br, "llvm.loop.unroll.full", NULL);
}

static void loop_control(lower_ctx *c, LLVMValueRef br, const uint32_t *targets, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const spv_inst *merge = back_edge_merge(c, targets[i], c->cur_label);
        if (merge) {
            add_loop_metadata(c, br, merge);
            return;
        }
    }
}

int jit_lower_cfg(lower_ctx *c, const spv_inst *in)
{
    LLVMValueRef v;
    switch (in->opcode) {
    case SpvOpSelectionMerge:
    case SpvOpLoopMerge:
    case SpvOpLifetimeStart:
    case SpvOpLifetimeStop:
    case SpvOpNop:
    case SpvOpLine:
    case SpvOpNoLine:
    case SpvOpUndef:
        return 0;
    case SpvOpPhi: {
        LLVMTypeRef t = jit_type(c, in->type_id);
        if (!t)
            return -1;
        /* phis sit first in the block: position before any non-phi already emitted */
        LLVMValueRef phi = LLVMBuildPhi(c->b, t, "");
        if (!UTIL_ARRAY_PUSH(&c->phis, jit_phi, ((jit_phi){ phi, (uint32_t)(in - c->m->insts) })))
            return jit_fail_inst(c, in, "out of memory");
        jit_set(c, in->result_id, phi);
        jit_bounds_phi(c, in->result_id, in->type_id);
        return 0;
    }
    case SpvOpFunctionCall:
        return lower_call(c, in);
    default:
        break;
    }
    /* terminators: remember where this SPIR-V block ends, for phis */
    c->block_ends[c->cur_label] = LLVMGetInsertBlock(c->b);
    switch (in->opcode) {
    case SpvOpBranch: {
        LLVMBasicBlockRef bb = block_of(c, in, spv_inst_op(in, 0));
        if (!bb)
            return -1;
        LLVMValueRef br = LLVMBuildBr(c->b, bb);
        loop_control(c, br, (uint32_t[]){ spv_inst_op(in, 0) }, 1);
        return 0;
    }
    case SpvOpBranchConditional: {
        LLVMBasicBlockRef t = block_of(c, in, spv_inst_op(in, 1)), f = block_of(c, in, spv_inst_op(in, 2));
        if (!t || !f || !(v = jit_value(c, spv_inst_op(in, 0))))
            return -1;
        LLVMValueRef br = t == f ? LLVMBuildBr(c->b, t) : LLVMBuildCondBr(c->b, v, t, f);
        loop_control(c, br, (uint32_t[]){ spv_inst_op(in, 1), spv_inst_op(in, 2) }, 2);
        return 0;
    }
    case SpvOpSwitch:
        return lower_switch(c, in);
    case SpvOpReturn:
        LLVMBuildRetVoid(c->b);
        return 0;
    case SpvOpReturnValue:
        if (!(v = jit_value(c, spv_inst_op(in, 0))))
            return -1;
        LLVMBuildRet(c->b, v);
        return 0;
    case SpvOpUnreachable:
        LLVMBuildUnreachable(c->b);
        return 0;
    default:
        return jit_fail_inst(c, in,
                             "not allowed in a compute entry point (fragment-only or unknown "
                             "control flow)");
    }
}

/* Incoming values, once per CFG edge (a switch may reach a block twice); the
 * phis of the function are forgotten after. */
int jit_fill_phis(lower_ctx *c)
{
    jit_phi *phis = c->phis.data;
    size_t nphis = UTIL_ARRAY_COUNT(&c->phis, jit_phi);
    for (size_t i = 0; i < nphis; i++) {
        const spv_inst *in = &c->m->insts[phis[i].inst];
        LLVMBasicBlockRef here = LLVMGetInstructionParent(phis[i].phi);
        for (uint32_t k = 0; k + 1 < spv_inst_nops(in); k += 2) {
            uint32_t label = spv_inst_op(in, k + 1);
            LLVMBasicBlockRef pred = label < c->m->bound ? c->block_ends[label] : NULL;
            if (!pred)
                return jit_fail_inst(c, in, "parent %%%u is not a lowered block", label);
            LLVMValueRef term = LLVMGetBasicBlockTerminator(pred);
            unsigned edges = 0;
            for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++)
                if (LLVMGetSuccessor(term, s) == here)
                    edges++;
            if (!edges)
                continue; /* a listed parent that does not branch here: no edge */
            LLVMBuilderRef saved = c->b;
            c->b = c->pb; /* a value first needed here (spec constant) goes to the prologue */
            LLVMValueRef v = jit_value(c, spv_inst_op(in, k));
            c->b = saved;
            if (!v)
                return -1;
            for (unsigned e = 0; e < edges; e++)
                LLVMAddIncoming(phis[i].phi, &v, &pred, 1);
            jit_bounds_phi_incoming(c, in->result_id, spv_inst_op(in, k), pred, edges);
        }
    }
    c->phis.size = 0;
    return 0;
}
