/* jit/region_loops.c — the work-group function of the barrier regions (see region_loops.h). */
#include "region_loops.h"

#include "cfg.h"
#include "group_range.h"
#include "llvm_facts.h"
#include "poll.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sg_marker.h"
#include "simd.h"
#include "util/array.h"

/* One machine: the regions of one group, spvjit.group.full (the compile-time
 * local size) or spvjit.group.partial (a smaller OpenCL group). */
typedef struct machine {
    LLVMValueRef fn;
    bool full;
    jit_group g;           /* its group: parameters (constant sizes when full) */
    LLVMBasicBlockRef top; /* where its code goes on, after frame, hoisting, environment */
    LLVMValueRef *slot_wg; /* [nslots]: the per-item array or the group slot */
    LLVMValueRef next, next_uniform, rounds, diff;
    LLVMValueRef env; /* the values the region functions read */
    /* memory=robust: the full machine runs only groups whose checks the range
     * loop proved (jit/guard_versions.h), so its regions have none of them */
    bool proven;
    LLVMValueRef *rfn, *vfn; /* [nresume + 1]: the region functions, their vector forms */
    uint64_t **at_start;     /* [nresume + 1][nslots]: environment offset + 1 of the value an
                                item restores into a group slot (group_slots_at_start), 0 for none */
    bool *uniform;           /* [nresume + 1]: every item leaves the region the same way */
} machine;

typedef struct emitter {
    lower_ctx *c;
    const jit_regions *rg;
    const jit_uniformity *u;
    const jit_slot_plan *p;
    LLVMBuilderRef b;
    LLVMValueRef item; /* the item function */
    machine *m;        /* the machine being built */
    machine mach[2];   /* full, partial */
    unsigned nmach;
    util_hashmap hoisted; /* hoisted item value → its clone at the top of the machine */
    uint32_t ls[3], n;
    LLVMValueRef site_table;
    /* what the region functions of the machine being built read of it (its environment) */
    util_array env_vals;    /* LLVMValueRef: machine values, one environment field each */
    util_array env_offsets; /* uint64_t: each field's byte offset */
    uint64_t env_size;
    unsigned env_align;
    LLVMValueRef env_param; /* the environment in the region function being built */
    LLVMBuilderRef eb;      /* ... its entry block */
    util_hashmap outer;     /* machine value → its load in the region function being built */
    unsigned width;         /* sub-groups (simd.h), 1: work-item by work-item */
    bool proven;            /* the item's checks have JIT_GROUP_PROVEN's flag (lower_ctx.h) */
    unsigned guard_md;      /* JIT_GUARD_MD */
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
        ns->head[d] = LLVMAppendBasicBlockInContext(c->llc, e->m->fn, names[d]);
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
        LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->llc, e->m->fn, "");
        LLVMBuildCondBr(e->b, more, ns->head[d], after);
        LLVMPositionBuilderAtEnd(e->b, after);
    }
}

static LLVMValueRef item_ptr(emitter *e, LLVMBuilderRef b, LLVMValueRef arr, LLVMTypeRef elem, LLVMValueRef idx)
{
    LLVMValueRef ix[2] = { LLVMConstInt(e->c->t_i32, 0, 0), idx };
    return LLVMBuildInBoundsGEP2(b, LLVMArrayType2(elem, e->n), arr, ix, 2, "");
}

/* --- the environment: values of spvjit_wg the region functions read ------------------------------ */

/* A new environment field for a value of type t (v: the spvjit_wg value
 * stored there once, at the top; NULL for one stored before each region);
 * returns its byte offset. */
static uint64_t env_reserve(emitter *e, LLVMTypeRef t, LLVMValueRef v)
{
    uint64_t al = LLVMABIAlignmentOfType(e->c->td, t), off = (e->env_size + al - 1) / al * al;
    if (!UTIL_ARRAY_PUSH(&e->env_vals, LLVMValueRef, v) || !UTIL_ARRAY_PUSH(&e->env_offsets, uint64_t, off))
        e->oom = true;
    e->env_size = off + LLVMABISizeOfType(e->c->td, t);
    if (al > e->env_align)
        e->env_align = (unsigned)al;
    return off;
}

static LLVMValueRef env_at(emitter *e, LLVMBuilderRef b, LLVMValueRef env, uint64_t off)
{
    return LLVMBuildGEP2(b, e->c->t_i8, env, (LLVMValueRef[]){ LLVMConstInt(e->c->t_i64, off, 0) }, 1, "");
}

/* The region function's copy of spvjit_wg value v: a load from the environment. */
static LLVMValueRef outside(emitter *e, LLVMValueRef v)
{
    LLVMValueRef m = util_ptrmap_get(&e->outer, v);
    if (m)
        return m;
    LLVMTypeRef t = LLVMTypeOf(v);
    m = LLVMBuildLoad2(e->eb, t, env_at(e, e->eb, e->env_param, env_reserve(e, t, v)), "");
    /* what is known of its low bits (a group's first index, a pointer's
     * alignment: the vector code's work-group memory accesses) stays known */
    unsigned tz = LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? jit_simd_known_tz(v) : 0;
    uint64_t align = LLVMGetTypeKind(t) == LLVMPointerTypeKind ? jit_simd_known_align(v) : 1;
    if (tz && tz < LLVMGetIntTypeWidth(t))
        m = LLVMBuildAnd(e->eb, m, LLVMConstInt(t, ~0ull << tz, 0), "");
    if (align > 1 && align <= 1ull << 32)
        jit_set_align(e->c, m, align);
    put(e, &e->outer, v, m);
    return m;
}

