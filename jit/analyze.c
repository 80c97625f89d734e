/* jit/analyze.c — the facts of a compile, computed from the module alone.
 *
 * Everything spvjit_kernel_facts says (local size, spec-constant slots,
 * barrier sites, work-group memory, resources, parameters, the per-item
 * state) follows from the module and the options, not from the generated
 * code; computing it apart from the lowering lets a cached object be paired
 * with the facts of the module it is loaded for (jit/object.c).
 */
#include "kernel_internal.h"
#include "spirv/interface.h"

#include <stdlib.h>
#include <string.h>

const spv_entry_point *jit_find_entry(const spv_module *m, const char *name, spv_diag *diag)
{
    const spv_entry_point *ep = spv_find_entry(m, name);
    if (!ep) {
        spv_fail(diag, "%s: no entry point %s%s%s", m->source ? m->source : "<memory>", name ? "named '" : "",
                 name ? name : "(compute)", name ? "'" : "");
        return NULL;
    }
    if (ep->model != SpvExecutionModelGLCompute && ep->model != SpvExecutionModelKernel) {
        spv_fail(diag, "%s: entry point %s is not a compute entry point (GLCompute or Kernel)",
                 m->source ? m->source : "<memory>", ep->name);
        return NULL;
    }
    if (ep->func >= m->nfuncs || m->funcs[ep->func].is_declaration) {
        spv_fail(diag, "%s: entry point %s has no function body", m->source ? m->source : "<memory>", ep->name);
        return NULL;
    }
    return ep;
}

/* --- the entry point --------------------------------------------------------------------- */

static int settle_local_size(lower_ctx *c, const spvjit_options *o)
{
    const spv_entry_point *ep = c->ep;
    bool fixed = false;
    uint32_t ls[3] = { 1, 1, 1 };
    if (ep->has_local_size) {
        memcpy(ls, ep->local_size, sizeof ls);
        fixed = true;
    }
    if (ep->has_local_size_id) {
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            if (!jit_shape_u64(c, ep->local_size_id[i], &v))
                return jit_fail(c, "entry point %s: LocalSizeId operand %%%u is not an integer constant", ep->name,
                                ep->local_size_id[i]);
            ls[i] = (uint32_t)v;
        }
        fixed = true;
    }
    const spv_id *wgs = spv_id_get(c->m, c->m->workgroup_size_id);
    if (wgs && wgs->is_composite && wgs->nparts >= 3) {
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            if (!jit_shape_u64(c, wgs->parts[i], &v))
                return jit_fail(c, "the WorkgroupSize constant's component %%%u is not an integer constant",
                                wgs->parts[i]);
            ls[i] = (uint32_t)v;
        }
        fixed = true;
    }
    bool given = o->local_size[0] || o->local_size[1] || o->local_size[2];
    if (given) {
        for (int i = 0; i < 3; i++) {
            uint32_t g = o->local_size[i] ? o->local_size[i] : 1;
            if (fixed && g != ls[i])
                return jit_fail(c, "entry point %s has a fixed local size %ux%ux%u; %ux%ux%u was asked for", ep->name,
                                ls[0], ls[1], ls[2], o->local_size[0], o->local_size[1], o->local_size[2]);
            ls[i] = g;
        }
    }
    if (!fixed && !given)
        return 0;
    if (!ls[0] || !ls[1] || !ls[2])
        return jit_fail(c, "local size %ux%ux%u has a zero dimension", ls[0], ls[1], ls[2]);
    uint64_t items = (uint64_t)ls[0] * ls[1] * ls[2];
    if (items > JIT_MAX_WORKGROUP_INVOCATIONS)
        return jit_fail(c,
                        "entry point %s: a local size of %ux%ux%u is %llu work-items per work-group; "
                        "spvjit runs at most %u " JIT_LIMIT_TAG,
                        ep->name, ls[0], ls[1], ls[2], (unsigned long long)items, JIT_MAX_WORKGROUP_INVOCATIONS);
    c->ls_known = true;
    memcpy(c->local_size, ls, sizeof ls);
    return 0;
}

