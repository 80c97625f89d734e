/* jit/region_loops.c — the work-group function of the barrier regions (see region_loops.h). */
#include "region_loops.h"

#include "group_range.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

typedef struct emitter {
    lower_ctx *c;
    const jit_regions *rg;
    const jit_uniformity *u;
    const jit_slot_plan *p;
    LLVMBuilderRef b;
    LLVMValueRef item, wg;  /* the item function; the function being built */
    LLVMValueRef *slot_wg;  /* [nslots]: the per-item array or the group slot in the machine */
    util_hashmap hoisted;   /* hoisted item value → its clone at the top of the machine */
    const jit_group *group; /* the group being emitted (group_range.h) */
    uint32_t ls[3], n;
    LLVMValueRef next, next_uniform, rounds, diff, site_table;
    char *msg;
    bool oom;
} emitter;

static int internal_error(emitter *e, const char *what)
{
    snprintf(e->msg, JIT_REGIONS_MSG, "internal error: barrier regions: %s", what);
    return -1;
}

static void put(emitter *e, util_hashmap *m, LLVMValueRef k, LLVMValueRef v)
{
    if (!util_ptrmap_put(m, k, v))
        e->oom = true;
}

/* --- loops over the work-items ---------------------------------------------------------------- */

typedef struct nest {
    LLVMBasicBlockRef head[3];
    LLVMValueRef iv[3];    /* z, y, x */
    LLVMValueRef idx;      /* linear index in the compiled layout */
    LLVMValueRef bound[3]; /* x, y, z */
} nest;

/* Opens `for z, for y, for x < bound`; the builder is left in the body. */
static void open_nest(emitter *e, nest *ns, LLVMValueRef *bound)
{
    lower_ctx *c = e->c;
    const char *names[3] = { "z", "y", "x" };
    memcpy(ns->bound, bound, sizeof ns->bound);
    for (int d = 0; d < 3; d++) {
        LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
        ns->head[d] = LLVMAppendBasicBlockInContext(c->llc, e->wg, names[d]);
        LLVMBuildBr(e->b, ns->head[d]);
        LLVMPositionBuilderAtEnd(e->b, ns->head[d]);
        ns->iv[d] = LLVMBuildPhi(e->b, c->t_i32, names[d]);
        LLVMValueRef zero = LLVMConstInt(c->t_i32, 0, 0);
        LLVMAddIncoming(ns->iv[d], &zero, &from, 1);
    }
    LLVMValueRef zy =
        LLVMBuildAdd(e->b, LLVMBuildMul(e->b, ns->iv[0], LLVMConstInt(c->t_i32, e->ls[1], 0), ""), ns->iv[1], "");
    ns->idx = LLVMBuildAdd(e->b, LLVMBuildMul(e->b, zy, LLVMConstInt(c->t_i32, e->ls[0], 0), ""), ns->iv[2], "idx");
}

/* Closes the nest from the builder's block (the latch); the builder is left after it. */
static void close_nest(emitter *e, nest *ns)
{
    lower_ctx *c = e->c;
    for (int d = 2; d >= 0; d--) {
        LLVMValueRef next = LLVMBuildAdd(e->b, ns->iv[d], LLVMConstInt(c->t_i32, 1, 0), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(e->b);
        LLVMAddIncoming(ns->iv[d], &next, &latch, 1);
        LLVMValueRef more = LLVMBuildICmp(e->b, LLVMIntULT, next, ns->bound[2 - d], "");
        LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->llc, e->wg, "");
        LLVMBuildCondBr(e->b, more, ns->head[d], after);
        LLVMPositionBuilderAtEnd(e->b, after);
    }
}

static LLVMValueRef item_ptr(emitter *e, LLVMValueRef arr, LLVMTypeRef elem, LLVMValueRef idx)
{
    LLVMValueRef ix[2] = { LLVMConstInt(e->c->t_i32, 0, 0), idx };
    return LLVMBuildInBoundsGEP2(e->b, LLVMArrayType2(elem, e->n), arr, ix, 2, "");
}

/* --- cloning the item function's code ------------------------------------------------------------ */

/* The clone of item-function value v in the current region (map), v itself for constants. */
static LLVMValueRef mapped(emitter *e, const util_hashmap *map, LLVMValueRef v)
{
    if (LLVMIsABasicBlock(v))
        return v;
    if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
        return v;
    LLVMValueRef m = util_ptrmap_get(map, v);
    return m ? m : util_ptrmap_get(&e->hoisted, v);
}

