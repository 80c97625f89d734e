/* jit/simd.c — the vectorizer's driver (see simd.h): checks, analyses, and the
 * vector function built block by block in schedule order.
 *
 * Masks live in memory: a block that not every lane runs (divergent) has a
 * slot holding the lanes waiting to run it, and every block but the entry a
 * flag saying whether some lane waits there (the schedule may pass a block
 * by; for a comparison of a value affine in the lane with a uniform one, the
 * flag is a scalar comparison of the first or last lane).  Its code starts by taking them
 * (m = slot; slot = 0) and is skipped when there are none; its terminator
 * adds each successor's lanes to the successor's slot (m & condition) and
 * stores the values of the successor's phis for those lanes.  A block every
 * lane runs uses the live mask.  Values crossing blocks go through slots too
 * (scalar for uniform and affine values, widened for varying ones, stored
 * under the block's mask where other lanes' values must survive).
 *
 * Where control goes after a block:
 *  - a block every lane runs, ending in a uniform branch: straight to the
 *    successor (nothing can be waiting elsewhere);
 *  - the back edge of a uniform loop: straight to the header; an exit of one
 *    or more uniform loops: past the outermost of them;
 *  - anything else: the next block in the schedule, or, at the end of a loop
 *    that lanes leave at different iterations, a test that goes back to the
 *    header while any lane is waiting there.
 * LLVM's SROA, instcombine and simplifycfg (the O3 pipeline that follows)
 * turn the slots back into SSA values and fold the masks they can prove. */
#include "simd_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_facts.h"
#include "sg_marker.h"
#include "barrier_intrinsic.h"

int simd_decline(simd_fn *s, const char *fmt, ...)
{
    if (s->rc)
        return s->rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg, JIT_SIMD_MSG, fmt, ap);
    va_end(ap);
    return s->rc = 1;
}

int simd_fail(simd_fn *s, const char *what)
{
    if (s->rc < 0)
        return -1;
    snprintf(s->msg, JIT_SIMD_MSG, "internal error: vectorizer: %s", what);
    return s->rc = -1;
}

LLVMTypeRef jit_simd_widen_type(LLVMTypeRef t, unsigned w)
{
    switch (LLVMGetTypeKind(t)) {
    case LLVMVoidTypeKind:
        return t;
    case LLVMVectorTypeKind:
        return LLVMArrayType2(LLVMVectorType(LLVMGetElementType(t), w), LLVMGetVectorSize(t));
    case LLVMArrayTypeKind:
        return LLVMArrayType2(jit_simd_widen_type(LLVMGetElementType(t), w), LLVMGetArrayLength2(t));
    case LLVMStructTypeKind: {
        unsigned n = LLVMCountStructElementTypes(t);
        LLVMTypeRef *m = malloc((n + 1) * sizeof *m);
        if (!m)
            return NULL;
        for (unsigned i = 0; i < n; i++)
            m[i] = jit_simd_widen_type(LLVMStructGetTypeAtIndex(t, i), w);
        LLVMTypeRef r = LLVMStructTypeInContext(LLVMGetTypeContext(t), m, n, LLVMIsPackedStruct(t));
        free(m);
        return r;
    }
    default:
        return LLVMVectorType(t, w);
    }
}

/* --- values -------------------------------------------------------------------------------------- */

void simd_set(simd_fn *s, LLVMValueRef in, simd_val v)
{
    if (s->nval_store == s->cap_val_store) {
        unsigned cap = s->cap_val_store ? 2 * s->cap_val_store : 256;
        simd_val *nv = realloc(s->val_store, cap * sizeof *nv);
        if (!nv) {
            simd_fail(s, "out of memory");
            return;
        }
        s->val_store = nv;
        s->cap_val_store = cap;
    }
    s->val_store[s->nval_store++] = v;
    if (!util_ptrmap_put(&s->vals, in, (void *)(uintptr_t)s->nval_store))
        simd_fail(s, "out of memory");
}

static LLVMValueRef slot_of(simd_fn *s, LLVMValueRef v)
{
    return util_ptrmap_get(&s->slots, v);
}

bool simd_available(simd_fn *s, LLVMValueRef v)
{
    return !LLVMIsAInstruction(v) || (LLVMIsAAllocaInst(v) && util_ptrmap_get(&s->private_mem, v)) ||
           util_ptrmap_get(&s->vals, v) || slot_of(s, v);
}

simd_val simd_get(simd_fn *s, LLVMValueRef v)
{
    if (LLVMIsAArgument(v)) {
        for (unsigned i = 0, n = LLVMCountParams(s->sf); i < n; i++)
            if (LLVMGetParam(s->sf, i) == v)
                return (simd_val){ simd_shape_of(s, v), LLVMGetParam(s->vf, i) };
    }
    if (!LLVMIsAInstruction(v))
        return (simd_val){ { .kind = SIMD_UNIFORM }, v };
    LLVMValueRef mem = LLVMIsAAllocaInst(v) ? util_ptrmap_get(&s->private_mem, v) : NULL;
    if (mem)
        return (simd_val){ simd_shape_of(s, v), mem };
    uintptr_t k = (uintptr_t)util_ptrmap_get(&s->vals, v);
    if (k)
        return s->val_store[k - 1];
    simd_shape sh = simd_shape_of(s, v);
    LLVMValueRef slot = slot_of(s, v);
    if (!slot) {
        simd_fail(s, "a value used before it is defined");
        return (simd_val){ sh, LLVMGetPoison(LLVMTypeOf(v)) };
    }
    simd_val r = { sh, LLVMBuildLoad2(s->b, LLVMGetAllocatedType(slot), slot, "") };
    simd_set(s, v, r);
    return r;
}

LLVMBasicBlockRef simd_block(simd_fn *s, const char *name)
{
    return LLVMAppendBasicBlockInContext(s->llc, s->vf, name);
}

LLVMValueRef simd_alloca(simd_fn *s, LLVMTypeRef t, unsigned align)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(s->llc);
    LLVMValueRef first = LLVMGetFirstInstruction(s->entry_bb);
    if (first)
        LLVMPositionBuilderBefore(b, first);
    else
        LLVMPositionBuilderAtEnd(b, s->entry_bb);
    LLVMValueRef a = LLVMBuildAlloca(b, t, "");
    if (align)
        LLVMSetAlignment(a, align);
    LLVMDisposeBuilder(b);
    return a;
}

LLVMValueRef simd_intrinsic(simd_fn *s, const char *name, LLVMTypeRef *types, unsigned ntypes, LLVMValueRef *args,
                            unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(s->mod, id, types, ntypes);
    return LLVMBuildCall2(s->b, LLVMGlobalGetValueType(f), f, args, nargs, "");
}

LLVMValueRef simd_any(simd_fn *s, LLVMValueRef mask)
{
    LLVMValueRef bits = LLVMBuildBitCast(s->b, mask, LLVMIntTypeInContext(s->llc, s->W), "");
    return LLVMBuildICmp(s->b, LLVMIntNE, bits, LLVMConstNull(LLVMTypeOf(bits)), "any");
}

LLVMValueRef simd_mask_and(simd_fn *s, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildSelect(s->b, a, b, LLVMConstNull(s->t_mask), "");
}

