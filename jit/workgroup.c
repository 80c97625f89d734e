/* jit/workgroup.c — the functions of jit/abi.h around the lowered entry point.
 *
 *   spvjit.item.body(ctx, lx,ly,lz, sx,sy,sz, gx,gy,gz, env..., params...)
 *       always-inline: builds the item state (local id, the group's size and
 *       WorkgroupId, environment, Private variables with their initializers)
 *       and calls the SPIR-V entry function;
 *   spvjit_wg_range(ctx, first, count)   barrier-free kernels: loads the
 *       environment once, then runs the groups of the range (group_range.h),
 *       each a loop over its sub-groups calling the body vectorized for W
 *       lanes (simd.h), or, work-item by work-item, z, y, x calling the body
 *       (emit_group_items: the one place that runs the items of a group).
 *       With a known local size the loop bounds are constants (LLVM
 *       unrolls/vectorizes); a Kernel-flavour group smaller than that (the
 *       last one of an NDRange) calls spvjit.group.partial, the same loops
 *       with run-time bounds, out of line.  (One flat loop over
 *       global ids for 1-D dispatches was measured against the group loops
 *       and did not beat them: a few percent either way by local size, for
 *       twice the code);
 *   spvjit.item.in.group(ctx, lx,ly,lz, sx,sy,sz, gx,gy,gz)   kernels with
 *       barriers: one work-item of a given group, made into spvjit_wg_range
 *       (region_loops.h) or wrapped as spvjit_item (jit_build_fiber_item);
 *   spvjit.wg.init(ctx)  stores the initializers of Workgroup variables (run
 *       per group by the range loop); spvjit_wg_init(ctx) exports it for the
 *       fiber path.
 *
 * The environment (work-group memory, spec values, push constants, resource
 * bases, kernel arguments, and in memory modes robust and check the sizes of
 * the ranges, lower_bounds.c) is passed as parameters so loads of ctx happen
 * once per call, and noalias (Restrict / FuncParamAttr NoAlias) reaches the
 * loop.  memory=robust: a group whose checks hold all through (proven at its
 * start, guard_versions.h) runs the items with them folded away: the body's
 * last parameter says so.
 */
#include "group_range.h"
#include "guard_versions.h"
#include "llvm_facts.h"
#include "poll.h"
#include "lower_ctx.h"
#include "sg_marker.h"
#include "simd.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NFIXED = 10, NENV = JIT_ENV_RES0 }; /* ctx + local id, size, group id; wgmem/spec/push */

/* --- kernel parameters ------------------------------------------------------------ */

int jit_kernel_params(lower_ctx *c, uint32_t fidx)
{
    const spv_function *f = &c->m->funcs[fidx];
    c->params = jit_alloc(c, f->nparams + 1, sizeof *c->params);
    c->nparams = f->nparams;
    for (uint32_t i = 0; i < f->nparams; i++) {
        uint32_t pid = f->params[i];
        spvjit_param *p = &c->params[i];
        p->index = i;
        p->name = c->m->ids[pid].name;
        p->type_id = c->m->ids[pid].type_id;
        const spv_type *t = jit_spv_type(c, p->type_id);
        if (!t)
            return -1;
        for (uint32_t k = 0; k < c->m->ids[pid].dec_count; k++) {
            const spv_decoration *d = &c->m->decs[c->m->ids[pid].dec_first + k];
            if (d->decoration != SpvDecorationFuncParamAttr || !d->nargs)
                continue;
            if (d->args[0] == SpvFunctionParameterAttributeNoAlias)
                p->noalias = true;
            if (d->args[0] == SpvFunctionParameterAttributeNoWrite)
                p->readonly = true;
        }
        /* a pointer to Function memory is a by-value aggregate (ByVal) */
        bool byval = t->kind == SPV_TYPE_POINTER && t->storage == SpvStorageClassFunction;
        if (t->kind == SPV_TYPE_POINTER && !byval) {
            p->storage = t->storage;
            p->kind = t->storage == SpvStorageClassWorkgroup ? SPVJIT_PARAM_LOCAL_PTR : SPVJIT_PARAM_GLOBAL_PTR;
            p->size = p->align = 8;
            continue;
        }
        const spv_layout *l = jit_layout_of(c, byval ? t->elem : p->type_id);
        if (!l)
            return -1;
        p->kind = SPVJIT_PARAM_VALUE;
        p->storage = byval ? SpvStorageClassFunction : 0;
        p->size = l->size;
        p->align = l->align;
    }
    return 0;
}