/* Stores the environment's fields at the builder (the top of the machine,
 * after the hoisted values). */
static void fill_env(emitter *e)
{
    lower_ctx *c = e->c;
    LLVMTypeRef t = LLVMArrayType2(c->t_i8, e->env_size ? e->env_size : 1);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c->llc);
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(e->m->fn)));
    e->m->env = LLVMBuildAlloca(b, LLVMStructTypeInContext(c->llc, &t, 1, 0), "env");
    LLVMSetAlignment(e->m->env, e->env_align);
    LLVMDisposeBuilder(b);
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&e->env_vals, LLVMValueRef); i++) {
        uint64_t off = UTIL_ARRAY_AT(&e->env_offsets, uint64_t, i);
        LLVMValueRef v = UTIL_ARRAY_AT(&e->env_vals, LLVMValueRef, i);
        if (v)
            LLVMBuildStore(e->b, v, env_at(e, e->b, e->m->env, off));
    }
}

/* --- cloning the item function's code ------------------------------------------------------------ */

/* The clone of item-function value v in the current region (map), v itself
 * for constants; hoisted values come from spvjit_wg (through the environment
 * in a region function). */
static LLVMValueRef mapped(emitter *e, const util_hashmap *map, LLVMValueRef v)
{
    if (LLVMIsABasicBlock(v))
        return v;
    if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
        return v;
    LLVMValueRef m = util_ptrmap_get(map, v);
    if (m)
        return m;
    m = util_ptrmap_get(&e->hoisted, v);
    return m && e->env_param ? outside(e, m) : m;
}

/* Recomputes item-function value v at the builder (JIT_SLOT_REMAT); memo holds
 * what this recomputation already built. */