/* Lane-wise select of widened values (aggregates member by member). */
static LLVMValueRef blend(simd_fn *s, LLVMValueRef m, LLVMValueRef a, LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k != LLVMArrayTypeKind && k != LLVMStructTypeKind)
        return LLVMBuildSelect(s->b, m, a, b, "");
    unsigned n = k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t) : LLVMCountStructElementTypes(t);
    LLVMValueRef r = LLVMGetPoison(t);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef x = blend(s, m, LLVMBuildExtractValue(s->b, a, i, ""), LLVMBuildExtractValue(s->b, b, i, ""));
        r = LLVMBuildInsertValue(s->b, r, x, i, "");
    }
    return r;
}

/* --- checks ---------------------------------------------------------------------------------------- */

static int check_function(simd_fn *s)
{
    LLVMValueRef barrier = jit_barrier_function(s->mod);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->sf); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            switch (LLVMGetInstructionOpcode(in)) {
            case LLVMInvoke:
            case LLVMCallBr:
            case LLVMIndirectBr:
            case LLVMLandingPad:
            case LLVMResume:
                return simd_decline(s, "an invoke, callbr or indirectbr");
            case LLVMAlloca:
                if (bb != LLVMGetEntryBasicBlock(s->sf) || !LLVMIsAConstantInt(LLVMGetOperand(in, 0)))
                    return simd_decline(s, "a stack allocation of a run-time size or outside the entry block");
                break;
            case LLVMCall: {
                LLVMValueRef f = LLVMGetCalledValue(in);
                size_t len;
                if (!LLVMIsAFunction(f))
                    return simd_decline(s, "an indirect call");
                if (barrier && f == barrier)
                    return simd_decline(s, "a work-group barrier in the function");
                if (LLVMCountBasicBlocks(f))
                    return simd_decline(s, "a call of %s that is not inlined", LLVMGetValueName2(f, &len));
                break;
            }
            default:
                break;
            }
        }
    return 0;
}

/* --- the frame: blocks, slots ---------------------------------------------------------------------- */

static bool divergent(const simd_fn *s, unsigned b)
{
    return jit_uniformity_divergent(s->u, b);
}

static bool in_uniform_loops(const simd_fn *s, unsigned b);

/* Whether every return hands all lanes one value: a uniform value in a block
 * that all lanes reach together, outside divergent loops.  The vector
 * function then keeps that value as a scalar and splats it at its exit, so a
 * caller's read of lane 0 folds to a scalar phi.  (InstCombine scalarizes no
 * phi of vectors whose only user is an extractelement, and the unroller can
 * count the trips of a loop around a region only when the region loop's
 * next-region test is a scalar.) */
static bool returns_uniform(simd_fn *s)
{
    for (unsigned b = 0; b < s->cfg.nblocks; b++) {
        LLVMValueRef t = LLVMGetBasicBlockTerminator(s->cfg.blocks[b]);
        if (s->pos[b] == UINT32_MAX || !t || LLVMGetInstructionOpcode(t) != LLVMRet || !LLVMGetNumOperands(t))
            continue;
        if (divergent(s, b) || !in_uniform_loops(s, b) || simd_shape_of(s, LLVMGetOperand(t, 0)).kind != SIMD_UNIFORM)
            return false;
    }
    return true;
}

static LLVMTypeRef rep_type(simd_fn *s, LLVMValueRef v)
{
    simd_shape sh = simd_shape_of(s, v);
    LLVMTypeRef t = LLVMTypeOf(v);
    return sh.kind == SIMD_VARYING ? jit_simd_widen_type(t, s->W) : t;
}

/* Whether v (defined in block b) is read in another block, or by a phi
 * through an edge from another block. */
static bool crosses_blocks(simd_fn *s, LLVMValueRef v, LLVMBasicBlockRef bb)
{
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAInstruction(user))
            continue;
        if (LLVMIsAPHINode(user)) {
            for (unsigned k = 0, n = LLVMCountIncoming(user); k < n; k++)
                if (LLVMGetIncomingValue(user, k) == v && LLVMGetIncomingBlock(user, k) != bb)
                    return true;
        } else if (LLVMGetInstructionParent(user) != bb) {
            return true;
        }
    }
    (void)s;
    return false;
}

static int build_frame(simd_fn *s)
{
    const jit_cfg *g = &s->cfg;
    unsigned n = g->nblocks;
    s->enter = calloc(n + 1, sizeof *s->enter);
    s->mask_slot = calloc(n + 1, sizeof *s->mask_slot);
    s->flag_slot = calloc(n + 1, sizeof *s->flag_slot);
    s->loop_test = calloc(g->nloops + 1, sizeof *s->loop_test);
    s->after = calloc(g->nloops + 1, sizeof *s->after);
    s->next = calloc(s->norder + 1, sizeof *s->next);
    if (!s->enter || !s->mask_slot || !s->flag_slot || !s->loop_test || !s->after || !s->next)
        return simd_fail(s, "out of memory");
    s->entry_bb = simd_block(s, "entry");
    LLVMPositionBuilderAtEnd(s->b, s->entry_bb);
    for (unsigned i = 0; i < s->norder; i++) {
        unsigned b = s->order[i];
        s->enter[b] = simd_block(s, "");
        if (divergent(s, b)) {
            s->mask_slot[b] = LLVMBuildAlloca(s->b, s->t_mask, "mask");
            LLVMBuildStore(s->b, LLVMConstNull(s->t_mask), s->mask_slot[b]);
            LLVMAddAttributeAtIndex(s->vf, LLVMAttributeFunctionIndex,
                                    LLVMCreateStringAttribute(s->llc, JIT_SIMD_DIVERGENT,
                                                              (unsigned)strlen(JIT_SIMD_DIVERGENT), "", 0));
        }
        if (i > 0) { /* whether some lane waits there: the schedule may pass a block by */
            s->flag_slot[b] = LLVMBuildAlloca(s->b, s->t_i1, "reached");
            LLVMBuildStore(s->b, LLVMConstInt(s->t_i1, 0, 0), s->flag_slot[b]);
        }
    }
    for (unsigned l = 0; l < g->nloops; l++)
        if (!s->loop_uniform[l]) {
            s->loop_test[l] = simd_block(s, "loop.test");
            if (!s->mask_slot[g->loops[l].header])
                return simd_fail(s, "the header of a divergent loop has no mask");
        }
    s->exit_bb = simd_block(s, "exit");
    /* the fall-through after each position: the tests of the loops ending there, inner first */
    unsigned *ending = malloc((g->nloops + 1) * sizeof *ending);
    if (!ending)
        return simd_fail(s, "out of memory");
    for (unsigned i = 0; i < s->norder; i++) {
        unsigned ne = 0;
        for (unsigned l = 0; l < g->nloops; l++)
            if (s->loop_end[l] == i)
                ending[ne++] = l;
        /* outermost first: insertion sort by depth */
        for (unsigned a = 1; a < ne; a++)
            for (unsigned c = a; c > 0 && g->loops[ending[c]].depth < g->loops[ending[c - 1]].depth; c--) {
                unsigned t = ending[c];
                ending[c] = ending[c - 1];
                ending[c - 1] = t;
            }
        LLVMBasicBlockRef cur = i + 1 < s->norder ? s->enter[s->order[i + 1]] : s->exit_bb;
        for (unsigned a = 0; a < ne; a++) {
            unsigned l = ending[a];
            s->after[l] = cur;
            if (!s->loop_uniform[l])
                cur = s->loop_test[l];
        }
        s->next[i] = cur;
    }
    free(ending);
    /* slots of values that cross blocks, and of phis */
    for (unsigned i = 0; i < s->norder; i++) {
        LLVMBasicBlockRef bb = g->blocks[s->order[i]];
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            if (LLVMGetTypeKind(LLVMTypeOf(in)) == LLVMVoidTypeKind || LLVMIsAAllocaInst(in))
                continue;
            if (LLVMIsAPHINode(in) && !util_ptrmap_put(&s->phi_in, in, LLVMBuildAlloca(s->b, rep_type(s, in), "phi")))
                return simd_fail(s, "out of memory");
            if (crosses_blocks(s, in, bb) &&
                !util_ptrmap_put(&s->slots, in, LLVMBuildAlloca(s->b, rep_type(s, in), "")))
                return simd_fail(s, "out of memory");
        }
    }
    /* private memory: one copy per lane */
    for (LLVMValueRef in = LLVMGetFirstInstruction(g->blocks[0]); in; in = LLVMGetNextInstruction(in)) {
        if (!LLVMIsAAllocaInst(in))
            continue;
        uint64_t stride = simd_private_stride(s, in);
        LLVMValueRef mem = LLVMBuildAlloca(s->b, LLVMArrayType2(s->t_i8, stride * s->W), "private");
        LLVMSetAlignment(mem, LLVMGetAlignment(in));
        if (!util_ptrmap_put(&s->private_mem, in, mem))
            return simd_fail(s, "out of memory");
    }
    LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(s->sf));
    if (LLVMGetTypeKind(rt) != LLVMVoidTypeKind) {
        s->ret_uniform = returns_uniform(s);
        s->ret_slot = LLVMBuildAlloca(s->b, s->ret_uniform ? rt : jit_simd_widen_type(rt, s->W), "ret");
    }
    return s->rc;
}