static int cmp_u32pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* SpecId-decorated scalar constants sorted by SpecId: slot order of ctx->spec_values. */
static void spec_slots(lower_ctx *c)
{
    const spv_module *m = c->m;
    uint32_t *pairs = jit_alloc(c, 2ull * m->bound + 2, sizeof *pairs);
    uint32_t n = 0;
    for (uint32_t id = 1; id < m->bound; id++) {
        const spv_id *d = &m->ids[id];
        const spv_inst *in = d->kind == SPV_ID_SPEC_CONSTANT ? spv_def(m, id) : NULL;
        if (!in || d->spec_id == SPV_NONE)
            continue;
        if (in->opcode != SpvOpSpecConstant && in->opcode != SpvOpSpecConstantTrue &&
            in->opcode != SpvOpSpecConstantFalse)
            continue;
        pairs[2 * n] = d->spec_id;
        pairs[2 * n + 1] = id;
        n++;
    }
    qsort(pairs, n, 2 * sizeof *pairs, cmp_u32pair);
    c->nspec = n;
    c->spec_ids = jit_alloc(c, n + 1, sizeof *c->spec_ids);
    for (uint32_t i = 0; i < n; i++) {
        c->spec_ids[i] = pairs[2 * i];
        if (c->unspec)
            c->var_slot[pairs[2 * i + 1]] = i;
    }
}

int jit_settle_entry(lower_ctx *c, const spvjit_options *o)
{
    if (settle_local_size(c, o))
        return -1;
    spec_slots(c);
    return 0;
}

/* --- call graph ------------------------------------------------------------------ */

/* Depth first from fi: marks c->reach, fails on a call back into a function on the stack. */
static int visit(lower_ctx *c, uint32_t fi, uint8_t *color)
{
    const spv_function *f = &c->m->funcs[fi];
    color[fi] = 1;
    c->reach[fi] = true;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t i = f->blocks[b].first; i < f->blocks[b].end; i++) {
            const spv_inst *in = &c->m->insts[i];
            if (in->opcode != SpvOpFunctionCall)
                continue;
            uint32_t callee = spv_function_index(c->m, spv_inst_op(in, 0));
            if (callee == SPV_NONE)
                return jit_fail_inst(c, in, "callee is not a function");
            if (color[callee] == 1)
                return jit_fail_inst(c, in,
                                     "recursion: %s calls %s, which is on the call stack (SPIR-V "
                                     "forbids recursion)",
                                     jit_name_of(c, f->id), jit_name_of(c, c->m->funcs[callee].id));
            if (color[callee] == 0 && visit(c, callee, color))
                return -1;
        }
    color[fi] = 2;
    return 0;
}

static int reach_functions(lower_ctx *c, uint32_t entry)
{
    return visit(c, entry, jit_alloc(c, c->m->nfuncs + 1, 1));
}

/* --- what is reachable ---------------------------------------------------------------------- */

static void number_barriers(lower_ctx *c)
{
    for (uint32_t f = 0; f < c->m->nfuncs; f++) {
        if (!c->reach[f])
            continue;
        const spv_function *fn = &c->m->funcs[f];
        for (uint32_t b = 0; b < fn->nblocks; b++)
            for (uint32_t i = fn->blocks[b].first; i < fn->blocks[b].end; i++) {
                const spv_inst *in = &c->m->insts[i];
                unsigned n = jit_barrier_sites(c, in);
                if (!n)
                    continue;
                c->barrier_site[i] = c->nbarriers + 1; /* first site + 1; a collective takes two */
                c->nbarriers += n;
                uint64_t slot = jit_wg_scratch_slot(c, in);
                if (slot > c->wg_scratch_slot)
                    c->wg_scratch_slot = slot;
            }
    }
    c->uses_barriers = c->nbarriers > 0;
}

static uint64_t function_var_bytes(lower_ctx *c)
{
    uint64_t total = 0;
    for (uint32_t f = 0; f < c->m->nfuncs; f++) {
        if (!c->reach[f] || !c->m->funcs[f].nblocks)
            continue;
        const spv_block *b = &c->m->funcs[f].blocks[0];
        for (uint32_t i = b->first; i < b->end; i++) {
            const spv_inst *in = &c->m->insts[i];
            if (in->opcode != SpvOpVariable)
                continue;
            const spv_type *pt = spv_type_get(c->m, in->type_id);
            const spv_layout *l = pt ? spv_layout_of(c->layouts, pt->elem) : NULL; /* an estimate: no failure */
            if (l)
                total += l->size;
        }
    }
    return total;
}

