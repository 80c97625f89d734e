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

bool jit_barriers_on_fibers(const spvjit_options *o)
{
    return o->barriers == JIT_BARRIER_MODE_FIBERS;
}

/* --- context ---------------------------------------------------------------------------- */

void jit_ctx_init(lower_ctx *c, const spv_module *m, LLVMContextRef llc)
{
    uint32_t n = m->bound + 1;
    c->llc = llc;
    c->vtypes = calloc(n, sizeof *c->vtypes);
    c->layouts = calloc(n, sizeof *c->layouts);
    c->consts = calloc(n, sizeof *c->consts);
    c->vals = calloc(n, sizeof *c->vals);
    c->blocks = calloc(n, sizeof *c->blocks);
    c->block_ends = calloc(n, sizeof *c->block_ends);
    c->mat_info = calloc(n, sizeof *c->mat_info);
    c->var_slot = malloc(n * sizeof *c->var_slot);
    for (uint32_t i = 0; i < n; i++)
        c->var_slot[i] = SPV_NONE;
    c->var_offset = calloc(n, sizeof *c->var_offset);
    c->globals = calloc(n, sizeof *c->globals);
    c->fns = calloc(m->nfuncs + 1, sizeof *c->fns);
    c->barrier_site = calloc(m->ninsts + 1, sizeof *c->barrier_site);
    if (!llc)
        return;
    c->t_void = LLVMVoidTypeInContext(llc);
    c->t_i1 = LLVMInt1TypeInContext(llc);
    c->t_i8 = LLVMInt8TypeInContext(llc);
    c->t_i16 = LLVMInt16TypeInContext(llc);
    c->t_i32 = LLVMInt32TypeInContext(llc);
    c->t_i64 = LLVMInt64TypeInContext(llc);
    c->t_ptr = LLVMPointerTypeInContext(llc, 0);
    c->fb = LLVMCreateBuilderInContext(llc);
    c->pb = LLVMCreateBuilderInContext(llc);
    c->b = c->fb;
}

void jit_ctx_free(lower_ctx *c)
{
    free(c->vtypes);
    free(c->layouts);
    free(c->consts);
    free(c->vals);
    free(c->blocks);
    free(c->block_ends);
    free(c->mat_info);
    free(c->var_slot);
    free(c->var_offset);
    free(c->globals);
    free(c->fns);
    free(c->reach);
    free(c->used_globals);
    free(c->barrier_site);
    free(c->phis);
    free(c->res);
    free(c->params);
    free(c->spec_ids);
    if (c->fb)
        LLVMDisposeBuilder(c->fb);
    if (c->pb)
        LLVMDisposeBuilder(c->pb);
}

void jit_new_host_module(lower_ctx *c, LLVMTargetMachineRef tm, const char *name)
{
    c->mod = LLVMModuleCreateWithNameInContext(name, c->llc);
    c->td = LLVMCreateTargetDataLayout(tm);
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetModuleDataLayout(c->mod, c->td);
    LLVMSetTarget(c->mod, triple);
    LLVMDisposeMessage(triple);
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
                return -1;
            ls[i] = (uint32_t)v;
        }
        fixed = true;
    }
    const spv_id *wgs = spv_id_get(c->m, c->m->workgroup_size_id);
    if (wgs && wgs->is_composite && wgs->nparts >= 3) {
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            if (!jit_shape_u64(c, wgs->parts[i], &v))
                return -1;
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
    uint32_t *pairs = calloc(2ull * m->bound + 2, sizeof *pairs);
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
    c->spec_ids = calloc(n + 1, sizeof *c->spec_ids);
    for (uint32_t i = 0; i < n; i++) {
        c->spec_ids[i] = pairs[2 * i];
        if (c->unspec)
            c->var_slot[pairs[2 * i + 1]] = i;
    }
    free(pairs);
}

int jit_settle_entry(lower_ctx *c, const spvjit_options *o)
{
    if (settle_local_size(c, o))
        return -1;
    spec_slots(c);
    return 0;
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
            const jit_layout *l = pt ? jit_layout_of(c, pt->elem) : NULL;
            if (l)
                total += l->size;
        }
    }
    return total;
}

int jit_analyze(lower_ctx *c, uint32_t fidx, bool is_entry)
{
    c->reach = calloc(c->m->nfuncs + 1, sizeof *c->reach);
    if (jit_check_recursion(c, fidx))
        return -1;
    jit_mark_reachable(c, fidx, c->reach);
    if (!c->reach || (c->ep && !(c->used_globals = spv_entry_used_globals(c->m, c->ep))))
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
    } else {
        c->params = calloc(1, sizeof *c->params);
    }
    c->fn_var_bytes = function_var_bytes(c);
    return 0;
}

void jit_fill_facts(jit_kernel *k, lower_ctx *c)
{
    spvjit_kernel_facts *f = &k->facts;
    f->is_kernel = c->kernel;
    f->uses_barriers = c->uses_barriers;
    f->nbarrier_sites = c->nbarriers;
    f->local_size_known = c->ls_known;
    memcpy(f->local_size, c->local_size, sizeof f->local_size);
    f->wg_mem_size = c->wg_size;
    f->wg_mem_align = c->wg_align;
    k->params = c->params;
    c->params = NULL;
    k->res = c->res;
    c->res = NULL;
    k->spec_ids = c->spec_ids;
    c->spec_ids = NULL;
    f->nparams = c->nparams;
    f->params = k->params;
    f->nresources = c->nres;
    f->resources = k->res;
    f->nslots = c->nres_slots;
    f->push_constant_size = c->push_size;
    f->nspec = c->unspec ? c->nspec : 0;
    f->spec_ids = k->spec_ids;
    f->stack_estimate = c->item_size + c->fn_var_bytes;
}