/* --- transfers between blocks ------------------------------------------------------------------------ */

/* The phi values b hands to successor `succ`, fetched before the terminator
 * branches (so every edge sees them). */
static void prefetch_incoming(simd_fn *s, LLVMBasicBlockRef bb, LLVMBasicBlockRef succ)
{
    for (LLVMValueRef p = LLVMGetFirstInstruction(succ); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p))
        for (unsigned k = 0, n = LLVMCountIncoming(p); k < n; k++)
            if (LLVMGetIncomingBlock(p, k) == bb) {
                simd_val v = simd_get(s, LLVMGetIncomingValue(p, k));
                if (simd_shape_of(s, p).kind == SIMD_VARYING)
                    simd_widened(s, v, LLVMTypeOf(p));
                break;
            }
}

/* Lanes `em` of block b go to successor `succ`.  `certain`: the edge is
 * taken whenever this code runs (some lane is in em); otherwise `any` says
 * whether em has a lane (NULL: tested on em). */
static void transfer(simd_fn *s, unsigned b, LLVMBasicBlockRef succ, LLVMValueRef em, bool certain, LLVMValueRef any)
{
    const jit_cfg *g = &s->cfg;
    LLVMBasicBlockRef bb = g->blocks[b];
    unsigned sb = jit_cfg_index(g, succ);
    bool plain = certain && !divergent(s, b);
    for (LLVMValueRef p = LLVMGetFirstInstruction(succ); p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
        LLVMValueRef slot = util_ptrmap_get(&s->phi_in, p);
        for (unsigned k = 0, n = LLVMCountIncoming(p); k < n; k++) {
            if (LLVMGetIncomingBlock(p, k) != bb)
                continue;
            simd_val v = simd_get(s, LLVMGetIncomingValue(p, k));
            LLVMTypeRef st = LLVMGetAllocatedType(slot);
            if (simd_shape_of(s, p).kind == SIMD_VARYING) {
                LLVMValueRef w = simd_widened(s, v, LLVMTypeOf(p));
                if (!plain)
                    w = blend(s, em, w, LLVMBuildLoad2(s->b, st, slot, ""));
                LLVMBuildStore(s->b, w, slot);
            } else {
                LLVMValueRef x = v.v;
                if (!certain)
                    x = LLVMBuildSelect(s->b, any ? any : simd_any(s, em), x, LLVMBuildLoad2(s->b, st, slot, ""), "");
                LLVMBuildStore(s->b, x, slot);
            }
            break;
        }
    }
    if (s->mask_slot[sb]) {
        LLVMValueRef old = LLVMBuildLoad2(s->b, s->t_mask, s->mask_slot[sb], "");
        LLVMBuildStore(s->b, LLVMBuildOr(s->b, old, em, ""), s->mask_slot[sb]);
    }
    if (s->flag_slot[sb]) {
        LLVMValueRef on = LLVMConstInt(s->t_i1, 1, 0);
        if (!certain)
            on =
                LLVMBuildOr(s->b, LLVMBuildLoad2(s->b, s->t_i1, s->flag_slot[sb], ""), any ? any : simd_any(s, em), "");
        LLVMBuildStore(s->b, on, s->flag_slot[sb]);
    }
}

/* Integer x zero-extended or truncated to type t. */
static LLVMValueRef resize(simd_fn *s, LLVMValueRef x, LLVMTypeRef t)
{
    unsigned from = LLVMGetIntTypeWidth(LLVMTypeOf(x)), to = LLVMGetIntTypeWidth(t);
    return from < to ? LLVMBuildZExt(s->b, x, t, "") : from > to ? LLVMBuildTrunc(s->b, x, t, "") : x;
}

/* Whether some live lane (the block every lane runs) has cond (negated: not
 * cond), as a scalar, when cond compares a value affine in the lane with a
 * uniform one: the lanes' values grow with the lane, so the first or the last
 * live lane decides.  NULL otherwise. */