static LLVMValueRef remat(emitter *e, const util_hashmap *map, util_hashmap *memo, LLVMValueRef v)
{
    if (!LLVMIsAInstruction(v) || util_ptrmap_get(&e->hoisted, v))
        return mapped(e, map, v);
    LLVMValueRef m = util_ptrmap_get(memo, v);
    if (m)
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

/* Computes the hoisted values once per group, at the top of its machine
 * (the item function's ctx, the group's size and WorkgroupId are the
 * machine's). */
static int hoist(emitter *e)
{
    util_hashmap map;
    util_hashmap_init(&map, NULL);
    put(e, &map, e->rg->ctx, LLVMGetParam(e->m->fn, 0));
    for (unsigned d = 0; d < 3; d++) {
        put(e, &map, LLVMGetParam(e->item, 4 + d), e->m->g.size[d]);
        put(e, &map, LLVMGetParam(e->item, 7 + d), e->m->g.id[d]);
    }
    int rc = 0;
    for (LLVMValueRef in = LLVMGetFirstInstruction(e->rg->cfg.blocks[0]); in && !rc; in = LLVMGetNextInstruction(in)) {
        if (!jit_slot_hoisted(e->p, in))
            continue;
        LLVMValueRef stored = jit_slot_stored_once(e->p, in);
        if (stored) { /* a reload of a value stored once before it: that value */
            LLVMValueRef m = mapped(e, &map, stored);
            if (!m)
                rc = internal_error(e, "a reloaded value is not hoisted");
            put(e, &map, in, m);
            put(e, &e->hoisted, in, m);
            continue;
        }
        if (jit_is_group_proven(in)) { /* the proof's flag: the machine's (region_loops.c's clones) */
            LLVMValueRef flag = LLVMConstInt(e->c->t_i1, e->m->proven, 0);
            put(e, &map, in, flag);
            put(e, &e->hoisted, in, flag);
            continue;
        }
        LLVMValueRef cl = LLVMInstructionClone(in);
        LLVMInsertIntoBuilder(e->b, cl);
        put(e, &map, in, cl);
        rc = remap_operands(e, &map, cl);
        put(e, &e->hoisted, in, cl);
    }
    util_hashmap_fini(&map);
    return rc;
}

/* --- one region as a function of one work-item --------------------------------------------------- */

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

/* Group slots live into region k and stored in it: every item starts from
 * the value it had when the region began, not the one the previous item left
 * (all items store the same values, so the last one's is right).  restore[s]
 * is set for each. */
static void group_slots_at_start(emitter *e, unsigned k, const unsigned *list, unsigned nlist, bool *restore)
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
    for (unsigned s = 0; s < p->nslots; s++)
        restore[s] =
            p->slots[s].kind == JIT_SLOT_GROUP && stored[s] && k > 0 && jit_slot_live_into(p, e->rg->start[k], s);
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

/* Clones region blocks `list` into the region function; a barrier or a return
 * returns where the item stopped (the resume id, 0 for a return).  Operands
 * are remapped once every clone exists. */
static int clone_region(emitter *e, const unsigned *list, unsigned nlist, util_hashmap *map)
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
            } else if (e->proven && LLVMGetMetadata(in, e->guard_md)) {
                /* "proven or in bounds": true in the full machine (the range loop
                 * proved it), else the compare */
                put(e, map, in, e->m->proven ? LLVMConstInt(c->t_i1, 1, 0) : mapped(e, map, LLVMGetOperand(in, 1)));
            } else if (jit_is_group_proven(in)) {
                put(e, map, in, LLVMConstInt(c->t_i1, e->m->proven, 0));
            } else if (op == LLVMRet || (rg->barrier[b] && op == LLVMBr)) {
                LLVMBuildRet(e->b, LLVMConstInt(c->t_i32, op == LLVMRet ? 0 : rg->resume[b], 0));
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

enum { RF_CTX, RF_LX, RF_LY, RF_LZ, RF_IDX, RF_ENV, RF_SX, RF_SY, RF_NPARAMS };

/* Region k as i32 spvjit.region.k(ctx, lx, ly, lz, idx, env, sx, sy): one
 * work-item's run from the region's start to its barrier or return, which it
 * returns.  idx is the item's index in the per-item arrays; sx, sy the
 * group's width and height (read by the sub-group wrapper, simd.h). */
static int build_region_fn(emitter *e, unsigned k)
{
    lower_ctx *c = e->c;
    const jit_regions *rg = e->rg;
    const jit_slot_plan *p = e->p;
    unsigned nb = rg->cfg.nblocks;
    unsigned *list = calloc(nb + 1, sizeof *list);
    bool *in_region = calloc(nb + 1, sizeof *in_region);
    bool *restore = calloc(p->nslots + 1, sizeof *restore);
    uint64_t *at_start = e->m->at_start[k] = calloc(p->nslots + 1, sizeof *at_start);
    if (!list || !in_region || !restore || !at_start) {
        free(list);
        free(in_region);
        free(restore);
        e->oom = true;
        return -1;
    }
    unsigned nlist = jit_regions_blocks(rg, k, list, in_region);
    e->m->uniform[k] = uniform_exit(e, list, nlist);
    group_slots_at_start(e, k, list, nlist, restore);

    LLVMTypeRef pt[RF_NPARAMS] = { c->t_ptr, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_ptr, c->t_i32, c->t_i32 };
    char name[32];
    snprintf(name, sizeof name, "spvjit.region.%u%s", k, e->m->full ? "" : ".partial");
    LLVMValueRef fn = LLVMAddFunction(c->mod, name, LLVMFunctionType(c->t_i32, pt, RF_NPARAMS, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->llc, nounwind, 0));
    e->m->rfn[k] = fn;
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->llc, fn, "entry");
    LLVMPositionBuilderAtEnd(e->eb, entry);
    e->env_param = LLVMGetParam(fn, RF_ENV);
    util_hashmap_clear(&e->outer);

    util_hashmap map;
    util_hashmap_init(&map, NULL);
    for (unsigned d = 0; d < 4; d++) /* ctx, lx, ly, lz */
        put(e, &map, LLVMGetParam(e->item, d), LLVMGetParam(fn, d));
    for (unsigned d = 0; d < 3; d++) { /* the group's size (constants in a full machine) and WorkgroupId */
        LLVMValueRef size = e->m->g.size[d];
        put(e, &map, LLVMGetParam(e->item, 4 + d), LLVMIsAConstant(size) ? size : outside(e, size));
        put(e, &map, LLVMGetParam(e->item, 7 + d), outside(e, e->m->g.id[d]));
    }
    for (unsigned s = 0; s < p->nslots; s++) {
        const jit_slot *sl = &p->slots[s];
        LLVMTypeRef t = LLVMGetAllocatedType(sl->alloca);
        LLVMValueRef ptr;
        if (sl->kind == JIT_SLOT_ITEM) {
            ptr = item_ptr(e, e->eb, outside(e, e->m->slot_wg[s]), t, LLVMGetParam(fn, RF_IDX));
        } else if (sl->kind == JIT_SLOT_SHARED) { /* each item writes it before it reads it */
            ptr = LLVMBuildAlloca(e->eb, t, "");
            LLVMSetAlignment(ptr, LLVMGetAlignment(sl->alloca));
        } else {
            ptr = outside(e, e->m->slot_wg[s]);
        }
        put(e, &map, sl->alloca, ptr);
        if (restore[s]) {
            uint64_t off = env_reserve(e, t, NULL);
            at_start[s] = off + 1;
            LLVMBuildStore(e->eb, LLVMBuildLoad2(e->eb, t, env_at(e, e->eb, e->env_param, off), ""), ptr);
        }
    }
    for (unsigned w = 0; w < nlist; w++)
        put(e, &map, (LLVMValueRef)rg->cfg.blocks[list[w]],
            (LLVMValueRef)LLVMAppendBasicBlockInContext(c->llc, fn, w ? "" : "region"));
    int rc = clone_region(e, list, nlist, &map);
    LLVMPositionBuilderAtEnd(e->eb, entry);
    LLVMBuildBr(e->eb, util_ptrmap_get(&map, rg->cfg.blocks[rg->start[k]]));
    e->env_param = NULL;
    util_hashmap_fini(&map);
    free(list);
    free(in_region);
    free(restore);
    return rc;
}

/* The values of group slots that items of region k restore (group_slots_at_start)
 * go to their environment fields before the region's loop. */
static void save_at_start(emitter *e, unsigned k)
{
    for (unsigned s = 0; s < e->p->nslots; s++) {
        uint64_t at = e->m->at_start[k][s];
        if (!at)
            continue;
        uint64_t off = at - 1;
        LLVMTypeRef t = LLVMGetAllocatedType(e->p->slots[s].alloca);
        LLVMBuildStore(e->b, LLVMBuildLoad2(e->b, t, e->m->slot_wg[s], ""), env_at(e, e->b, e->m->env, off));
    }
}
/* After a region: every item must have stopped at the same barrier (or returned).
 * Divergence calls ctx->report_divergence and returns 1 (the range stops);
 * otherwise dispatches.
 * A region with a uniform exit needs no check: next_uniform says where all went. */