/* The value of kernel parameter i, loaded from ctx->args[i] (see jit/abi.h). */
static LLVMValueRef load_param(lower_ctx *c, LLVMValueRef args, LLVMValueRef wgmem, uint32_t i)
{
    const spvjit_param *p = &c->params[i];
    LLVMValueRef slot = jit_byte_gep(c, args, LLVMConstInt(c->t_i64, 8ull * i, 0), true);
    LLVMValueRef a = jit_load_invariant(c, c->t_ptr, slot, 8);
    switch (p->kind) {
    case SPVJIT_PARAM_GLOBAL_PTR:
        return jit_load_invariant(c, c->t_ptr, a, 1);
    case SPVJIT_PARAM_LOCAL_PTR: {
        /* its offset a multiple of SPVJIT_LOCAL_ARG_ALIGN (abi.h), said so:
         * the block is then as aligned as work-group memory, and the vector
         * code's whole-vector accesses there need no run-time misalignment
         * (scan.cl's optimized IR: 131 lane permutations, 3 with it) */
        LLVMValueRef off = jit_load_invariant(c, c->t_i64, a, 1);
        off = LLVMBuildAnd(c->b, off, LLVMConstInt(c->t_i64, ~(uint64_t)(SPVJIT_LOCAL_ARG_ALIGN - 1), 0), "");
        return jit_byte_gep(c, wgmem, off, true);
    }
    default:
        if (p->storage == SpvStorageClassFunction)
            return a; /* ByVal: a pointer to the bytes */
        c->invariant_loads = true;
        LLVMValueRef v = jit_load_mem(c, p->type_id, a, 1, false, 0);
        c->invariant_loads = false;
        return v;
    }
}

/* --- the per-item body ---------------------------------------------------------------- */

static unsigned nenv(lower_ctx *c)
{
    return NENV + c->nres_slots;
}

/* Parameters of the body: the fixed ones, the environment, the kernel's
 * parameters, the bounds environment. */
static unsigned body_bounds_at(lower_ctx *c)
{
    return NFIXED + nenv(c) + c->nparams;
}

/* ... and last, the flag that the group's checks were proven (guard_versions.h) */
static unsigned body_fast_at(lower_ctx *c)
{
    return body_bounds_at(c) + jit_bounds_env_count(c);
}

static LLVMTypeRef body_type(lower_ctx *c)
{
    unsigned n = body_fast_at(c) + 1;
    LLVMTypeRef *p = jit_alloc(c, n, sizeof *p);
    p[0] = c->t_ptr;
    for (unsigned i = 1; i < NFIXED; i++)
        p[i] = c->t_i32;
    for (unsigned i = 0; i < nenv(c); i++)
        p[NFIXED + i] = c->t_ptr;
    LLVMTypeRef ef = jit_type(c, c->m->funcs[c->ep->func].fn_type);
    if (c->nparams) {
        LLVMTypeRef *ep = jit_alloc(c, LLVMCountParamTypes(ef), sizeof *ep);
        LLVMGetParamTypes(ef, ep);
        for (unsigned i = 0; i < c->nparams; i++)
            p[NFIXED + nenv(c) + i] = ep[2 + i];
    }
    for (unsigned k = 0; k < jit_bounds_env_count(c); k++)
        p[body_bounds_at(c) + k] = jit_bounds_env_type(c, k);
    p[body_fast_at(c)] = c->t_i8;
    return LLVMFunctionType(c->t_void, p, n, 0);
}

/* An item state on the stack with the environment stored; becomes c->arg_item. */
static LLVMValueRef new_item_state(lower_ctx *c, LLVMValueRef *env)
{
    LLVMValueRef st = LLVMBuildAlloca(c->b, LLVMArrayType2(c->t_i8, c->item_size), "item");
    LLVMSetAlignment(st, c->item_align);
    jit_mark(c, st, JIT_ITEM_STATE_MD);
    for (unsigned i = 0; i < nenv(c); i++)
        jit_store_at(c, st, JIT_ITEM_ENV + 8ull * i, env[i], 8);
    return st;
}