static LLVMValueRef affine_any(simd_fn *s, LLVMValueRef cond, bool negated)
{
    if (!s->full || !LLVMIsAICmpInst(cond))
        return NULL;
    LLVMValueRef x = LLVMGetOperand(cond, 0), y = LLVMGetOperand(cond, 1);
    if (!simd_available(s, x) || !simd_available(s, y)) /* cond from another block; its operands not kept */
        return NULL;
    simd_val a = simd_get(s, x), u = simd_get(s, y);
    LLVMIntPredicate p = LLVMGetICmpPredicate(cond);
    if (a.sh.kind == SIMD_UNIFORM && u.sh.kind == SIMD_AFFINE) { /* the affine one on the left */
        simd_val t = a;
        a = u;
        u = t;
        static const LLVMIntPredicate swapped[] = {
            [LLVMIntEQ] = LLVMIntEQ,   [LLVMIntNE] = LLVMIntNE,   [LLVMIntUGT] = LLVMIntULT, [LLVMIntUGE] = LLVMIntULE,
            [LLVMIntULT] = LLVMIntUGT, [LLVMIntULE] = LLVMIntUGE, [LLVMIntSGT] = LLVMIntSLT, [LLVMIntSGE] = LLVMIntSLE,
            [LLVMIntSLT] = LLVMIntSGT, [LLVMIntSLE] = LLVMIntSGE,
        };
        p = swapped[p];
    }
    if (a.sh.kind != SIMD_AFFINE || u.sh.kind != SIMD_UNIFORM || a.sh.stride <= 0 ||
        LLVMGetTypeKind(LLVMTypeOf(a.v)) != LLVMIntegerTypeKind)
        return NULL;
    if (negated) {
        static const LLVMIntPredicate inverse[] = {
            [LLVMIntEQ] = LLVMIntNE,   [LLVMIntNE] = LLVMIntEQ,   [LLVMIntUGT] = LLVMIntULE, [LLVMIntUGE] = LLVMIntULT,
            [LLVMIntULT] = LLVMIntUGE, [LLVMIntULE] = LLVMIntUGT, [LLVMIntSGT] = LLVMIntSLE, [LLVMIntSGE] = LLVMIntSLT,
            [LLVMIntSLT] = LLVMIntSGE, [LLVMIntSLE] = LLVMIntSGT,
        };
        p = inverse[p];
    }
    bool is_signed = p == LLVMIntSGT || p == LLVMIntSGE || p == LLVMIntSLT || p == LLVMIntSLE;
    if (!(is_signed ? a.sh.nsw : a.sh.nuw) || (p == LLVMIntEQ && a.sh.stride != 1))
        return NULL;
    LLVMTypeRef t = LLVMTypeOf(a.v), iw = LLVMIntTypeInContext(s->llc, s->W);
    LLVMValueRef bits = LLVMBuildBitCast(s->b, s->live, iw, ""), yes = LLVMConstInt(s->t_i1, 1, 0);
    LLVMValueRef first = simd_intrinsic(s, "llvm.cttz", &iw, 1, (LLVMValueRef[]){ bits, yes }, 2);
    LLVMValueRef last = LLVMBuildSub(s->b, LLVMConstInt(iw, s->W - 1, 0),
                                     simd_intrinsic(s, "llvm.ctlz", &iw, 1, (LLVMValueRef[]){ bits, yes }, 2), "");
    LLVMValueRef stride = LLVMConstInt(t, (unsigned long long)a.sh.stride, 0);
    LLVMValueRef lo = LLVMBuildAdd(s->b, a.v, LLVMBuildMul(s->b, resize(s, first, t), stride, ""), "");
    LLVMValueRef hi = LLVMBuildAdd(s->b, a.v, LLVMBuildMul(s->b, resize(s, last, t), stride, ""), "");
    switch (p) {
    case LLVMIntULT:
    case LLVMIntULE:
    case LLVMIntSLT:
    case LLVMIntSLE: /* the first live lane has the smallest value */
        return LLVMBuildICmp(s->b, p, lo, u.v, "");
    case LLVMIntUGT:
    case LLVMIntUGE:
    case LLVMIntSGT:
    case LLVMIntSGE: /* the last, the largest */
        return LLVMBuildICmp(s->b, p, hi, u.v, "");
    case LLVMIntEQ: { /* stride 1: lane u - base is live */
        LLVMValueRef d = LLVMBuildSub(s->b, u.v, a.v, "");
        LLVMValueRef in = LLVMBuildICmp(s->b, LLVMIntULT, d, LLVMConstInt(t, s->W, 0), "");
        LLVMValueRef dw = resize(s, LLVMBuildAnd(s->b, d, LLVMConstInt(t, s->W - 1, 0), ""), iw);
        LLVMValueRef bit = LLVMBuildTrunc(s->b, LLVMBuildLShr(s->b, bits, dw, ""), s->t_i1, "");
        return LLVMBuildAnd(s->b, in, bit, "");
    }
    default: /* ne: two live lanes differ, or the only one differs */
        return LLVMBuildOr(s->b, LLVMBuildICmp(s->b, LLVMIntNE, first, last, ""),
                           LLVMBuildICmp(s->b, LLVMIntNE, lo, u.v, ""), "");
    }
}

/* Whether every loop around block b is uniform (true for a block every lane runs). */
static bool in_uniform_loops(const simd_fn *s, unsigned b)
{
    for (unsigned l = s->cfg.loop_of[b]; l != JIT_CFG_NONE; l = s->cfg.loops[l].parent)
        if (!s->loop_uniform[l])
            return false;
    return true;
}

/* Where control goes after block b (at position i) hands lanes to successor
 * sb through a uniform edge; see the top of the file. */
static LLVMBasicBlockRef target(simd_fn *s, unsigned b, unsigned sb)
{
    const jit_cfg *g = &s->cfg;
    unsigned i = s->pos[b];
    if (s->pos[sb] <= i) { /* a back edge */
        unsigned l = g->loop_of[sb];
        while (l != JIT_CFG_NONE && g->loops[l].header != sb)
            l = g->loops[l].parent;
        if (l != JIT_CFG_NONE && s->loop_uniform[l])
            return s->enter[sb];
        return s->next[i];
    }
    if (!divergent(s, b) && in_uniform_loops(s, b))
        return s->enter[sb];
    unsigned out = JIT_CFG_NONE;
    for (unsigned l = g->loop_of[b]; l != JIT_CFG_NONE && !jit_cfg_loop_contains(g, l, sb); l = g->loops[l].parent) {
        if (!s->loop_uniform[l])
            return s->next[i];
        out = l;
    }
    return out != JIT_CFG_NONE ? s->after[out] : s->next[i];
}

/* The scalar back edge's loop hints (llvm.loop: unroll counts, dont_unroll) on
 * the branch that goes back in the vector function. */
static void copy_loop_hints(simd_fn *s, LLVMValueRef scalar_br, LLVMValueRef br)
{
    unsigned kind = LLVMGetMDKindIDInContext(s->llc, "llvm.loop", 9);
    LLVMValueRef md = LLVMGetMetadata(scalar_br, kind);
    if (md)
        LLVMSetMetadata(br, kind, md);
}

/* A branch from block b to successor sb (uniform edge), with the loop hints
 * when it goes back to a header. */
static void branch_to(simd_fn *s, unsigned b, unsigned sb)
{
    LLVMValueRef br = LLVMBuildBr(s->b, target(s, b, sb));
    if (s->pos[sb] <= s->pos[b])
        copy_loop_hints(s, LLVMGetBasicBlockTerminator(s->cfg.blocks[b]), br);
}

static LLVMValueRef not_mask(simd_fn *s, LLVMValueRef c)
{
    return LLVMBuildXor(s->b, c, LLVMConstAllOnes(LLVMTypeOf(c)), "");
}

/* A uniform edge: its own block doing the transfer, then the jump. */
static LLVMBasicBlockRef edge_block(simd_fn *s, unsigned b, LLVMBasicBlockRef succ)
{
    LLVMBasicBlockRef e = simd_block(s, "edge"), here = LLVMGetInsertBlock(s->b);
    LLVMPositionBuilderAtEnd(s->b, e);
    transfer(s, b, succ, s->mask, true, NULL);
    branch_to(s, b, jit_cfg_index(&s->cfg, succ));
    LLVMPositionBuilderAtEnd(s->b, here);
    return e;
}