static void emit_check(emitter *e, LLVMValueRef *bound, LLVMBasicBlockRef *region_pre, LLVMBasicBlockRef exit,
                       bool uniform)
{
    lower_ctx *c = e->c;
    LLVMValueRef ctx = LLVMGetParam(e->m->fn, 0);
    LLVMValueRef first = LLVMBuildLoad2(e->b, c->t_i32, uniform ? e->m->next_uniform : e->m->next, "first");
    if (!uniform) {
        LLVMBuildStore(e->b, LLVMConstInt(c->t_i32, 0, 0), e->m->diff);
        nest ns;
        open_nest(e, &ns, bound);
        /* diff |= next[i] ^ first: no early exit, so the loop vectorizes */
        LLVMValueRef v = LLVMBuildLoad2(e->b, c->t_i32, item_ptr(e, e->b, e->m->next, c->t_i32, ns.idx), "");
        LLVMValueRef acc =
            LLVMBuildOr(e->b, LLVMBuildLoad2(e->b, c->t_i32, e->m->diff, ""), LLVMBuildXor(e->b, v, first, ""), "");
        LLVMBuildStore(e->b, acc, e->m->diff);
        close_nest(e, &ns);
        LLVMBasicBlockRef diverged = LLVMAppendBasicBlockInContext(c->llc, e->m->fn, "diverged");
        LLVMBasicBlockRef same = LLVMAppendBasicBlockInContext(c->llc, e->m->fn, "same");
        LLVMValueRef any = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildLoad2(e->b, c->t_i32, e->m->diff, ""),
                                         LLVMConstInt(c->t_i32, 0, 0), "");
        LLVMBuildCondBr(e->b, any, diverged, same);

        LLVMPositionBuilderAtEnd(e->b, diverged);
        LLVMTypeRef params[5] = { c->t_ptr, c->t_i64, c->t_ptr, c->t_ptr, c->t_i64 };
        LLVMTypeRef ft = LLVMFunctionType(c->t_void, params, 5, 0);
        LLVMValueRef fn = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, report_divergence), c->t_ptr);
        LLVMValueRef args[5] = { ctx, e->m->g.index, e->m->next, e->site_table,
                                 LLVMBuildLoad2(e->b, c->t_i64, e->m->rounds, "") };
        LLVMBuildCall2(e->b, ft, fn, args, 5, "");
        LLVMBuildRet(e->b, LLVMConstInt(c->t_i8, 1, 0));
        LLVMPositionBuilderAtEnd(e->b, same);
    }
    LLVMValueRef rounds = LLVMBuildLoad2(e->b, c->t_i64, e->m->rounds, "");
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, rounds, LLVMConstInt(c->t_i64, 1, 0), ""), e->m->rounds);
    LLVMValueRef sw = LLVMBuildSwitch(e->b, first, exit, e->rg->nresume);
    for (unsigned k = 1; k <= e->rg->nresume; k++)
        LLVMAddCase(sw, LLVMConstInt(c->t_i32, k, 0), region_pre[k]);
}

/* Region k for every item: a loop nest calling its function once per item. */
static void emit_items(emitter *e, unsigned k, LLVMValueRef *bound)
{
    lower_ctx *c = e->c;
    nest ns;
    open_nest(e, &ns, bound);
    LLVMValueRef args[RF_NPARAMS] = {
        LLVMGetParam(e->m->fn, 0), ns.iv[2], ns.iv[1], ns.iv[0], ns.idx, e->m->env, bound[0], bound[1]
    };
    LLVMValueRef rf = e->m->rfn[k];
    LLVMValueRef r = LLVMBuildCall2(e->b, LLVMGlobalGetValueType(rf), rf, args, RF_NPARAMS, "next");
    LLVMBuildStore(e->b, r, e->m->uniform[k] ? e->m->next_uniform : item_ptr(e, e->b, e->m->next, c->t_i32, ns.idx));
    close_nest(e, &ns);
}

typedef struct sg_store {
    emitter *e;
    unsigned k;
    LLVMValueRef *bound; /* run-time bounds: next[] in the compiled layout */
} sg_store;

/* After a sub-group's run: where its items stopped, into next[]. */
static void store_sg_next(void *user, LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef live, LLVMValueRef r)
{
    sg_store *st = user;
    emitter *e = st->e;
    lower_ctx *c = e->c;
    if (e->m->uniform[st->k]) { /* lane 0 is always live */
        LLVMBuildStore(b, LLVMBuildExtractElement(b, r, LLVMConstInt(c->t_i32, 0, 0), ""), e->m->next_uniform);
        return;
    }
    if (!st->bound) { /* the arrays are padded to whole sub-groups */
        LLVMSetAlignment(LLVMBuildStore(b, r, item_ptr(e, b, e->m->next, c->t_i32, base)), 4);
        return;
    }
    /* a smaller group: item i of the run is (x, y, z) of its bounds, at x + X * (y + Y * z) */
    unsigned w = e->width;
    LLVMValueRef lanes[JIT_SIMD_MAX_WIDTH];
    for (unsigned i = 0; i < w; i++)
        lanes[i] = LLVMConstInt(c->t_i32, i, 0);
    LLVMTypeRef vt = LLVMVectorType(c->t_i32, w);
    LLVMValueRef bx = jit_splat(c, st->bound[0], vt), by = jit_splat(c, st->bound[1], vt);
    LLVMValueRef i = LLVMBuildAdd(b, jit_splat(c, base, vt), LLVMConstVector(lanes, w), "");
    LLVMValueRef x = LLVMBuildURem(b, i, bx, ""), t = LLVMBuildUDiv(b, i, bx, "");
    LLVMValueRef y = LLVMBuildURem(b, t, by, ""), z = LLVMBuildUDiv(b, t, by, "");
    LLVMValueRef X = jit_splat(c, LLVMConstInt(c->t_i32, e->ls[0], 0), vt);
    LLVMValueRef Y = jit_splat(c, LLVMConstInt(c->t_i32, e->ls[1], 0), vt);
    LLVMValueRef at = LLVMBuildAdd(b, x, LLVMBuildMul(b, X, LLVMBuildAdd(b, y, LLVMBuildMul(b, Y, z, ""), ""), ""), "");
    LLVMValueRef ptrs = LLVMBuildGEP2(b, c->t_i32, e->m->next, &at, 1, "");
    LLVMTypeRef ty[2] = { vt, LLVMTypeOf(ptrs) };
    LLVMValueRef a[4] = { r, ptrs, LLVMConstInt(c->t_i32, 4, 0), live };
    jit_intrinsic(c, "llvm.masked.scatter", ty, 2, a, 4);
}