static int build_body(lower_ctx *c, uint32_t entry_fidx, LLVMValueRef *out)
{
    LLVMValueRef fn = LLVMAddFunction(c->mod, "spvjit.item.body", body_type(c));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "alwaysinline");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    for (uint32_t i = 0; i < c->nres; i++)
        if (spv_find_decoration(c->m, c->res[i].var_id, -1, SpvDecorationRestrict) && c->res[i].array_count == 1)
            jit_add_attr(c, fn, 1 + NFIXED + NENV + c->res[i].slot, "noalias");
    for (uint32_t i = 0; i < c->nparams; i++)
        if (c->params[i].noalias && c->params[i].kind == SPVJIT_PARAM_GLOBAL_PTR)
            jit_add_attr(c, fn, 1 + NFIXED + nenv(c) + i, "noalias");
    LLVMPositionBuilderAtEnd(c->pb, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    c->b = c->pb;
    c->llfn = fn;
    c->arg_ctx = LLVMGetParam(fn, 0);
    LLVMValueRef env[NENV + 4096];
    if (nenv(c) > NENV + 4096)
        return jit_fail(c, "too many resource slots");
    for (unsigned i = 0; i < nenv(c); i++)
        env[i] = LLVMGetParam(fn, NFIXED + i);
    c->arg_item = new_item_state(c, env);
    for (unsigned i = 0; i < 9; i++) /* LID, LSIZE, GID */
        jit_store_at(c, c->arg_item, 4ull * i, LLVMGetParam(fn, 1 + i), 4);
    unsigned nb = jit_bounds_env_count(c);
    for (unsigned k = 0; k < nb; k++)
        jit_store_at(c, c->arg_item, c->env_bounds + 8ull * k, LLVMGetParam(fn, body_bounds_at(c) + k), 8);
    if (c->item_epoch)
        jit_store_at(c, c->arg_item, c->item_epoch, LLVMConstInt(c->t_i32, 0, 0), 4);
    if (c->item_fast)
        jit_store_at(c, c->arg_item, c->item_fast, LLVMGetParam(fn, body_fast_at(c)), 1);
    jit_clear_values(c);
    if (jit_init_module_vars(c, SpvStorageClassPrivate))
        return -1;
    unsigned n = 2 + c->nparams;
    LLVMValueRef *args = jit_alloc(c, n + 2 * c->nparams, sizeof *args);
    args[0] = c->arg_ctx;
    args[1] = c->arg_item;
    for (unsigned i = 0; i < c->nparams; i++)
        args[2 + i] = LLVMGetParam(fn, NFIXED + nenv(c) + i);
    /* the bounds of the pointer parameters: the whole argument */
    for (unsigned i = 0; i < c->nparams && jit_checks_on(c); i++) {
        const spv_type *t = spv_type_get(c->m, c->params[i].type_id);
        if (!t || t->kind != SPV_TYPE_POINTER)
            continue;
        args[n++] = LLVMConstInt(c->t_i64, 0, 0);
        args[n++] = c->params[i].kind == SPVJIT_PARAM_VALUE ? LLVMConstInt(c->t_i64, c->params[i].size, 0)
                                                            : LLVMGetParam(fn, body_bounds_at(c) + 2 * i + 1);
    }
    LLVMValueRef callee = c->fns[entry_fidx];
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(callee), callee, args, n, "");
    LLVMBuildRetVoid(c->b);
    c->llfn = NULL;
    *out = fn;
    return 0;
}

/* --- the environment and the loops over a group's work-items ------------------------------------- */

/* What the body is called with after its fixed parameters: v[0, n), then
 * the flag `fast` (i8). */
typedef struct group_env {
    LLVMValueRef *v;
    unsigned n;
    LLVMValueRef fast; /* i8: the group's checks were proven at its start */
} group_env;

/* Loads the environment and the kernel arguments from ctx (once per call). */
static group_env load_env(lower_ctx *c, LLVMValueRef ctx)
{
    unsigned nb = jit_bounds_env_count(c);
    group_env e = { jit_alloc(c, nenv(c) + c->nparams + nb + 1, sizeof(LLVMValueRef)), nenv(c) + c->nparams + nb,
                    LLVMConstInt(c->t_i8, 0, 0) };
    e.v[JIT_ENV_WGMEM] = jit_ctx_wg_memory(c, ctx);
    e.v[JIT_ENV_SPEC] = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, spec_values), c->t_ptr);
    e.v[JIT_ENV_PUSH] = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, push_constants), c->t_ptr);
    LLVMValueRef args = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, args), c->t_ptr);
    for (uint32_t i = 0; i < c->nres_slots; i++)
        e.v[NENV + i] =
            jit_load_invariant(c, c->t_ptr, jit_byte_gep(c, args, LLVMConstInt(c->t_i64, 8ull * i, 0), true), 8);
    for (uint32_t i = 0; i < c->nparams; i++)
        e.v[nenv(c) + i] = load_param(c, args, e.v[JIT_ENV_WGMEM], i);
    /* the bounds environment (lower_bounds.c): sizes from ctx->arg_sizes */
    LLVMValueRef sizes = nb ? jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, arg_sizes), c->t_ptr) : NULL;
    LLVMValueRef *bv = e.v + nenv(c) + c->nparams;
    for (uint32_t s = 0; s < c->nres_slots && nb; s++)
        bv[s] = jit_load_invariant(c, c->t_i64, jit_byte_gep(c, sizes, LLVMConstInt(c->t_i64, 8ull * s, 0), true), 8);
    for (uint32_t i = 0; i < c->nparams && nb; i++) {
        bool ptr = c->params[i].kind != SPVJIT_PARAM_VALUE;
        bv[c->nres_slots + 2 * i] = ptr ? e.v[nenv(c) + i] : LLVMConstPointerNull(c->t_ptr);
        bv[c->nres_slots + 2 * i + 1] =
            ptr ? jit_load_invariant(c, c->t_i64, jit_byte_gep(c, sizes, LLVMConstInt(c->t_i64, 8ull * i, 0), true), 8)
                : LLVMConstInt(c->t_i64, c->params[i].size, 0);
    }
    return e;
}