/* Recomputes item-function value v at the builder (JIT_SLOT_REMAT); memo holds
 * what this recomputation already built. */
static LLVMValueRef remat(emitter *e, const util_hashmap *map, util_hashmap *memo, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v))
        return mapped(e, map, v);
    LLVMValueRef m = util_ptrmap_get(&e->hoisted, v);
    if (m)
        return m;
    if ((m = util_ptrmap_get(memo, v)))
        return m;
    if (LLVMIsALoadInst(v)) {
        const jit_slot *sl = jit_slot_of(e->p, LLVMGetOperand(v, 0));
        m = sl->kind == JIT_SLOT_UNIFORM ? mapped(e, map, sl->value) : remat(e, map, memo, sl->value);
    } else {
        m = LLVMInstructionClone(v);
        for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++) {
            LLVMValueRef op = remat(e, map, memo, LLVMGetOperand(v, k));
            if (!op)
                return NULL;
            LLVMSetOperand(m, k, op);
        }
        LLVMInsertIntoBuilder(e->b, m);
    }
    if (m)
        put(e, memo, v, m);
    return m;
}

static int remap_operands(emitter *e, const util_hashmap *map, LLVMValueRef clone)
{
    for (int k = 0, n = LLVMGetNumOperands(clone); k < n; k++) {
        LLVMValueRef v = LLVMGetOperand(clone, k);
        if (LLVMValueIsBasicBlock(v)) {
            LLVMBasicBlockRef nb = util_ptrmap_get(map, LLVMValueAsBasicBlock(v));
            if (!nb)
                return internal_error(e, "a branch leaves its region");
            LLVMSetOperand(clone, k, LLVMBasicBlockAsValue(nb));
            continue;
        }
        LLVMValueRef m = mapped(e, map, v);
        if (!m)
            return internal_error(e, "a value crosses a block");
        if (m != v)
            LLVMSetOperand(clone, k, m);
    }
    return 0;
}

/* The item function's parameters that are the same for the whole group: ctx,
 * the group's size (`size`) and WorkgroupId. */
static void map_group_params(emitter *e, util_hashmap *map, LLVMValueRef *size)
{
    put(e, map, e->rg->ctx, LLVMGetParam(e->wg, 0));
    for (unsigned d = 0; d < 3; d++) {
        put(e, map, LLVMGetParam(e->item, 4 + d), size[d]);
        put(e, map, LLVMGetParam(e->item, 7 + d), e->group->id[d]);
    }
}

/* Computes the hoisted values once per group, at the top of its machine. */
static int hoist(emitter *e)
{
    util_hashmap map;
    util_hashmap_init(&map, NULL);
    LLVMValueRef size[3];
    memcpy(size, e->group->size, sizeof size);
    map_group_params(e, &map, size);
    int rc = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(e->rg->cfg.blocks[0]); in && !rc; in = LLVMGetNextInstruction(in)) {
        if (!jit_slot_hoisted(e->p, in))
            continue;
        LLVMValueRef cl = LLVMInstructionClone(in);
        LLVMInsertIntoBuilder(e->b, cl);
        put(e, &map, in, cl);
        rc = remap_operands(e, &map, cl);
        put(e, &e->hoisted, in, cl);
    }
    util_hashmap_fini(&map);
    return rc;
}

/* --- one region ------------------------------------------------------------------------------------ */

/* Whether every item leaves region `list` the same way: none of its barriers
 * and returns is in a divergent block. */
static bool uniform_exit(emitter *e, const unsigned *list, unsigned nlist)
{
    for (unsigned w = 0; w < nlist; w++) {
        unsigned b = list[w];
        LLVMValueRef t = LLVMGetBasicBlockTerminator(e->rg->cfg.blocks[b]);
        if ((e->rg->barrier[b] || LLVMGetInstructionOpcode(t) == LLVMRet) && jit_uniformity_divergent(e->u, b))
            return false;
    }
    return true;
}

/* A group slot live into region k and stored in it: every item starts from
 * the value it had when the region began, not the one the previous item left
 * (all items store the same values, so the last one's is right).  Loads those
 * values before the loop; at_start[s] is the load or NULL. */