/* How the loop over a region's sub-groups unrolls: the llvm.loop hint it
 * gets, or NULL to leave it to LLVM.
 *
 * A small region whose vector function is straight-line code (no loop)
 * that branches apart by lane (JIT_SIMD_DIVERGENT) and loads work-group
 * memory in whole vectors (JIT_WG_MD on a vector load: simd_memory.c) runs
 * its sub-groups unrolled.  Each copy then decides a test such as
 * `lid < stride` in a tree reduction on its own, the misalignment of its
 * loads and the lanes they pick fold to constants, and no loop runs over the
 * sub-groups the test leaves idle: at one thread scan runs 1.2x and reduce
 * 1.2x faster, for 15 to 20% more compile time; their regions have 106 to
 * 321 instructions (as built, before any pass).  mm's tile regions (399 to
 * 487) gain only the loop's overhead, for up to 3x the compile time;
 * sgreduce's sub-group sums, without whole-vector accesses, a few percent
 * for 30%.
 *
 * A region that stores to work-group memory and does not load it has
 * copies that share nothing, and whole-vector stores need no alignment.
 * Small ones (reduce's and scan's first, `s[lid] = gid < n ? src[gid] : 0`)
 * are not unrolled by the rule above: unrolled, they ran no faster and took
 * a fifth to a quarter of the optimized build; LLVM may still unroll them a
 * little, which pays a few percent in cache (sgreduce's sub-group sums: 6-8%
 * at one thread when kept rolled).  Large ones gain only the loop's
 * overhead, and their loop stays: LLVM's own full unroll of mm's 8 tile
 * copies at block size 8 (460 to 490 instructions each) ran no faster and
 * took half of its optimized build. */
#define UNROLL_REGION_INSTS 360   /* the vector function's, as built */
#define UNROLL_REGION_BUDGET 6400 /* its copies' in all */

static const char *subgroup_unroll(LLVMValueRef vf, unsigned subgroups, bool dyn)
{
    LLVMContextRef llc = LLVMGetTypeContext(LLVMTypeOf(vf));
    unsigned n = 0, kind = LLVMGetMDKindIDInContext(llc, JIT_WG_MD, strlen(JIT_WG_MD));
    bool loads = false, vector_loads = false, stores = false;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(vf); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i), n++) {
            if (!LLVMGetMetadata(i, kind))
                continue;
            bool load = LLVMIsALoadInst(i) != NULL;
            loads |= load;
            vector_loads |= load && LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMVectorTypeKind;
            stores |= LLVMIsAStoreInst(i) != NULL;
        }
    if (stores && !loads && n > UNROLL_REGION_INSTS)
        return "llvm.loop.unroll.disable";
    if (dyn || !vector_loads || n > UNROLL_REGION_INSTS || (uint64_t)n * subgroups > UNROLL_REGION_BUDGET ||
        !LLVMGetStringAttributeAtIndex(vf, LLVMAttributeFunctionIndex, JIT_SIMD_DIVERGENT,
                                       (unsigned)strlen(JIT_SIMD_DIVERGENT)))
        return NULL;
    jit_cfg g;
    bool straight = !jit_cfg_build(&g, vf) && !g.nloops && !g.irreducible;
    jit_cfg_free(&g);
    return straight ? "llvm.loop.unroll.full" : NULL;
}

/* Region k by sub-groups: a loop calling its vector function once per sub-group. */
static void emit_subgroups(emitter *e, unsigned k, LLVMValueRef *bound, bool dyn)
{
    lower_ctx *c = e->c;
    LLVMValueRef count = dyn ? LLVMBuildMul(e->b, LLVMBuildMul(e->b, bound[0], bound[1], ""), bound[2], "")
                             : LLVMConstInt(c->t_i32, e->ls[0] * e->ls[1] * e->ls[2], 0);
    LLVMValueRef args[3] = { e->m->env, bound[0], bound[1] };
    sg_store st = { e, k, dyn ? bound : NULL };
    jit_simd_loop l = { .vf = e->m->vfn[k],
                        .ctx = LLVMGetParam(e->m->fn, 0),
                        .args = args,
                        .nargs = 3,
                        .count = count,
                        .width = e->width,
                        .each = store_sg_next,
                        .user = &st };
    LLVMBuilderRef saved = c->b;
    c->b = e->b; /* jit_splat / jit_intrinsic build with c->b */
    LLVMValueRef back = jit_simd_emit_loop(&l, e->b);
    const char *hint =
        back ? subgroup_unroll(l.vf, (e->ls[0] * e->ls[1] * e->ls[2] + e->width - 1) / e->width, dyn) : NULL;
    if (hint)
        jit_loop_hint(c, back, hint, NULL);
    c->b = saved;
}