/* body(ctx, id, size, group, env...) for one work-item. */
static void call_body(lower_ctx *c, LLVMValueRef body, LLVMValueRef ctx, LLVMValueRef *id, LLVMValueRef *size,
                      LLVMValueRef *group, const group_env *e)
{
    unsigned n = NFIXED + e->n + 1;
    LLVMValueRef *a = jit_alloc(c, n, sizeof *a);
    a[0] = ctx;
    for (unsigned i = 0; i < 3; i++) {
        a[1 + i] = id[i];
        a[4 + i] = size[i];
        a[7 + i] = group[i];
    }
    for (unsigned i = 0; i < e->n; i++)
        a[NFIXED + i] = e->v[i];
    a[n - 1] = e->fast;
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(body), body, a, n, "");
}

/* What the loops over work-items call the body with. */
typedef struct items {
    lower_ctx *c;
    LLVMValueRef fn, body, ctx;
    group_env *env;
    LLVMValueRef proof;   /* spvjit.proof (guard_versions.h), or NULL */
    LLVMValueRef partial; /* spvjit.group.partial, or NULL */
    /* sub-groups of width lanes: the body vectorized for the compile-time
     * local size and for a run-time size (NULL: work-item by work-item) */
    LLVMValueRef vf, vf_sized;
    unsigned width;
} items;

static bool is_one(LLVMValueRef v)
{
    return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 1;
}

/* for z, y, x in [0, size): body.  Bounds must be >= 1; a dimension of the
 * constant size 1 gets no loop (1-D and 2-D kernels: less IR to optimize). */
static void loop_nest(lower_ctx *c, const items *it, LLVMValueRef *size, LLVMValueRef *group, LLVMBasicBlockRef exit)
{
    LLVMBasicBlockRef head[3];
    LLVMValueRef iv[3], id[3], zero = LLVMConstInt(c->t_i32, 0, 0);
    const char *names[3] = { "z", "y", "x" };
    for (int d = 0; d < 3; d++) {
        iv[d] = zero;
        if (is_one(size[2 - d]))
            continue;
        LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
        head[d] = LLVMAppendBasicBlockInContext(c->llc, it->fn, names[d]);
        LLVMBuildBr(c->b, head[d]);
        LLVMPositionBuilderAtEnd(c->b, head[d]);
        iv[d] = LLVMBuildPhi(c->b, c->t_i32, names[d]);
        LLVMAddIncoming(iv[d], &zero, &from, 1);
    }
    id[0] = iv[2];
    id[1] = iv[1];
    id[2] = iv[0];
    call_body(c, it->body, it->ctx, id, size, group, it->env);
    for (int d = 2; d >= 0; d--) {
        if (is_one(size[2 - d]))
            continue;
        LLVMValueRef next = LLVMBuildAdd(c->b, iv[d], LLVMConstInt(c->t_i32, 1, 0), "");
        LLVMBasicBlockRef latch = LLVMGetInsertBlock(c->b);
        LLVMAddIncoming(iv[d], &next, &latch, 1);
        LLVMValueRef more = LLVMBuildICmp(c->b, LLVMIntULT, next, size[2 - d], "");
        LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(c->llc, it->fn, "");
        LLVMBuildCondBr(c->b, more, head[d], after);
        LLVMPositionBuilderAtEnd(c->b, after);
    }
    LLVMBuildBr(c->b, exit);
}

/* --- sub-groups (simd.h) ---------------------------------------------------------------------------- */

