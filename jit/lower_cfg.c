/* jit/lower_cfg.c — functions, blocks, branches, switches, phis and calls.
 *
 * Every SPIR-V block gets an LLVM block up front; blocks are lowered in module
 * order (which puts dominators first), phis are created where they stand and
 * their incoming values filled in after the whole function is lowered.  A
 * block may end in a different LLVM block than it started (block_ends), which
 * is the one phis name as predecessor.  Recursion is rejected before lowering.
 */
#include "lower_ctx.h"

#include <llvm-c/DebugInfo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t func_index(lower_ctx *c, uint32_t fid)
{
    for (uint32_t i = 0; i < c->m->nfuncs; i++)
        if (c->m->funcs[i].id == fid)
            return i;
    return SPV_NONE;
}

static const char *fname(lower_ctx *c, uint32_t fid)
{
    const char *n = c->m->ids[fid].name;
    return n ? n : "unnamed";
}

static void add_attr(lower_ctx *c, LLVMValueRef f, unsigned idx, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(c->llc, kind, 0));
}

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
            add_attr(c, f, llvm_idx, "noalias");
            break;
        case SpvFunctionParameterAttributeNoCapture:
            add_attr(c, f, llvm_idx, "nocapture");
            break;
        case SpvFunctionParameterAttributeNoWrite:
            add_attr(c, f, llvm_idx, "readonly");
            break;
        case SpvFunctionParameterAttributeNoReadWrite:
            add_attr(c, f, llvm_idx, "readnone");
            break;
        default:
            break;
        }
    }
    if (spv_find_decoration(m, param_id, -1, SpvDecorationRestrict))
        add_attr(c, f, llvm_idx, "noalias");
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
        snprintf(name, sizeof name, "spv.%u.%.64s", f->id, fname(c, f->id));
        LLVMValueRef fn = LLVMAddFunction(c->mod, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        add_attr(c, fn, LLVMAttributeFunctionIndex, "alwaysinline");
        add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
        for (uint32_t p = 0; p < f->nparams; p++)
            param_attrs(c, fn, 3 + p, f->params[p]);
        c->fns[i] = fn;
    }
    return 0;
}

/* --- call graph ------------------------------------------------------------------ */

static int visit(lower_ctx *c, uint32_t fi, uint8_t *color, bool *reach)
{
    const spv_function *f = &c->m->funcs[fi];
    color[fi] = 1;
    if (reach)
        reach[fi] = true;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = f->blocks[b].first; i < f->blocks[b].end; i++) {
            const spv_inst *in = &c->m->insts[i];
            if (in->opcode != SpvOpFunctionCall)
                continue;
            uint32_t callee = func_index(c, spv_inst_op(in, 0));
            if (callee == SPV_NONE)
                return jit_fail_inst(c, in, "callee is not a function");
            if (color[callee] == 1)
                return jit_fail_inst(c, in,
                                     "recursion: %s calls %s, which is on the call stack (SPIR-V "
                                     "forbids recursion)",
                                     fname(c, f->id), fname(c, c->m->funcs[callee].id));
            if (color[callee] == 0 && visit(c, callee, color, reach))
                return -1;
        }
    color[fi] = 2;
    return 0;
}

int jit_check_recursion(lower_ctx *c, uint32_t entry)
{
    uint8_t *color = calloc(c->m->nfuncs + 1, 1);
    int rc = visit(c, entry, color, NULL);
    free(color);
    return rc;
}