int jit_analyze(lower_ctx *c, uint32_t fidx, bool is_entry)
{
    if (reach_functions(c, fidx))
        return -1;
    /* the statically used module-scope variables: owned by c, released by jit_ctx_free */
    if (c->ep && !(c->used_globals = spv_entry_used_globals(c->m, c->ep)))
        return jit_fail(c, "out of memory");
    number_barriers(c);
    if (jit_create_module_globals(c))
        return -1;
    if (c->wg_scratch_slot) {
        /* work-group collectives: one slot per work-item after the Workgroup variables */
        if (!c->ls_known)
            return jit_fail(c,
                            "entry point %s uses work-group collective operations, which need a local size "
                            "fixed at compile time",
                            c->ep ? c->ep->name : "(none)");
        c->wg_scratch_offset = (c->wg_size + 15) & ~15ull;
        c->wg_size = c->wg_scratch_offset + c->wg_scratch_slot * c->local_size[0] * c->local_size[1] * c->local_size[2];
    }
    if (is_entry && c->kernel) {
        if (jit_kernel_params(c, fidx))
            return -1;
    }
    c->fn_var_bytes = function_var_bytes(c);
    if (c->wg_size > JIT_MAX_WORKGROUP_MEMORY)
        return jit_fail(c,
                        "%s uses %llu bytes of work-group memory; spvjit gives a work-group at most "
                        "%llu " JIT_LIMIT_TAG,
                        c->ep ? c->ep->name : "the function", (unsigned long long)c->wg_size,
                        (unsigned long long)JIT_MAX_WORKGROUP_MEMORY);
    uint64_t private_bytes = c->item_size - c->private_at + c->fn_var_bytes;
    if (private_bytes > JIT_MAX_PRIVATE_MEMORY)
        return jit_fail(c,
                        "%s uses %llu bytes of private memory per work-item (Private and Function "
                        "variables); spvjit gives a work-item at most %llu " JIT_LIMIT_TAG,
                        c->ep ? c->ep->name : "the function", (unsigned long long)private_bytes,
                        (unsigned long long)JIT_MAX_PRIVATE_MEMORY);
    jit_bounds_plan(c);
    return 0;
}

/* A malloc'd copy the kernel owns (the compile's arena goes when it ends). */
static void *kernel_copy(const void *p, size_t n, size_t size, bool *ok)
{
    void *q = malloc(n ? n * size : 1);
    if (!q)
        *ok = false;
    else if (n)
        memcpy(q, p, n * size);
    return q;
}

int jit_fill_facts(jit_kernel *k, lower_ctx *c)
{
    spvjit_kernel_facts *f = &k->facts;
    bool ok = true;
    f->is_kernel = c->kernel;
    f->uses_barriers = c->uses_barriers;
    f->nbarrier_sites = c->nbarriers;
    f->local_size_known = c->ls_known;
    memcpy(f->local_size, c->local_size, sizeof f->local_size);
    f->wg_mem_size = c->wg_size;
    f->wg_mem_align = c->wg_align;
    k->params = kernel_copy(c->params, c->nparams, sizeof *c->params, &ok);
    k->res = kernel_copy(c->res, c->nres, sizeof *c->res, &ok);
    k->spec_ids = kernel_copy(c->spec_ids, c->nspec, sizeof *c->spec_ids, &ok);
    f->nparams = c->nparams;
    f->params = k->params;
    f->nresources = c->nres;
    f->resources = k->res;
    f->nslots = c->nres_slots;
    f->push_constant_size = c->push_size;
    f->nspec = c->unspec ? c->nspec : 0;
    f->spec_ids = k->spec_ids;
    f->stack_estimate = c->item_size + c->fn_var_bytes;
    f->memory_check = c->memory == JIT_MEMORY_CHECK;
    return ok ? 0 : spv_fail(c->diag, "out of memory keeping the kernel's facts");
}