/* The vector functions of the body: for the compile-time local size, and for
 * a group of run-time size (no compile-time size, or a smaller OpenCL group).
 * A smaller group of a kernel that cannot observe its sub-groups (no marker)
 * runs its work-items one at a time instead, as the quick tier runs every
 * group of it: only the last group of a dimension is smaller, and its
 * vector form, the lanes' local ids from a run-time size, was gathers and
 * scatters that cost more to compile than the rest of the kernel.
 * 0; 1 declined (why); -1 failed (c->diag). */
static int vectorize_body(lower_ctx *c, LLVMValueRef body, unsigned width, bool proven, LLVMValueRef *full,
                          LLVMValueRef *sized, char *why)
{
    jit_simd_items_req req[2];
    unsigned n = 0;
    if (c->ls_known) /* full groups: run only when proven, the checks gone before vectorizing */
        req[n++] = (jit_simd_items_req){ .item = body,
                                         .no_index = true,
                                         .width = width,
                                         .size = c->local_size,
                                         .name = "spvjit.simd.body",
                                         .td = c->td,
                                         .fixed_param = body_fast_at(c),
                                         .fixed_value = proven ? LLVMConstInt(c->t_i8, 1, 0) : NULL };
    if (!c->ls_known || (jit_group_sizes_vary(c) && jit_sg_any_marker(c->mod)))
        req[n++] = (jit_simd_items_req){ .item = body,
                                         .no_index = true,
                                         .width = width,
                                         .size_param = 4,
                                         .compiled = c->ls_known ? c->local_size : NULL,
                                         .name = "spvjit.simd.body.sized",
                                         .td = c->td };
    LLVMValueRef out[2] = { NULL, NULL };
    int rc = jit_simd_items(req, n, NULL, 0, c->quick ? JIT_SIMD_PREP_QUICK : JIT_SIMD_PREP_FULL, out, why);
    if (rc < 0)
        return jit_fail(c, "%s", why);
    if (rc)
        return 1;
    *full = c->ls_known ? out[0] : NULL;
    *sized = c->ls_known ? out[1] : out[0];
    return 0;
}

/* The loop over the sub-groups of a group of size[3] items, WorkgroupId id[3];
 * in bands (part not NULL), those of the group's row of items `part` (y, z:
 * band_parts). */
static void sg_loop(lower_ctx *c, const items *it, LLVMValueRef vf, LLVMValueRef *size, LLVMValueRef *id,
                    LLVMValueRef part, LLVMBasicBlockRef exit)
{
    group_env *e = it->env;
    LLVMValueRef *args = jit_alloc(c, 7 + e->n, sizeof *args);
    memcpy(args, size, 3 * sizeof *args);
    memcpy(args + 3, id, 3 * sizeof *args);
    memcpy(args + 6, e->v, e->n * sizeof *args);
    args[6 + e->n] = e->fast;
    /* a row of items (size[0], whole sub-groups: band_parts), or all of them */
    LLVMValueRef count =
        part ? size[0] : LLVMBuildMul(c->b, LLVMBuildMul(c->b, size[0], size[1], ""), size[2], "items");
    jit_simd_loop l = { .vf = vf,
                        .ctx = it->ctx,
                        .args = args,
                        .nargs = 7 + e->n,
                        .count = count,
                        .first = part ? LLVMBuildMul(c->b, part, size[0], "row") : NULL,
                        .width = it->width };
    jit_simd_emit_loop(&l, c->b);
    LLVMBuildBr(c->b, exit);
}

unsigned jit_simd_width(lower_ctx *c, unsigned w, char *why)
{
    if (w <= 1 || jit_sg_any_marker(c->mod))
        return w;
    if (c->simd_observed_only) {
        snprintf(why, JIT_SIMD_MSG, "the quick tier keeps vectors for kernels that observe their sub-groups");
        return 1;
    }
    if (!c->ls_known || c->local_size[0] >= w)
        return w;
    if ((uint64_t)c->local_size[0] * c->local_size[1] * c->local_size[2] < 4) {
        snprintf(why, JIT_SIMD_MSG, "a work-group of fewer than 4 work-items");
        return 1;
    }
    for (unsigned n = w / 2; n >= 4; n /= 2)
        if (c->local_size[0] % n == 0)
            return n;
    return w;
}

/* The work-items of one group: WorkgroupId g->id, size g->size (constants
 * for groups of the compile-time size, LLVM then unrolls and vectorizes; at
 * least 1 in every dimension).  The one place the item loops of a
 * barrier-free group are made: a sub-group loop goes here.  Leaves c->b after
 * them. */