/* The whole machine for one set of loop bounds (dyn: ctx->local_size). */
static int emit_machine(emitter *e, LLVMValueRef *bound, bool dyn, LLVMBasicBlockRef exit)
{
    lower_ctx *c = e->c;
    unsigned nr = e->rg->nresume;
    LLVMBasicBlockRef *pre = calloc(nr + 1, sizeof *pre);
    if (!pre) {
        e->oom = true;
        return -1;
    }
    for (unsigned k = 0; k <= nr; k++)
        pre[k] = LLVMAppendBasicBlockInContext(c->llc, e->m->fn, "region.pre");
    LLVMBuildStore(e->b, LLVMConstInt(c->t_i64, 0, 0), e->m->rounds);
    LLVMBuildBr(e->b, pre[0]);
    for (unsigned k = 0; k <= nr; k++) {
        LLVMPositionBuilderAtEnd(e->b, pre[k]);
        save_at_start(e, k);
        if (e->m->vfn[k]) /* else width 1, or work-item by work-item (vectorize_regions) */
            emit_subgroups(e, k, bound, dyn);
        else
            emit_items(e, k, bound);
        emit_check(e, bound, pre, exit, e->m->uniform[k]);
    }
    free(pre);
    return e->oom ? -1 : 0;
}

/* --- the machines and spvjit_wg_range ---------------------------------------------------------------- */