static void group_slots_at_start(emitter *e, unsigned k, const unsigned *list, unsigned nlist, LLVMValueRef *at_start)
{
    const jit_slot_plan *p = e->p;
    bool *stored = calloc(p->nslots + 1, 1);
    if (!stored) {
        e->oom = true;
        return;
    }
    for (unsigned w = 0; w < nlist; w++)
        for (LLVMValueRef in = LLVMGetFirstInstruction(e->rg->cfg.blocks[list[w]]); in;
             in = LLVMGetNextInstruction(in)) {
            unsigned s = LLVMIsAStoreInst(in) ? jit_slot_number(p, LLVMGetOperand(in, 1)) : UINT32_MAX;
            if (s != UINT32_MAX)
                stored[s] = true;
        }
    for (unsigned s = 0; s < p->nslots; s++) {
        const jit_slot *sl = &p->slots[s];
        if (sl->kind == JIT_SLOT_GROUP && stored[s] && k > 0 && jit_slot_live_into(p, e->rg->start[k], s))
            at_start[s] = LLVMBuildLoad2(e->b, LLVMGetAllocatedType(sl->alloca), e->slot_wg[s], "");
    }
    free(stored);
}

/* A load of a UNIFORM or REMAT slot becomes its value: the value, NULL when
 * `in` is no such load, or `in` itself on an error. */
static LLVMValueRef slot_value(emitter *e, const util_hashmap *map, LLVMValueRef in)
{
    const jit_slot *sl = LLVMIsALoadInst(in) ? jit_slot_of(e->p, LLVMGetOperand(in, 0)) : NULL;
    if (!sl || (sl->kind != JIT_SLOT_REMAT && sl->kind != JIT_SLOT_UNIFORM))
        return NULL;
    LLVMValueRef v;
    if (sl->kind == JIT_SLOT_REMAT) {
        util_hashmap memo;
        util_hashmap_init(&memo, NULL);
        v = remat(e, map, &memo, in);
        util_hashmap_fini(&memo);
    } else {
        v = mapped(e, map, sl->value);
    }
    if (!v)
        internal_error(e, sl->kind == JIT_SLOT_REMAT ? "recomputed value" : "uniform slot");
    return v ? v : in;
}

/* Clones region k's blocks into the loop body; operands are remapped once
 * every clone exists. */
static int clone_region(emitter *e, const unsigned *list, unsigned nlist, util_hashmap *map, LLVMValueRef next_ptr,
                        LLVMBasicBlockRef latch)
{
    lower_ctx *c = e->c;
    const jit_regions *rg = e->rg;
    util_array clones = { 0 };
    int rc = 0;
    for (unsigned w = 0; w < nlist && !rc; w++) {
        unsigned b = list[w];
        LLVMPositionBuilderAtEnd(e->b, util_ptrmap_get(map, rg->cfg.blocks[b]));
        for (LLVMValueRef in = LLVMGetFirstInstruction(rg->cfg.blocks[b]); in && !rc; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if (op == LLVMAlloca || jit_slot_hoisted(e->p, in) || in == rg->barrier[b])
                continue;
            LLVMValueRef v = slot_value(e, map, in);
            if (v == in) {
                rc = -1;
            } else if (v) {
                put(e, map, in, v);
            } else if (op == LLVMRet || (rg->barrier[b] && op == LLVMBr)) {
                LLVMBuildStore(e->b, LLVMConstInt(c->t_i32, op == LLVMRet ? 0 : rg->resume[b], 0), next_ptr);
                LLVMBuildBr(e->b, latch);
            } else {
                LLVMValueRef cl = LLVMInstructionClone(in);
                LLVMInsertIntoBuilder(e->b, cl);
                put(e, map, in, cl);
                if (!UTIL_ARRAY_PUSH(&clones, LLVMValueRef, cl))
                    e->oom = true;
            }
        }
    }
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&clones, LLVMValueRef) && !rc; i++)
        rc = remap_operands(e, map, UTIL_ARRAY_AT(&clones, LLVMValueRef, i));
    util_array_fini(&clones);
    return rc;
}

/* Region k as a loop over the work-items; the builder is left after the loop,
 * where every item has stored its next[] entry, or, when *uniform (every item
 * leaves the region at the same barrier or return), next_uniform. */