static void emit_group_items(lower_ctx *c, const items *it, const jit_group *g)
{
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c->llc, it->fn, "group.done");
    LLVMValueRef size[3], id[3];
    memcpy(size, g->size, sizeof size);
    memcpy(id, g->id, sizeof id);
    bool full = true;
    for (unsigned d = 0; d < 3; d++)
        full &= LLVMIsAConstantInt(size[d]) != NULL;
    LLVMValueRef vf = full && it->vf ? it->vf : it->vf_sized;
    /* a group of the compile-time size runs only when the range loop proved
     * its checks (group_range.h): the version without them */
    items fast = *it;
    group_env fast_env = *it->env;
    if (full && it->proof) {
        fast_env.fast = LLVMConstInt(c->t_i8, 1, 0);
        fast.env = &fast_env;
    }
    if (vf)
        sg_loop(c, &fast, vf, size, id, g->part, done);
    else
        loop_nest(c, &fast, size, id, done);
    LLVMPositionBuilderAtEnd(c->b, done);
}

/* spvjit.group.partial(ctx, gx,gy,gz, sx,sy,sz): the items of a group
 * smaller than the compile-time size (the last OpenCL group of a dimension),
 * the environment loaded from ctx.  Out of line and compiled for size: it
 * runs rarely, and a second inlined copy of the body in the loops over
 * groups costs compile time. */
static LLVMValueRef build_partial(lower_ctx *c, LLVMValueRef body, LLVMValueRef vf_sized, unsigned width)
{
    LLVMTypeRef p[7] = { c->t_ptr, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_GROUP_PREFIX "partial", LLVMFunctionType(c->t_void, p, 7, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "noinline");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "optsize");
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    jit_stop_field(c->b, LLVMGetParam(fn, 0)); /* for the polls (poll.h) */
    group_env e = load_env(c, LLVMGetParam(fn, 0));
    items it = {
        .c = c, .fn = fn, .body = body, .ctx = LLVMGetParam(fn, 0), .env = &e, .vf_sized = vf_sized, .width = width
    };
    jit_group g = { 0 };
    for (unsigned d = 0; d < 3; d++) {
        g.id[d] = LLVMGetParam(fn, 1 + d);
        g.size[d] = LLVMGetParam(fn, 4 + d);
    }
    emit_group_items(c, &it, &g);
    LLVMBuildRetVoid(c->b);
    return fn;
}

/* One group of the range (a jit_group_emit_fn): its items inline, or, for a
 * smaller OpenCL group, a call of spvjit.group.partial. */
static int emit_group(void *user, const jit_group *g)
{
    const items *it = user;
    lower_ctx *c = it->c;
    bool full = true;
    for (unsigned d = 0; d < 3; d++)
        full &= LLVMIsAConstantInt(g->size[d]) != NULL;
    if (full || !it->partial) {
        emit_group_items(c, it, g);
        return 0;
    }
    LLVMValueRef a[7] = { it->ctx, g->id[0], g->id[1], g->id[2], g->size[0], g->size[1], g->size[2] };
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(it->partial), it->partial, a, 7, "");
    return 0;
}

/* i1 spvjit.proof(ctx, lo x,y,z, hi x,y,z) (JIT_SYM_PROOF): whether every
 * check of the body that guard_versions.h can follow holds for the whole
 * groups of the compile-time size with WorkgroupIds in [lo, hi]; NULL when
 * there is no such check (the body's other checks lose the flag).  Out of
 * line: the range loop calls it once per row of groups, and per group in a
 * row it fails for.  Before the body is vectorized: the vector forms see the
 * checks as the proof leaves them. */
static LLVMValueRef build_proof(lower_ctx *c, LLVMValueRef body)
{
    if (!c->item_fast || !c->ls_known)
        return NULL;
    LLVMTypeRef pt[7] = { c->t_ptr, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_PROOF, LLVMFunctionType(c->t_i1, pt, 7, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, 1, "noalias");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "noinline");
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    LLVMValueRef ctx = LLVMGetParam(fn, 0);
    group_env e = load_env(c, ctx);
    LLVMValueRef *args = jit_alloc(c, NFIXED + e.n + 1, sizeof *args), hi[3];
    args[0] = ctx;
    for (unsigned d = 0; d < 3; d++) {
        args[4 + d] = LLVMConstInt(c->t_i32, c->local_size[d], 0);
        args[7 + d] = LLVMGetParam(fn, 1 + d);
        hi[d] = LLVMGetParam(fn, 4 + d);
    }
    memcpy(args + NFIXED, e.v, e.n * sizeof *e.v);
    LLVMValueRef proven = jit_guard_versions(c, body, args, hi, c->local_size);
    if (!proven) {
        LLVMDeleteFunction(fn);
        return NULL;
    }
    LLVMBuildRet(c->b, proven);
    return fn;
}