/* The slots, next[] and the bookkeeping of a machine, at the top of its function. */
static void build_frame(emitter *e)
{
    lower_ctx *c = e->c;
    const jit_slot_plan *p = e->p;
    for (unsigned s = 0; s < p->nslots; s++) {
        const jit_slot *sl = &p->slots[s];
        LLVMTypeRef t = LLVMGetAllocatedType(sl->alloca);
        if (sl->kind == JIT_SLOT_SHARED)
            continue; /* in each region function */
        e->m->slot_wg[s] = LLVMBuildAlloca(e->b, sl->kind == JIT_SLOT_ITEM ? LLVMArrayType2(t, e->n) : t, "");
        unsigned al = LLVMGetAlignment(sl->alloca);
        LLVMSetAlignment(e->m->slot_wg[s], sl->kind == JIT_SLOT_ITEM && al < 16 ? 16 : al);
    }
    e->m->next = LLVMBuildAlloca(e->b, LLVMArrayType2(c->t_i32, e->n), "next");
    e->m->next_uniform = LLVMBuildAlloca(e->b, c->t_i32, "next.uniform");
    e->m->rounds = LLVMBuildAlloca(e->b, c->t_i64, "rounds");
    e->m->diff = LLVMBuildAlloca(e->b, c->t_i32, "diff");
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

static bool alloc_machine(emitter *e, machine *m)
{
    unsigned nr = e->rg->nresume + 1;
    m->slot_wg = calloc(e->p->nslots + 1, sizeof *m->slot_wg);
    m->uniform = calloc(nr, sizeof *m->uniform);
    m->rfn = calloc(nr, sizeof *m->rfn);
    m->vfn = calloc(nr, sizeof *m->vfn);
    m->at_start = calloc(nr, sizeof *m->at_start);
    return m->slot_wg && m->uniform && m->rfn && m->vfn && m->at_start;
}

static void free_machine(emitter *e, machine *m)
{
    for (unsigned k = 0; k <= e->rg->nresume && m->at_start; k++)
        free(m->at_start[k]);
    free(m->at_start);
    free(m->rfn);
    free(m->vfn);
    free(m->slot_wg);
    free(m->uniform);
}

/* i8 machine(ctx, i64 group index, i32 WorkgroupId x, y, z, i32 size x, y, z),
 * 1 where the group diverged (an i8: FastISel cannot return an i1), up to
 * its code proper: the frame, the hoisted values, the region functions and
 * the environment they read.  `full`: the sizes are the compile-time
 * local size, and not parameters (FastISel takes at most six integer
 * arguments on x86-64; with eight it hands the entry block to
 * SelectionDAG).  A function of its own, not
 * inlined into the loop over groups: LLVM's loop passes would otherwise
 * analyze the machine once more per enclosing loop (+30% compile time), for
 * a call per group saved.  The partial machine is compiled for size: only
 * the last group of a dimension runs it, and the loop vectorizer and
 * unroller had made mm.cl's six times the full one's size (1492 IR
 * instructions against 262, its optimized build 0.51x as long without). */
static int begin_machine(emitter *e, machine *m, bool full)
{
    lower_ctx *c = e->c;
    LLVMTypeRef pt[8] = { c->t_ptr, c->t_i64, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, full ? JIT_SYM_GROUP_PREFIX "full" : JIT_SYM_GROUP_PREFIX "partial",
                                      LLVMFunctionType(c->t_i8, pt, full ? 5 : 8, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "noinline");
    if (!full)
        jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "optsize");
    m->fn = fn;
    m->full = full;
    m->g.index = LLVMGetParam(fn, 1);
    for (unsigned d = 0; d < 3; d++) {
        m->g.id[d] = LLVMGetParam(fn, 2 + d);
        m->g.size[d] = full ? LLVMConstInt(c->t_i32, e->ls[d], 0) : LLVMGetParam(fn, 5 + d);
    }
    e->m = m;
    LLVMPositionBuilderAtEnd(e->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    jit_stop_field(e->b, LLVMGetParam(fn, 0)); /* for the polls (poll.h) */
    build_frame(e);
    util_hashmap_clear(&e->hoisted);
    if (hoist(e))
        return -1;
    m->proven = full && e->proven;
    m->top = LLVMGetInsertBlock(e->b);
    util_array_fini(&e->env_vals);
    util_array_fini(&e->env_offsets);
    e->env_size = 0;
    e->env_align = 8;
    for (unsigned k = 0; k <= e->rg->nresume; k++)
        if (build_region_fn(e, k))
            return -1;
    LLVMPositionBuilderAtEnd(e->b, m->top);
    fill_env(e);
    m->top = LLVMGetInsertBlock(e->b);
    return e->oom ? -1 : 0;
}

/* Region function fn run work-item by work-item in sub-groups of e->width:
 * its markers computed from the item's linear local index (x + X * (y + Y *
 * z) over the group's actual size, the order sub-groups are made in). */
static void lower_per_item(emitter *e, LLVMValueRef fn)
{
    LLVMBuilderRef b = e->eb;
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
    LLVMValueRef yz = LLVMBuildAdd(b, LLVMGetParam(fn, RF_LY),
                                   LLVMBuildMul(b, LLVMGetParam(fn, RF_SY), LLVMGetParam(fn, RF_LZ), ""), "");
    LLVMValueRef index = LLVMBuildAdd(b, LLVMGetParam(fn, RF_LX), LLVMBuildMul(b, LLVMGetParam(fn, RF_SX), yz, ""), "");
    jit_sg_lower_per_item(fn, e->width, index);
}

/* The vector functions of the regions of every machine; e->width 1 and
 * simd_why filled when the vectorizer declines.  A region whose markers each
 * work-item can compute alone (jit_sg_per_item) needs no lanes: the quick
 * tier runs it one work-item at a time (sgreduce's sum of the sub-group
 * sums: its quick load and build 0.88x as long, alternating in one
 * process), and so does the optimized tier where the vectorizer declines
 * it (a region without markers is one of these; when every region of a
 * kernel that cannot observe its sub-groups is declined, its work-items run
 * one at a time, sub-groups of 1, as before).  In a smaller OpenCL group
 * (the partial machine) the optimized tier runs them one at a time too: as
 * vectors, the lanes' local ids from a run-time size, they were gathers and
 * scatters that cost more to compile than the rest of the kernel (mm.cl's
 * optimized build 0.69x as long without them) and ran slower than the items
 * one by one.  The other regions decide: both tiers vectorize them, so
 * their sub-group sizes agree. */
static int vectorize_regions(emitter *e, char *simd_why)
{
    lower_ctx *c = e->c;
    unsigned nr = e->rg->nresume + 1, n = 0;
    jit_simd_items_req *req = calloc(2 * nr, sizeof *req);
    LLVMValueRef *out = calloc(2 * nr, sizeof *out);
    LLVMValueRef **vfn = calloc(2 * nr, sizeof *vfn); /* where out[j] goes */
    char(*names)[48] = calloc(2 * nr, sizeof *names);
    if (!req || !out || !vfn || !names) {
        free(req);
        free(out);
        free(vfn);
        free(names);
        e->oom = true;
        return -1;
    }
    for (unsigned i = 0; i < e->nmach; i++)
        for (unsigned k = 0; k < nr; k++) {
            machine *m = &e->mach[i];
            bool per_item = jit_sg_per_item(m->rfn[k]);
            if (per_item && (c->quick || !m->full))
                continue;
            snprintf(names[n], sizeof names[n], "spvjit.region.%u%s.simd", k, m->full ? "" : ".partial");
            req[n] = (jit_simd_items_req){ .item = m->rfn[k],
                                           .width = e->width,
                                           .size = m->full ? e->ls : NULL,
                                           .size_param = RF_SX,
                                           .compiled = e->ls,
                                           .name = names[n],
                                           .td = c->td,
                                           .optional = per_item };
            vfn[n++] = &m->vfn[k];
        }
    char msg[JIT_SIMD_MSG];
    LLVMValueRef as_is[3] = { e->item, e->mach[0].fn, e->mach[1].fn };
    int rc =
        n ? jit_simd_items(req, n, as_is, 1 + e->nmach, c->quick ? JIT_SIMD_PREP_QUICK : JIT_SIMD_PREP_FULL, out, msg)
          : 0;
    unsigned made = 0;
    for (unsigned j = 0; rc == 0 && j < n; j++)
        made += out[j] != NULL;
    if (rc == 0 && n && !made && !jit_sg_any_marker(c->mod))
        rc = 1; /* every region declined, and no code observes the sub-groups: msg says why */
    if (rc > 0) {
        snprintf(simd_why, JIT_SIMD_MSG, "%s", msg);
        e->width = 1;
        rc = 0;
    } else if (rc < 0) {
        snprintf(e->msg, JIT_REGIONS_MSG, "%s", msg);
    } else {
        for (unsigned j = 0; j < n; j++)
            *vfn[j] = out[j];
        unsigned scalar = 0;
        for (unsigned i = 0; i < e->nmach; i++)
            for (unsigned k = 0; k < nr; k++)
                if (!e->mach[i].vfn[k]) {
                    lower_per_item(e, e->mach[i].rfn[k]);
                    scalar += i == 0;
                }
        if (scalar)
            snprintf(simd_why, JIT_SIMD_MSG, "%u of %u region%s work-item by work-item (no operation across lanes)",
                     scalar, nr, nr == 1 ? "" : "s");
    }
    free(req);
    free(out);
    free(vfn);
    free(names);
    return rc;
}

/* The machine's code proper: the regions, then false (no divergence). */
static int finish_machine(emitter *e, machine *m)
{
    lower_ctx *c = e->c;
    e->m = m;
    /* the region functions run inlined; their vector forms are already always-inline */
    unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    for (unsigned k = 0; k <= e->rg->nresume; k++)
        LLVMAddAttributeAtIndex(m->rfn[k], LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->llc, inl, 0));
    LLVMPositionBuilderAtEnd(e->b, m->top);
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, m->fn, "done");
    int rc = emit_machine(e, m->g.size, !m->full, done);
    LLVMPositionBuilderAtEnd(e->b, done);
    LLVMBuildRet(e->b, LLVMConstInt(c->t_i8, 0, 0));
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
    LLVMValueRef diverged =
        LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, full ? 5 : 8, ""),
                      LLVMConstInt(c->t_i8, 0, 0), "diverged");
    LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(c->llc, r->range, "diverged");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c->llc, r->range, "group.done");
    LLVMBuildCondBr(c->b, diverged, stop, next);
    LLVMPositionBuilderAtEnd(c->b, stop);
    LLVMBuildRet(c->b, LLVMGetParam(r->range, 2)); /* the executor reads the divergence (jit/abi.h) */
    LLVMPositionBuilderAtEnd(c->b, next);
    return 0;
}