static int emit_region(emitter *e, unsigned k, LLVMValueRef *bound, bool *uniform)
{
    lower_ctx *c = e->c;
    const jit_regions *rg = e->rg;
    const jit_slot_plan *p = e->p;
    unsigned nb = rg->cfg.nblocks;
    unsigned *list = calloc(nb + 1, sizeof *list);
    bool *in_region = calloc(nb + 1, sizeof *in_region);
    LLVMValueRef *at_start = calloc(p->nslots + 1, sizeof *at_start);
    if (!list || !in_region || !at_start) {
        free(list);
        free(in_region);
        free(at_start);
        e->oom = true;
        return -1;
    }
    unsigned nlist = jit_regions_blocks(rg, k, list, in_region);
    *uniform = uniform_exit(e, list, nlist);
    group_slots_at_start(e, k, list, nlist, at_start);

    nest ns;
    open_nest(e, &ns, bound);
    for (unsigned s = 0; s < p->nslots; s++)
        if (at_start[s])
            LLVMBuildStore(e->b, at_start[s], e->slot_wg[s]);
    util_hashmap map;
    util_hashmap_init(&map, NULL);
    map_group_params(e, &map, bound);
    for (unsigned d = 0; d < 3; d++) /* lx, ly, lz */
        put(e, &map, LLVMGetParam(e->item, 1 + d), ns.iv[2 - d]);
    for (unsigned s = 0; s < p->nslots; s++) {
        const jit_slot *sl = &p->slots[s];
        LLVMValueRef ptr = sl->kind == JIT_SLOT_ITEM
                               ? item_ptr(e, e->slot_wg[s], LLVMGetAllocatedType(sl->alloca), ns.idx)
                               : e->slot_wg[s];
        put(e, &map, sl->alloca, ptr);
    }
    LLVMValueRef next_ptr = *uniform ? e->next_uniform : item_ptr(e, e->next, c->t_i32, ns.idx);
    LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(c->llc, e->wg, "latch");
    for (unsigned w = 0; w < nlist; w++)
        put(e, &map, (LLVMValueRef)rg->cfg.blocks[list[w]],
            (LLVMValueRef)LLVMAppendBasicBlockInContext(c->llc, e->wg, w ? "" : "region"));
    LLVMBuildBr(e->b, util_ptrmap_get(&map, rg->cfg.blocks[rg->start[k]]));
    int rc = clone_region(e, list, nlist, &map, next_ptr, latch);
    LLVMPositionBuilderAtEnd(e->b, latch);
    close_nest(e, &ns);
    util_hashmap_fini(&map);
    free(list);
    free(in_region);
    free(at_start);
    return rc;
}

/* After a region: every item must have stopped at the same barrier (or returned).
 * Divergence calls ctx->report_divergence and returns true (the range stops);
 * otherwise dispatches.
 * A region with a uniform exit needs no check: next_uniform says where all went. */
static void emit_check(emitter *e, LLVMValueRef *bound, LLVMBasicBlockRef *region_pre, LLVMBasicBlockRef exit,
                       bool uniform)
{
    lower_ctx *c = e->c;
    LLVMValueRef ctx = LLVMGetParam(e->wg, 0);
    LLVMValueRef first = LLVMBuildLoad2(e->b, c->t_i32, uniform ? e->next_uniform : e->next, "first");
    if (!uniform) {
        LLVMBuildStore(e->b, LLVMConstInt(c->t_i32, 0, 0), e->diff);
        nest ns;
        open_nest(e, &ns, bound);
        /* diff |= next[i] ^ first: no early exit, so the loop vectorizes */
        LLVMValueRef v = LLVMBuildLoad2(e->b, c->t_i32, item_ptr(e, e->next, c->t_i32, ns.idx), "");
        LLVMValueRef acc =
            LLVMBuildOr(e->b, LLVMBuildLoad2(e->b, c->t_i32, e->diff, ""), LLVMBuildXor(e->b, v, first, ""), "");
        LLVMBuildStore(e->b, acc, e->diff);
        close_nest(e, &ns);
        LLVMBasicBlockRef diverged = LLVMAppendBasicBlockInContext(c->llc, e->wg, "diverged");
        LLVMBasicBlockRef same = LLVMAppendBasicBlockInContext(c->llc, e->wg, "same");
        LLVMValueRef any = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildLoad2(e->b, c->t_i32, e->diff, ""),
                                         LLVMConstInt(c->t_i32, 0, 0), "");
        LLVMBuildCondBr(e->b, any, diverged, same);

        LLVMPositionBuilderAtEnd(e->b, diverged);
        LLVMTypeRef params[5] = { c->t_ptr, c->t_i64, c->t_ptr, c->t_ptr, c->t_i64 };
        LLVMTypeRef ft = LLVMFunctionType(c->t_void, params, 5, 0);
        LLVMValueRef fn = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, report_divergence), c->t_ptr);
        LLVMValueRef args[5] = { ctx, e->group->index, e->next, e->site_table,
                                 LLVMBuildLoad2(e->b, c->t_i64, e->rounds, "") };
        LLVMBuildCall2(e->b, ft, fn, args, 5, "");
        LLVMBuildRet(e->b, LLVMConstInt(c->t_i1, 1, 0));
        LLVMPositionBuilderAtEnd(e->b, same);
    }
    LLVMValueRef rounds = LLVMBuildLoad2(e->b, c->t_i64, e->rounds, "");
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, rounds, LLVMConstInt(c->t_i64, 1, 0), ""), e->rounds);
    LLVMValueRef sw = LLVMBuildSwitch(e->b, first, exit, e->rg->nresume);
    for (unsigned k = 1; k <= e->rg->nresume; k++)
        LLVMAddCase(sw, LLVMConstInt(c->t_i32, k, 0), region_pre[k]);
}