/* --- the exported functions ------------------------------------------------------------------------- */

/* The parts a group's work-items run in when the range loop runs groups in
 * bands (group_range.h), or 0: its rows of items (y, z), each whole sub-groups
 * of the vector function vf, so that a band sweeps rows of items across the
 * row of groups (a 16 x 16 stencil tile's rows: the image's rows, in memory
 * order; the row's clamps and offsets once per band).  Only where no
 * work-item depends on its group running as a whole — no Workgroup memory
 * (variables, initializers, local-pointer arguments: a band has several
 * groups under way, which would share it), not memory=check (whose first
 * report names the first bad access in group order); barriers do not come
 * here.  A 1-D group (one row) keeps group order: its sub-groups are already
 * consecutive in memory. */
static unsigned band_parts(lower_ctx *c, LLVMValueRef vf, unsigned width)
{
    uint64_t rows = (uint64_t)c->local_size[1] * c->local_size[2];
    if (!vf || !c->ls_known || width <= 1 || c->local_size[0] % width || rows < 2 || c->wg_size || c->has_wg_init ||
        c->memory == JIT_MEMORY_CHECK)
        return 0;
    for (uint32_t i = 0; i < c->nparams; i++)
        if (c->params[i].kind == SPVJIT_PARAM_LOCAL_PTR)
            return 0;
    return (unsigned)rows;
}

static int build_range(lower_ctx *c, LLVMValueRef body)
{
    LLVMValueRef proof = build_proof(c, body);
    /* sub-groups of c->simd_width lanes where the vectorizer takes the body */
    LLVMValueRef vf = NULL, vf_sized = NULL;
    c->simd_why[0] = 0;
    unsigned width = c->simd_narrow ? jit_simd_width(c, c->simd_width, c->simd_why) : c->simd_width;
    if (width > 1) {
        int rc = vectorize_body(c, body, width, proof != NULL, &vf, &vf_sized, c->simd_why);
        if (rc < 0)
            return -1;
        if (rc)
            width = 1;
        else
            c->simd_why[0] = 0; /* what the quick preparation's form was declined for, if it was */
    }
    c->simd_width = width;
    /* a known local size: Kernel groups of it inline, smaller ones out of line */
    LLVMValueRef partial = c->ls_known && jit_group_sizes_vary(c) ? build_partial(c, body, vf_sized, width) : NULL;
    LLVMValueRef fn = jit_range_function(c);
    group_env e = load_env(c, LLVMGetParam(fn, 0));
    items it = { .c = c,
                 .fn = fn,
                 .body = body,
                 .ctx = LLVMGetParam(fn, 0),
                 .env = &e,
                 .proof = proof,
                 .partial = partial,
                 .vf = vf,
                 .vf_sized = vf_sized,
                 .width = width };
    return jit_emit_group_range(c, fn, emit_group, &it, proof, band_parts(c, vf, width));
}