static int emit_switch(simd_fn *s, unsigned b, LLVMValueRef sw)
{
    LLVMBasicBlockRef bb = s->cfg.blocks[b];
    LLVMValueRef sel = LLVMGetOperand(sw, 0);
    simd_val x = simd_get(s, sel);
    unsigned ns = LLVMGetNumSuccessors(sw);
    for (unsigned k = 0; k < ns; k++)
        prefetch_incoming(s, bb, LLVMGetSuccessor(sw, k));
    if (x.sh.kind == SIMD_UNIFORM) {
        LLVMBasicBlockRef def = edge_block(s, b, LLVMGetSwitchDefaultDest(sw));
        LLVMValueRef nsw = LLVMBuildSwitch(s->b, x.v, def, ns - 1);
        /* successor k (k >= 1) is case k - 1: operand 2k is its value */
        for (unsigned k = 1; k < ns; k++)
            LLVMAddCase(nsw, LLVMGetOperand(sw, 2 * k), edge_block(s, b, LLVMGetSuccessor(sw, k)));
        return s->rc;
    }
    LLVMValueRef xw = simd_widened(s, x, LLVMTypeOf(sel));
    LLVMBasicBlockRef def = LLVMGetSwitchDefaultDest(sw);
    LLVMValueRef matched = LLVMConstNull(s->t_mask), to_def = LLVMConstNull(s->t_mask);
    /* one transfer per distinct successor (successor k >= 1 is case k - 1,
     * operand 2k its value), with the union of its cases */
    for (unsigned k = 1; k < ns; k++) {
        LLVMBasicBlockRef succ = LLVMGetSuccessor(sw, k);
        bool seen = false;
        for (unsigned j = 1; j < k; j++)
            seen |= LLVMGetSuccessor(sw, j) == succ;
        if (seen)
            continue;
        LLVMValueRef em = LLVMConstNull(s->t_mask);
        for (unsigned j = k; j < ns; j++)
            if (LLVMGetSuccessor(sw, j) == succ) {
                LLVMValueRef c = simd_splat(s, LLVMGetOperand(sw, 2 * j));
                em = LLVMBuildOr(s->b, em, LLVMBuildICmp(s->b, LLVMIntEQ, xw, c, ""), "");
            }
        em = simd_mask_and(s, s->mask, em);
        matched = LLVMBuildOr(s->b, matched, em, "");
        if (succ == def)
            to_def = LLVMBuildOr(s->b, to_def, em, "");
        else
            transfer(s, b, succ, em, false, NULL);
    }
    LLVMValueRef dm = LLVMBuildOr(s->b, simd_mask_and(s, s->mask, not_mask(s, matched)), to_def, "");
    transfer(s, b, def, dm, false, NULL);
    LLVMBuildBr(s->b, s->next[s->pos[b]]);
    return s->rc;
}

static int emit_terminator(simd_fn *s, unsigned b, LLVMValueRef t)
{
    LLVMBasicBlockRef bb = s->cfg.blocks[b];
    unsigned i = s->pos[b];
    switch (LLVMGetInstructionOpcode(t)) {
    case LLVMBr:
        if (!LLVMIsConditional(t)) {
            LLVMBasicBlockRef succ = LLVMGetSuccessor(t, 0);
            transfer(s, b, succ, s->mask, true, NULL);
            branch_to(s, b, jit_cfg_index(&s->cfg, succ));
        } else {
            LLVMValueRef cond = LLVMGetCondition(t);
            simd_val c = simd_get(s, cond);
            LLVMBasicBlockRef st = LLVMGetSuccessor(t, 0), sf = LLVMGetSuccessor(t, 1);
            prefetch_incoming(s, bb, st);
            prefetch_incoming(s, bb, sf);
            if (c.sh.kind == SIMD_UNIFORM) {
                LLVMBasicBlockRef et = edge_block(s, b, st), ef = edge_block(s, b, sf);
                LLVMBuildCondBr(s->b, c.v, et, ef);
            } else if (st == sf) {
                transfer(s, b, st, s->mask, true, NULL);
                LLVMBuildBr(s->b, s->next[i]);
            } else {
                LLVMValueRef cw = simd_widened(s, c, LLVMTypeOf(cond));
                LLVMValueRef mt = simd_mask_and(s, s->mask, cw);
                LLVMValueRef mf = simd_mask_and(s, s->mask, not_mask(s, cw));
                transfer(s, b, st, mt, false, affine_any(s, cond, false));
                transfer(s, b, sf, mf, false, affine_any(s, cond, true));
                LLVMBuildBr(s->b, s->next[i]);
            }
        }
        return s->rc;
    case LLVMSwitch:
        return emit_switch(s, b, t);
    case LLVMRet:
        if (s->ret_slot && LLVMGetNumOperands(t)) {
            LLVMValueRef rv = LLVMGetOperand(t, 0);
            simd_val v = simd_get(s, rv);
            LLVMValueRef w = s->ret_uniform ? v.v : simd_widened(s, v, LLVMTypeOf(rv));
            if (!s->ret_uniform && divergent(s, b))
                w = blend(s, s->mask, w, LLVMBuildLoad2(s->b, LLVMTypeOf(w), s->ret_slot, ""));
            LLVMBuildStore(s->b, w, s->ret_slot);
        }
        LLVMBuildBr(s->b, !divergent(s, b) && in_uniform_loops(s, b) ? s->exit_bb : s->next[i]);
        return s->rc;
    case LLVMUnreachable:
        LLVMBuildBr(s->b, s->next[i]);
        return s->rc;
    default:
        return simd_decline(s, "a terminator the vectorizer does not take");
    }
}

/* --- blocks ----------------------------------------------------------------------------------------- */

/* Stores a value that other blocks read into its slot. */
static void store_slot(simd_fn *s, LLVMValueRef in, unsigned b)
{
    LLVMValueRef slot = slot_of(s, in);
    if (!slot)
        return;
    simd_val v = simd_get(s, in);
    LLVMValueRef x = v.v;
    if (v.sh.kind == SIMD_VARYING && divergent(s, b))
        x = blend(s, s->mask, x, LLVMBuildLoad2(s->b, LLVMGetAllocatedType(slot), slot, ""));
    LLVMBuildStore(s->b, x, slot);
}

static int emit_inst_any(simd_fn *s, LLVMValueRef in)
{
    switch (LLVMGetInstructionOpcode(in)) {
    case LLVMLoad:
        return simd_emit_load(s, in);
    case LLVMStore:
        return simd_emit_store(s, in);
    case LLVMAlloca:
        return s->rc; /* made with the frame */
    case LLVMAtomicRMW:
    case LLVMAtomicCmpXchg:
        return simd_per_lane(s, in);
    case LLVMFence: {
        LLVMValueRef c = LLVMInstructionClone(in);
        LLVMInsertIntoBuilder(s->b, c);
        return s->rc;
    }
    case LLVMCall:
        if (jit_sg_decode(in).kind)
            return simd_emit_subgroup(s, in);
        return simd_emit_inst(s, in);
    default:
        return simd_emit_inst(s, in);
    }
}