/* The whole machine for one set of loop bounds. */
static int emit_machine(emitter *e, LLVMValueRef *bound, LLVMBasicBlockRef exit)
{
    lower_ctx *c = e->c;
    unsigned nr = e->rg->nresume;
    LLVMBasicBlockRef *pre = calloc(nr + 1, sizeof *pre);
    if (!pre) {
        e->oom = true;
        return -1;
    }
    for (unsigned k = 0; k <= nr; k++)
        pre[k] = LLVMAppendBasicBlockInContext(c->llc, e->wg, "region.pre");
    LLVMBuildStore(e->b, LLVMConstInt(c->t_i64, 0, 0), e->rounds);
    LLVMBuildBr(e->b, pre[0]);
    int rc = 0;
    for (unsigned k = 0; k <= nr && !rc; k++) {
        LLVMPositionBuilderAtEnd(e->b, pre[k]);
        bool uniform;
        rc = emit_region(e, k, bound, &uniform);
        if (!rc)
            emit_check(e, bound, pre, exit, uniform);
    }
    free(pre);
    return rc;
}

/* --- the machine of one group, and spvjit_wg_range --------------------------------------------------- */

/* The slots, next[] and the bookkeeping of the machine, at the top of its function. */
static void build_frame(emitter *e)
{
    lower_ctx *c = e->c;
    const jit_slot_plan *p = e->p;
    for (unsigned s = 0; s < p->nslots; s++) {
        const jit_slot *sl = &p->slots[s];
        LLVMTypeRef t = LLVMGetAllocatedType(sl->alloca);
        e->slot_wg[s] = LLVMBuildAlloca(e->b, sl->kind == JIT_SLOT_ITEM ? LLVMArrayType2(t, e->n) : t, "");
        unsigned al = LLVMGetAlignment(sl->alloca);
        LLVMSetAlignment(e->slot_wg[s], sl->kind == JIT_SLOT_ITEM && al < 16 ? 16 : al);
    }
    e->next = LLVMBuildAlloca(e->b, LLVMArrayType2(c->t_i32, e->n), "next");
    e->next_uniform = LLVMBuildAlloca(e->b, c->t_i32, "next.uniform");
    e->rounds = LLVMBuildAlloca(e->b, c->t_i64, "rounds");
    e->diff = LLVMBuildAlloca(e->b, c->t_i32, "diff");
}

static bool build_site_table(emitter *e)
{
    lower_ctx *c = e->c;
    unsigned nr = e->rg->nresume;
    LLVMValueRef *sites = calloc(nr + 1, sizeof *sites);
    if (!sites)
        return false;
    for (unsigned k = 0; k <= nr; k++)
        sites[k] = LLVMConstInt(c->t_i32, e->rg->site[k], 0);
    e->site_table = LLVMAddGlobal(c->mod, LLVMArrayType2(c->t_i32, nr + 1), "spvjit.resume.sites");
    LLVMSetInitializer(e->site_table, LLVMConstArray2(c->t_i32, sites, nr + 1));
    LLVMSetGlobalConstant(e->site_table, 1);
    LLVMSetLinkage(e->site_table, LLVMInternalLinkage);
    free(sites);
    return true;
}