void jit_mark_reachable(lower_ctx *c, uint32_t entry, bool *reach)
{
    uint8_t *color = calloc(c->m->nfuncs + 1, 1);
    visit(c, entry, color, reach);
    free(color);
}

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
    uint32_t fi = func_index(c, spv_inst_op(in, 0));
    if (fi == SPV_NONE)
        return jit_fail_inst(c, in, "callee is not a function");
    const spv_function *f = &c->m->funcs[fi];
    if (f->is_declaration)
        return jit_fail_inst(c, in,
                             "%s is an Import-linkage declaration without a body (link the module "
                             "that defines it first)",
                             fname(c, f->id));
    uint32_t n = spv_inst_nops(in) - 1;
    LLVMValueRef *args = calloc(n + 2, sizeof *args);
    args[0] = c->arg_ctx;
    args[1] = c->arg_item;
    for (uint32_t i = 0; i < n; i++)
        if (!(args[2 + i] = jit_value(c, spv_inst_op(in, 1 + i)))) {
            free(args);
            return -1;
        }
    LLVMValueRef fn = c->fns[fi];
    LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
    bool is_void = LLVMGetTypeKind(LLVMGetReturnType(ft)) == LLVMVoidTypeKind;
    LLVMValueRef r = LLVMBuildCall2(c->b, ft, fn, args, n + 2, "");
    (void)is_void;
    free(args);
    jit_set(c, in->result_id, r);
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
    LLVMMetadataRef props[2];
    unsigned n = 0;
    if (control & SpvLoopControlDontUnrollMask) {
        props[n++] =
            LLVMMDNodeInContext2(c->llc,
                                 (LLVMMetadataRef[]){ LLVMMDStringInContext2(c->llc, "llvm.loop.unroll.disable", 24) },
                                 1);
    } else if (control & SpvLoopControlUnrollMask) {
        props[n++] =
            LLVMMDNodeInContext2(c->llc,
                                 (LLVMMetadataRef[]){ LLVMMDStringInContext2(c->llc, "llvm.loop.unroll.full", 21) }, 1);
    }
    if ((control & SpvLoopControlPartialCountMask) && !(control & SpvLoopControlDontUnrollMask)) {
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
            LLVMMetadataRef cnt = LLVMValueAsMetadata(LLVMConstInt(c->t_i32, spv_inst_op(merge, idx), 0));
            props[0] = LLVMMDNodeInContext2(
                c->llc, (LLVMMetadataRef[]){ LLVMMDStringInContext2(c->llc, "llvm.loop.unroll.count", 22), cnt }, 2);
            n = 1;
        }
    }
    if (!n)
        return;
    LLVMMetadataRef self = LLVMTemporaryMDNode(c->llc, NULL, 0);
    LLVMMetadataRef ops[3] = { self, props[0], n > 1 ? props[1] : NULL };
    LLVMMetadataRef loop = LLVMMDNodeInContext2(c->llc, ops, n + 1);
    LLVMMetadataReplaceAllUsesWith(self, loop); /* the loop id refers to itself */
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(c->llc, "llvm.loop", 9), LLVMMetadataAsValue(c->llc, loop));
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
        if (c->nphis == c->cap_phis) {
            c->cap_phis = c->cap_phis ? 2 * c->cap_phis : 64;
            c->phis = realloc(c->phis, c->cap_phis * sizeof *c->phis);
        }
        c->phis[c->nphis++] = (jit_phi){ phi, (uint32_t)(in - c->m->insts) };
        jit_set(c, in->result_id, phi);
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

/* Incoming values, once per CFG edge (a switch may reach a block twice). */
static int fill_phis(lower_ctx *c)
{
    for (size_t i = 0; i < c->nphis; i++) {
        const spv_inst *in = &c->m->insts[c->phis[i].inst];
        LLVMBasicBlockRef here = LLVMGetInstructionParent(c->phis[i].phi);
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
                LLVMAddIncoming(c->phis[i].phi, &v, &pred, 1);
        }
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
    const jit_layout *l = jit_layout_of(c, pt->elem);
    if (!l)
        return -1;
    unsigned align = l->align < 16 ? 16 : l->align;
    LLVMValueRef copy = LLVMBuildAlloca(c->pb, LLVMArrayType2(c->t_i8, l->size ? l->size : 1), "byval");
    LLVMSetAlignment(copy, align);
    LLVMBuildMemCpy(c->pb, copy, align, jit_value(c, param_id), 1, LLVMConstInt(c->t_i64, l->size, 0));
    jit_set(c, param_id, copy);
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
    c->nphis = 0;
    memset(c->vals, 0, m->bound * sizeof *c->vals);
    for (uint32_t p = 0; p < f->nparams; p++)
        jit_set(c, f->params[p], LLVMGetParam(c->llfn, 2 + p));
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
    if (fill_phis(c))
        return -1;
    LLVMPositionBuilderAtEnd(c->pb, pro);
    LLVMBuildBr(c->pb, c->blocks[f->blocks[0].label]);
    for (uint32_t b = 0; b < f->nblocks; b++)
        c->blocks[f->blocks[b].label] = NULL;
    c->llfn = NULL;
    return 0;
}