static int emit_block(simd_fn *s, unsigned i)
{
    unsigned b = s->order[i];
    LLVMBasicBlockRef bb = s->cfg.blocks[b];
    LLVMPositionBuilderAtEnd(s->b, s->enter[b]);
    util_hashmap_clear(&s->vals);
    util_hashmap_clear(&s->vectors);
    s->nval_store = 0;
    simd_guard_forget(s);
    s->cur = b;
    if (s->flag_slot[b]) {
        LLVMValueRef on = LLVMBuildLoad2(s->b, s->t_i1, s->flag_slot[b], "reached");
        LLVMBuildStore(s->b, LLVMConstInt(s->t_i1, 0, 0), s->flag_slot[b]);
        LLVMBasicBlockRef body = simd_block(s, "");
        LLVMBuildCondBr(s->b, on, body, s->next[i]);
        LLVMPositionBuilderAtEnd(s->b, body);
    }
    if (s->mask_slot[b]) {
        s->mask = LLVMBuildLoad2(s->b, s->t_mask, s->mask_slot[b], "m");
        LLVMBuildStore(s->b, LLVMConstNull(s->t_mask), s->mask_slot[b]);
        s->full = false;
    } else {
        s->mask = s->live;
        s->full = true;
    }
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && !s->rc; in = LLVMGetNextInstruction(in)) {
        if (LLVMIsATerminatorInst(in))
            return emit_terminator(s, b, in);
        if (LLVMIsAPHINode(in)) {
            LLVMValueRef slot = util_ptrmap_get(&s->phi_in, in);
            simd_set(s, in,
                     (simd_val){ simd_shape_of(s, in), LLVMBuildLoad2(s->b, LLVMGetAllocatedType(slot), slot, "") });
        } else if (emit_inst_any(s, in)) {
            break;
        }
        if (LLVMGetTypeKind(LLVMTypeOf(in)) != LLVMVoidTypeKind && !s->rc)
            store_slot(s, in, b);
    }
    return s->rc ? s->rc : simd_fail(s, "a block without a terminator");
}

static void emit_loop_tests(simd_fn *s)
{
    const jit_cfg *g = &s->cfg;
    for (unsigned l = 0; l < g->nloops; l++) {
        if (s->loop_uniform[l])
            continue;
        unsigned h = g->loops[l].header;
        LLVMPositionBuilderAtEnd(s->b, s->loop_test[l]);
        LLVMValueRef again = LLVMBuildLoad2(s->b, s->t_i1, s->flag_slot[h], "");
        LLVMValueRef br = LLVMBuildCondBr(s->b, again, s->enter[h], s->after[l]);
        const jit_loop *lp = &g->loops[l];
        for (unsigned i = 0; i < lp->nlatches; i++)
            copy_loop_hints(s, LLVMGetBasicBlockTerminator(g->blocks[lp->latches[i]]), br);
    }
}

/* --- the vector function ------------------------------------------------------------------------------ */

/* Whether `in`, unused, may go: it computes a value and nothing else. */
static bool dead_if_unused(LLVMValueRef in)
{
    LLVMOpcode op = LLVMGetInstructionOpcode(in);
    switch (op) {
    case LLVMPHI:
    case LLVMAlloca:
        return true;
    case LLVMLoad:
        return !LLVMGetVolatile(in) && LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic;
    case LLVMCall: {
        LLVMValueRef f = LLVMGetCalledValue(in);
        return LLVMIsAFunction(f) && LLVMGetIntrinsicID(f) && !jit_call_may_write(in) && !jit_sg_is_marker_fn(f);
    }
    default:
        return jit_opcode_pure(op);
    }
}

/* Deletes what the vector function computes and never uses (the addresses
 * of gathers that became vector accesses, say): the passes need not. */
static void drop_dead(simd_fn *s)
{
    for (bool more = true; more;) {
        more = false;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(s->vf); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetLastInstruction(bb); in;) {
                LLVMValueRef prev = LLVMGetPreviousInstruction(in);
                if (!LLVMGetFirstUse(in) && dead_if_unused(in)) {
                    LLVMInstructionEraseFromParent(in);
                    more = true;
                }
                in = prev;
            }
    }
}

static LLVMValueRef create_vf(simd_fn *s, const char *name)
{
    LLVMTypeRef ft = LLVMGlobalGetValueType(s->sf);
    unsigned np = LLVMCountParamTypes(ft);
    LLVMTypeRef *pt = calloc(np + 2, sizeof *pt);
    if (!pt)
        return NULL;
    LLVMGetParamTypes(ft, pt);
    for (unsigned i = 0; i < np; i++)
        if (s->args[i] == JIT_SIMD_ARG_VARYING)
            pt[i] = jit_simd_widen_type(pt[i], s->W);
    pt[np] = s->t_mask;
    LLVMTypeRef rt = jit_simd_widen_type(LLVMGetReturnType(ft), s->W);
    LLVMValueRef vf = LLVMAddFunction(s->mod, name, LLVMFunctionType(rt, pt, np + 1, 0));
    free(pt);
    LLVMSetLinkage(vf, LLVMInternalLinkage);
    static const char *const attrs[] = { "alwaysinline", "nounwind" };
    for (unsigned i = 0; i < 2; i++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
        LLVMAddAttributeAtIndex(vf, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(s->llc, kind, 0));
    }
    /* keep the widest vectors legal where the CPU would rather split them */
    char width[16];
    snprintf(width, sizeof width, "%u", s->W * 64 > 512 ? 512 : s->W * 64);
    LLVMAddAttributeAtIndex(vf, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(s->llc, "min-legal-vector-width", 22, width, strlen(width)));
    for (unsigned i = 0; i < np; i++) {
        /* noalias etc. still hold for the bases of uniform pointers */
        if (s->args[i] != JIT_SIMD_ARG_UNIFORM)
            continue;
        unsigned n = LLVMGetAttributeCountAtIndex(s->sf, i + 1);
        LLVMAttributeRef *a = calloc(n + 1, sizeof *a);
        if (!a)
            continue;
        LLVMGetAttributesAtIndex(s->sf, i + 1, a);
        for (unsigned k = 0; k < n; k++)
            LLVMAddAttributeAtIndex(vf, i + 1, a[k]);
        free(a);
    }
    return vf;
}

static void simd_free(simd_fn *s)
{
    jit_uniformity_free(s->u);
    jit_cfg_free(&s->cfg);
    free(s->order);
    free(s->pos);
    free(s->loop_end);
    free(s->loop_uniform);
    free(s->shape_store);
    free(s->enter);
    free(s->loop_test);
    free(s->after);
    free(s->next);
    free(s->mask_slot);
    free(s->flag_slot);
    free(s->val_store);
    util_hashmap_fini(&s->shapes);
    util_hashmap_fini(&s->known_uniform);
    util_hashmap_fini(&s->slots);
    util_hashmap_fini(&s->phi_in);
    util_hashmap_fini(&s->private_mem);
    util_hashmap_fini(&s->vals);
    util_hashmap_fini(&s->vectors);
    util_hashmap_fini(&s->lanes_memo);
    util_array_fini(&s->lanes_store);
    util_array_fini(&s->built);
    if (s->b)
        LLVMDisposeBuilder(s->b);
}

static bool known_uniform(void *user, LLVMValueRef in)
{
    const simd_fn *s = user;
    return util_ptrmap_get(&s->known_uniform, in) != NULL;
}