/* spvjit.item.in.group: the body's fixed parameters, the environment loaded from ctx. */
static void build_item_in_group(lower_ctx *c, LLVMValueRef body)
{
    LLVMTypeRef p[NFIXED] = { c->t_ptr };
    for (unsigned i = 1; i < NFIXED; i++)
        p[i] = c->t_i32;
    /* the checks proven by the range loop for groups of the compile-time
     * size (the regions' full machine, region_loops.c): the flag is a marker
     * the barrier path gives its value (lower_ctx.h) */
    bool proof = build_proof(c, body) != NULL;
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_ITEM_IN_GROUP, LLVMFunctionType(c->t_void, p, NFIXED, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    LLVMValueRef ctx = LLVMGetParam(fn, 0);
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    group_env e = load_env(c, ctx);
    LLVMValueRef id[3], size[3], group[3];
    for (unsigned i = 0; i < 3; i++) {
        id[i] = LLVMGetParam(fn, 1 + i);
        size[i] = LLVMGetParam(fn, 4 + i);
        group[i] = LLVMGetParam(fn, 7 + i);
    }
    if (proof) {
        LLVMTypeRef mt = LLVMFunctionType(c->t_i1, NULL, 0, 0);
        LLVMValueRef marker = LLVMGetNamedFunction(c->mod, JIT_GROUP_PROVEN);
        if (!marker)
            marker = LLVMAddFunction(c->mod, JIT_GROUP_PROVEN, mt);
        e.fast = LLVMBuildZExt(c->b, LLVMBuildCall2(c->b, mt, marker, NULL, 0, ""), c->t_i8, "");
    }
    call_body(c, body, ctx, id, size, group, &e);
    LLVMBuildRetVoid(c->b);
}

void jit_group_proven_is(lower_ctx *c, bool value)
{
    LLVMValueRef marker = LLVMGetNamedFunction(c->mod, JIT_GROUP_PROVEN);
    if (!marker)
        return;
    for (LLVMUseRef use; (use = LLVMGetFirstUse(marker));) {
        LLVMValueRef call = LLVMGetUser(use);
        LLVMReplaceAllUsesWith(call, LLVMConstInt(c->t_i1, value, 0));
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDeleteFunction(marker);
}

void jit_build_fiber_item(lower_ctx *c)
{
    LLVMValueRef in_group = LLVMGetNamedFunction(c->mod, JIT_SYM_ITEM_IN_GROUP);
    LLVMTypeRef p[4] = { c->t_ptr, c->t_i32, c->t_i32, c->t_i32 };
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_ITEM, LLVMFunctionType(c->t_void, p, 4, 0));
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    jit_add_attr(c, in_group, LLVMAttributeFunctionIndex, "alwaysinline");
    LLVMBuilderRef saved = c->b;
    c->b = c->fb;
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    LLVMValueRef ctx = LLVMGetParam(fn, 0), a[NFIXED] = { ctx };
    for (unsigned i = 0; i < 3; i++) {
        a[1 + i] = LLVMGetParam(fn, 1 + i);
        a[4 + i] = jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, local_size) + 4 * i, c->t_i32);
        a[7 + i] = LLVMBuildAdd(c->b, jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, group_id) + 4 * i, c->t_i32),
                                jit_ctx_field(c, ctx, offsetof(spvjit_wg_ctx, base_group) + 4 * i, c->t_i32), "");
    }
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(in_group), in_group, a, NFIXED, "");
    LLVMBuildRetVoid(c->b);
    c->b = saved;
}

/* spvjit.wg.init(ctx) and spvjit_wg_init(ctx) calling it. */
static int build_wg_init(lower_ctx *c)
{
    LLVMTypeRef ft = LLVMFunctionType(c->t_void, &c->t_ptr, 1, 0);
    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_WG_INIT_BODY, ft);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind"); /* always-inline once the range loop calls it */
    LLVMPositionBuilderAtEnd(c->pb, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    c->b = c->pb;
    c->llfn = fn;
    c->arg_ctx = LLVMGetParam(fn, 0);
    LLVMValueRef env[NENV + 4096];
    for (unsigned i = 0; i < nenv(c); i++)
        env[i] = LLVMConstPointerNull(c->t_ptr);
    env[JIT_ENV_WGMEM] = jit_ctx_wg_memory(c, c->arg_ctx);
    env[JIT_ENV_SPEC] = jit_ctx_field(c, c->arg_ctx, offsetof(spvjit_wg_ctx, spec_values), c->t_ptr);
    c->arg_item = new_item_state(c, env);
    jit_clear_values(c);
    if (jit_init_module_vars(c, SpvStorageClassWorkgroup))
        return -1;
    LLVMBuildRetVoid(c->b);
    c->llfn = NULL;

    LLVMValueRef exported = LLVMAddFunction(c->mod, JIT_SYM_WG_INIT, ft);
    jit_add_attr(c, exported, LLVMAttributeFunctionIndex, "nounwind");
    LLVMPositionBuilderAtEnd(c->pb, LLVMAppendBasicBlockInContext(c->llc, exported, "entry"));
    LLVMValueRef ctx = LLVMGetParam(exported, 0);
    LLVMBuildCall2(c->pb, ft, fn, &ctx, 1, "");
    LLVMBuildRetVoid(c->pb);
    return 0;
}

int jit_build_entry_functions(lower_ctx *c, uint32_t entry_fidx)
{
    LLVMValueRef body;
    if (build_body(c, entry_fidx, &body) || jit_guard_versions_inline(c, body) || (c->has_wg_init && build_wg_init(c)))
        return -1;
    c->b = c->fb;
    if (!c->uses_barriers) {
        if (build_range(c, body))
            return -1;
    } else {
        build_item_in_group(c, body);
    }
    c->b = c->fb;
    return 0;
}