static int build_range(emitter *e, char *simd_why)
{
    if (!build_site_table(e)) {
        e->oom = true;
        return -1;
    }
    e->nmach = jit_group_sizes_vary(e->c) ? 2 : 1;
    for (unsigned i = 0; i < e->nmach; i++)
        if (!alloc_machine(e, &e->mach[i])) {
            e->oom = true;
            return -1;
        }
    for (unsigned i = 0; i < e->nmach; i++)
        if (begin_machine(e, &e->mach[i], i == 0))
            return -1;
    if (e->width > 1) {
        /* the machines are unfinished (a return for now), the item function still read */
        LLVMValueRef stop[2];
        for (unsigned i = 0; i < e->nmach; i++) {
            LLVMPositionBuilderAtEnd(e->b, e->mach[i].top);
            stop[i] = LLVMBuildRet(e->b, LLVMConstInt(e->c->t_i8, 0, 0));
        }
        int rc = vectorize_regions(e, simd_why);
        for (unsigned i = 0; i < e->nmach; i++)
            LLVMInstructionEraseFromParent(stop[i]);
        if (rc)
            return -1;
    }
    for (unsigned i = 0; i < e->nmach; i++)
        if (finish_machine(e, &e->mach[i]))
            return -1;
    range_emitter r = { .e = e, .full = e->mach[0].fn, .partial = e->nmach > 1 ? e->mach[1].fn : NULL };
    r.range = jit_range_function(e->c);
    return jit_emit_group_range(e->c, r.range, emit_group, &r, LLVMGetNamedFunction(e->c->mod, JIT_SYM_PROOF), 0);
}

int jit_region_loops_emit(lower_ctx *c, const jit_regions *rg, const jit_uniformity *u, const jit_slot_plan *p,
                          unsigned *width, char *simd_why, char *msg)
{
    emitter e = { .c = c, .rg = rg, .u = u, .p = p, .item = rg->item, .msg = msg, .width = *width };
    e.guard_md = LLVMGetMDKindIDInContext(c->llc, JIT_GUARD_MD, strlen(JIT_GUARD_MD));
    for (LLVMValueRef i = LLVMGetFirstInstruction(rg->cfg.blocks[0]); i && !e.proven; i = LLVMGetNextInstruction(i))
        e.proven = jit_is_group_proven(i);
    uint32_t n = c->local_size[0] * c->local_size[1] * c->local_size[2];
    e.n = (n + e.width - 1) / e.width * e.width; /* whole sub-groups */
    e.env_align = 8;
    memcpy(e.ls, c->local_size, sizeof e.ls);
    util_hashmap_init(&e.hoisted, NULL);
    util_hashmap_init(&e.outer, NULL);
    e.b = LLVMCreateBuilderInContext(c->llc);
    e.eb = LLVMCreateBuilderInContext(c->llc);
    LLVMBuilderRef saved = c->b;
    c->b = e.b; /* jit_ctx_field() builds with c->b */
    int rc = build_range(&e, simd_why);
    c->b = saved;
    if (e.oom) {
        snprintf(msg, JIT_REGIONS_MSG, "out of memory");
        rc = -1;
    }
    if (!rc)
        LLVMDeleteFunction(rg->item);
    *width = e.width;
    LLVMDisposeBuilder(e.b);
    LLVMDisposeBuilder(e.eb);
    util_hashmap_fini(&e.hoisted);
    util_hashmap_fini(&e.outer);
    util_array_fini(&e.env_vals);
    util_array_fini(&e.env_offsets);
    for (unsigned i = 0; i < 2; i++)
        free_machine(&e, &e.mach[i]);
    return rc;
}