/* Forgets the schedule and the shapes (before the analyses run again). */
static void forget_analyses(simd_fn *s)
{
    jit_uniformity_free(s->u);
    s->u = NULL;
    free(s->order);
    free(s->pos);
    free(s->loop_end);
    free(s->loop_uniform);
    free(s->shape_store);
    s->order = s->pos = s->loop_end = NULL;
    s->loop_uniform = NULL;
    s->shape_store = NULL;
    util_hashmap_clear(&s->shapes);
}

/* The divergence analysis, the schedule and the shapes.  The shapes can prove
 * values uniform that the analysis cannot (the x / W of a consecutive index):
 * those are fed back, and everything runs again, until nothing changes. */
static int analyse(simd_fn *s)
{
    if (check_function(s))
        return s->rc;
    if (jit_cfg_build(&s->cfg, s->sf))
        return simd_fail(s, "out of memory");
    if (s->cfg.irreducible)
        return simd_decline(s, "irreducible control flow");
    unsigned np = LLVMCountParams(s->sf);
    bool *varies = calloc(np + 1, sizeof *varies);
    if (!varies)
        return simd_fail(s, "out of memory");
    for (unsigned i = 0; i < np; i++)
        varies[i] = s->args[i] != JIT_SIMD_ARG_UNIFORM;
    jit_uniformity_config uc = { .param_varies = varies,
                                 .memory = JIT_MEMORY_LANES_IN_LOCKSTEP,
                                 .call_varying = simd_call_varying,
                                 .known_uniform = known_uniform,
                                 .user = s };
    for (int round = 0; round < 8 && !s->rc; round++) {
        if (round)
            forget_analyses(s);
        if (jit_uniformity_run(&s->u, &s->cfg, &uc)) {
            simd_fail(s, "out of memory");
            break;
        }
        if (simd_schedule(s) || simd_shapes(s))
            break;
        bool more = false;
        for (unsigned i = 0; i < s->norder && !s->rc; i++)
            for (LLVMValueRef in = LLVMGetFirstInstruction(s->cfg.blocks[s->order[i]]); in;
                 in = LLVMGetNextInstruction(in))
                if (!LLVMIsAPHINode(in) && jit_uniformity_varying(s->u, in) &&
                    simd_shape_of(s, in).kind == SIMD_UNIFORM && !util_ptrmap_get(&s->known_uniform, in)) {
                    if (!util_ptrmap_put(&s->known_uniform, in, (void *)1))
                        simd_fail(s, "out of memory");
                    more = true;
                }
        if (!more)
            break;
    }
    free(varies);
    return s->rc;
}

int jit_simd_vectorize(const jit_simd_request *r, LLVMValueRef *out, char *msg)
{
    simd_fn s = { .sf = r->fn, .args = r->args, .W = r->width, .td = r->td, .msg = msg };
    *out = NULL;
    msg[0] = 0;
    if (r->width < 2 || r->width > JIT_SIMD_MAX_WIDTH || (r->width & (r->width - 1))) {
        snprintf(msg, JIT_SIMD_MSG, "internal error: vectorizer: width %u", r->width);
        return -1;
    }
    s.log2w = (unsigned)__builtin_ctz(r->width);
    s.mod = LLVMGetGlobalParent(r->fn);
    s.llc = LLVMGetModuleContext(s.mod);
    s.t_i1 = LLVMInt1TypeInContext(s.llc);
    s.t_i8 = LLVMInt8TypeInContext(s.llc);
    s.t_i32 = LLVMInt32TypeInContext(s.llc);
    s.t_i64 = LLVMInt64TypeInContext(s.llc);
    s.t_ptr = LLVMPointerTypeInContext(s.llc, 0);
    s.t_mask = LLVMVectorType(s.t_i1, s.W);
    util_hashmap_init(&s.shapes, NULL);
    util_hashmap_init(&s.known_uniform, NULL);
    util_hashmap_init(&s.slots, NULL);
    util_hashmap_init(&s.phi_in, NULL);
    util_hashmap_init(&s.private_mem, NULL);
    util_hashmap_init(&s.vals, NULL);
    util_hashmap_init(&s.vectors, NULL);
    util_hashmap_init(&s.lanes_memo, NULL);
    if (!LLVMCountBasicBlocks(r->fn)) {
        simd_fail(&s, "a function without a body");
    } else if (!analyse(&s)) {
        s.b = LLVMCreateBuilderInContext(s.llc);
        s.vf = create_vf(&s, r->name);
        if (!s.vf) {
            simd_fail(&s, "out of memory");
        } else {
            s.live = LLVMGetParam(s.vf, LLVMCountParams(s.sf));
            if (!build_frame(&s)) {
                LLVMPositionBuilderAtEnd(s.b, s.entry_bb);
                LLVMBuildBr(s.b, s.enter[s.order[0]]);
                for (unsigned i = 0; i < s.norder && !s.rc; i++)
                    emit_block(&s, i);
                if (!s.rc) {
                    emit_loop_tests(&s);
                    drop_dead(&s);
                    LLVMPositionBuilderAtEnd(s.b, s.exit_bb);
                    LLVMValueRef rv =
                        s.ret_slot ? LLVMBuildLoad2(s.b, LLVMGetAllocatedType(s.ret_slot), s.ret_slot, "") : NULL;
                    if (rv && s.ret_uniform)
                        rv = simd_widened(&s, (simd_val){ .sh.kind = SIMD_UNIFORM, .v = rv }, LLVMTypeOf(rv));
                    if (rv)
                        LLVMBuildRet(s.b, rv);
                    else
                        LLVMBuildRetVoid(s.b);
                }
            }
        }
    }
    int rc = s.rc;
    if (rc && s.vf)
        LLVMDeleteFunction(s.vf);
    else
        *out = s.vf;
    simd_free(&s);
    return rc;
}

/* --- the form the vectorizer takes ------------------------------------------------------------------ */

static int run_passes(LLVMModuleRef mod, const char *pipeline, char *msg)
{
    return jit_run_passes(mod, pipeline, msg, JIT_SIMD_MSG);
}

/* Sets (on) or restores the attributes that keep the function passes off
 * function f: optnone with the noinline it needs, without alwaysinline;
 * bits[0..2] remember what was there. */
static void skip_function(LLVMValueRef f, bool on, unsigned char *bits)
{
    static const char *const names[3] = { "optnone", "noinline", "alwaysinline" };
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(f));
    for (unsigned k = 0; k < 3; k++) {
        unsigned kind = LLVMGetEnumAttributeKindForName(names[k], strlen(names[k]));
        bool want = k < 2;
        if (on) {
            bits[k] = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind) != NULL;
            if (bits[k] != want) {
                if (want)
                    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(llc, kind, 0));
                else
                    LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
            }
        } else if (bits[k] != want) {
            if (bits[k])
                LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(llc, kind, 0));
            else
                LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
        }
    }
}

/* --- inlining into the vectorizer's functions only --------------------------------------------------- */

/* The always-inliner inlines every call of an always-inline function, in the
 * module's order of callees: into the scalar functions too (the entry point,
 * the item function), each of which the next level then copies again whole.
 * The functions to vectorize are all that need it, so the calls elsewhere are
 * blocked meanwhile (a call-site noinline, tagged as ours; an inlined copy
 * carries both), and the inliner runs once per level of calls, the copies
 * unblocked in between.  conv3x3.comp: about 300 instructions copied
 * instead of 800, 0.3 ms. */