/* i1 machine(ctx, i64 group index, i32 WorkgroupId x, y, z, i32 size x, y, z):
 * the regions of one group, true when it diverged (reported).  `full`: the
 * sizes are the compile-time local size (the parameters are ignored).  A
 * function of its own, not inlined into the loop over groups: LLVM's loop
 * passes would otherwise analyze the machine once more per enclosing loop
 * (+30% compile time), for a call per group saved. */
static int build_machine(emitter *e, bool full, LLVMValueRef *out)
{
    lower_ctx *c = e->c;
    LLVMTypeRef p[8] = { c->t_ptr, c->t_i64, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, full ? "spvjit.group.full" : "spvjit.group.partial",
                                      LLVMFunctionType(c->t_i1, p, 8, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "noinline");
    e->wg = fn;
    LLVMPositionBuilderAtEnd(e->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    build_frame(e);
    jit_group g = { .index = LLVMGetParam(fn, 1) };
    for (unsigned d = 0; d < 3; d++) {
        g.id[d] = LLVMGetParam(fn, 2 + d);
        g.size[d] = full ? LLVMConstInt(c->t_i32, e->ls[d], 0) : LLVMGetParam(fn, 5 + d);
    }
    e->group = &g;
    util_hashmap_clear(&e->hoisted);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, fn, "done");
    int rc = hoist(e);
    rc = rc ? rc : emit_machine(e, g.size, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    LLVMBuildRet(e->b, LLVMConstInt(c->t_i1, 0, 0));
    e->group = NULL;
    *out = fn;
    return rc;
}

typedef struct range_emitter {
    emitter *e;
    LLVMValueRef range, full, partial;
} range_emitter;

/* One group of the range (a jit_group_emit_fn): a call of its machine (the
 * full one when its sizes are the constant compile-time ones); a divergence
 * ends the range. */
static int emit_group(void *user, const jit_group *g)
{
    range_emitter *r = user;
    lower_ctx *c = r->e->c;
    bool full = true;
    for (unsigned d = 0; d < 3; d++)
        full &= LLVMIsAConstantInt(g->size[d]) != NULL;
    LLVMValueRef fn = full ? r->full : r->partial;
    LLVMValueRef a[8] = {
        LLVMGetParam(r->range, 0), g->index, g->id[0], g->id[1], g->id[2], g->size[0], g->size[1], g->size[2]
    };
    LLVMValueRef diverged = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, 8, "diverged");
    LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(c->llc, r->range, "diverged");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c->llc, r->range, "group.done");
    LLVMBuildCondBr(c->b, diverged, stop, next);
    LLVMPositionBuilderAtEnd(c->b, stop);
    LLVMBuildRetVoid(c->b);
    LLVMPositionBuilderAtEnd(c->b, next);
    return 0;
}

static int build_range(emitter *e)
{
    range_emitter r = { .e = e };
    if (!build_site_table(e)) {
        e->oom = true;
        return -1;
    }
    if (build_machine(e, true, &r.full) || (jit_group_sizes_vary(e->c) && build_machine(e, false, &r.partial)))
        return -1;
    r.range = jit_range_function(e->c);
    if (jit_emit_group_range(e->c, r.range, emit_group, &r))
        return -1;
    LLVMBuildRetVoid(e->b);
    return 0;
}

int jit_region_loops_emit(lower_ctx *c, const jit_regions *rg, const jit_uniformity *u, const jit_slot_plan *p,
                          char *msg)
{
    emitter e = { .c = c, .rg = rg, .u = u, .p = p, .item = rg->item, .msg = msg };
    e.n = c->local_size[0] * c->local_size[1] * c->local_size[2];
    memcpy(e.ls, c->local_size, sizeof e.ls);
    util_hashmap_init(&e.hoisted, NULL);
    e.slot_wg = calloc(p->nslots + 1, sizeof *e.slot_wg);
    e.b = LLVMCreateBuilderInContext(c->llc);
    LLVMBuilderRef saved = c->b;
    c->b = e.b; /* jit_ctx_field() builds with c->b */
    int rc = e.slot_wg ? build_range(&e) : -1;
    c->b = saved;
    if (e.oom || !e.slot_wg) {
        snprintf(msg, JIT_REGIONS_MSG, "out of memory");
        rc = -1;
    }
    if (!rc)
        LLVMDeleteFunction(rg->item);
    LLVMDisposeBuilder(e.b);
    util_hashmap_fini(&e.hoisted);
    free(e.slot_wg);
    return rc;
}