static const char blocked_tag[] = "spvjit.inline-later";

typedef struct {
    unsigned always, never; /* the attribute kinds */
    LLVMAttributeRef never_attr, tag;
} inline_kinds;

/* What the always-inliner takes: a call of a defined function, always-inline
 * at the site or on the callee, not noinline at the site. */
static bool always_inlined(LLVMValueRef call, const inline_kinds *k)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (!LLVMIsAFunction(callee) || !LLVMCountBasicBlocks(callee) ||
        LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, k->never))
        return false;
    return LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, k->always) ||
           LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, k->always);
}

/* Blocks the always-inlined calls in f, or unblocks those we blocked; returns
 * how many are left to inline. */
static unsigned block_calls(LLVMValueRef f, bool block, const inline_kinds *k)
{
    unsigned open = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef in = LLVMGetFirstInstruction(b); in; in = LLVMGetNextInstruction(in)) {
            if (!LLVMIsACallInst(in))
                continue;
            bool ours = LLVMGetCallSiteStringAttribute(in, LLVMAttributeFunctionIndex, blocked_tag,
                                                       sizeof blocked_tag - 1) != NULL;
            if (ours && !block) {
                LLVMRemoveCallSiteEnumAttribute(in, LLVMAttributeFunctionIndex, k->never);
                LLVMRemoveCallSiteStringAttribute(in, LLVMAttributeFunctionIndex, blocked_tag, sizeof blocked_tag - 1);
            }
            if (!always_inlined(in, k))
                continue;
            if (block) {
                LLVMAddCallSiteAttribute(in, LLVMAttributeFunctionIndex, k->never_attr);
                LLVMAddCallSiteAttribute(in, LLVMAttributeFunctionIndex, k->tag);
            } else {
                open++;
            }
        }
    return open;
}

static bool listed(LLVMValueRef f, const LLVMValueRef *fns, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (fns[i] == f)
            return true;
    return false;
}

/* Inlines the always-inline calls of only[0..n) down to the last level, and
 * nothing into the other functions. */
static int inline_into(LLVMModuleRef mod, const LLVMValueRef *only, unsigned n, char *msg)
{
    LLVMContextRef llc = LLVMGetModuleContext(mod);
    inline_kinds k = { .always = LLVMGetEnumAttributeKindForName("alwaysinline", 12),
                       .never = LLVMGetEnumAttributeKindForName("noinline", 8) };
    k.never_attr = LLVMCreateEnumAttribute(llc, k.never, 0);
    k.tag = LLVMCreateStringAttribute(llc, blocked_tag, sizeof blocked_tag - 1, "", 0);
    unsigned nfn = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f), nfn++)
        if (!listed(f, only, n))
            block_calls(f, true, &k);
    /* SPIR-V has no recursion: no chain of calls is longer than the
     * functions; the bound stops a call the inliner refuses */
    int rc = 0;
    for (unsigned level = 0; level <= nfn && !rc; level++) {
        unsigned open = 0;
        for (unsigned i = 0; i < n; i++)
            open += block_calls(only[i], false, &k);
        if (!open)
            break;
        rc = run_passes(mod, "always-inline", msg);
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        block_calls(f, false, &k);
    return rc;
}

/* The sub-group size markers of f replaced by w (what the vectorizer would
 * make of them), so that the passes fold SubgroupId = index / W into a shift
 * the shape analysis sees through. */
static void constant_size(LLVMValueRef f, unsigned w)
{
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef in = LLVMGetFirstInstruction(b); in;) {
            LLVMValueRef next = LLVMGetNextInstruction(in);
            if (LLVMIsACallInst(in) && jit_sg_decode(in).kind == JIT_SG_SIZE) {
                LLVMReplaceAllUsesWith(in, LLVMConstInt(LLVMTypeOf(in), w, 0));
                LLVMInstructionEraseFromParent(in);
            }
            in = next;
        }
}

/* The function passes `pipeline` on only[0..n) alone (their cost is per
 * function); the passes may add declarations, so the others are listed. */
static int passes_on(LLVMModuleRef mod, const LLVMValueRef *only, unsigned n, const char *pipeline, char *msg)
{
    unsigned nfn = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        nfn++;
    LLVMValueRef *skipped = calloc((size_t)nfn + 1, sizeof *skipped);
    unsigned char *bits = calloc(3 * (size_t)nfn + 1, 1);
    if (!skipped || !bits) {
        free(skipped);
        free(bits);
        snprintf(msg, JIT_SIMD_MSG, "out of memory");
        return -1;
    }
    unsigned ns = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (LLVMCountBasicBlocks(f) && !listed(f, only, n)) {
            skip_function(f, true, &bits[3 * ns]);
            skipped[ns++] = f;
        }
    int rc = run_passes(mod, pipeline, msg);
    for (unsigned i = 0; i < ns; i++)
        skip_function(skipped[i], false, &bits[3 * i]);
    free(skipped);
    free(bits);
    return rc;
}

int jit_passes_on(LLVMModuleRef mod, const LLVMValueRef *only, unsigned n, const char *pipeline, char *msg)
{
    return inline_into(mod, only, n, msg) ? -1 : passes_on(mod, only, n, pipeline, msg);
}

int jit_simd_prepare(LLVMModuleRef mod, const LLVMValueRef *only, const unsigned *widths, unsigned nonly,
                     jit_simd_prep prep, char *msg)
{
    /* everything inlined; variables in registers; small constant loops gone
     * (a uniform loop under a divergent branch would keep its mask tests);
     * LLVM vectors split where the scalarizer can; the unrolled copies'
     * common values computed once (a stencil's row offsets: the vector
     * function widens what it is given, and the passes after it pay for
     * every copy).  One instruction combining, after the unrolling: before
     * it, it changed nothing the vectorizer sees.  SROA's last run leaves
     * extracts from constant vectors (a specialized row of coefficients):
     * simplified, a zero coefficient's term (x * 0.0 where the flavour
     * ignores NaN and the sign of zero) and its load go before the
     * vectorizer widens them.  The quick tier stops after the first CFG
     * simplification: its own passes (optimize.c) run on the vector code
     * anyway, and the rest doubled sgreduce's preparation (1.4 -> 2.7 ms)
     * for quick code of the same size. */
    static const char full[] = "function(sroa,early-cse,simplifycfg,loop(loop-unroll-full),scalarizer,early-cse,"
                               "instcombine<no-verify-fixpoint>,simplifycfg,sroa,instsimplify)";
    static const char quick[] = "function(sroa,early-cse,simplifycfg)";
    const char *pipeline = prep == JIT_SIMD_PREP_QUICK ? quick : full;
    if (!only)
        return run_passes(mod, "always-inline", msg) ? -1 : run_passes(mod, pipeline, msg);
    if (inline_into(mod, only, nonly, msg))
        return -1;
    for (unsigned k = 0; widths && k < nonly; k++)
        constant_size(only[k], widths[k]);
    return passes_on(mod, only, nonly, pipeline, msg);
}
