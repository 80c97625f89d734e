/* jit/jit.c — spvjit_compile(): entry point → LLVM module → O3 → native code.
 *
 * Order: find the entry point, settle the local size and (unspecialized) the
 * spec-constant slots, number the barrier sites, reject recursion, lay out
 * module-scope memory, lower every function reachable from the entry point,
 * build the work-group functions (workgroup.c), verify, optimize, JIT.
 */
#include "jit_internal.h"
#include "lower_ctx.h"
#include "regions.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <llvm-c/Analysis.h>

struct jit_kernel {
    LLVMOrcLLJITRef jit;
    spvjit_kernel_facts facts;
    spvjit_wg_fn wg, wg_init;
    spvjit_item_fn item;
    spvjit_param *params;
    spvjit_resource *res;
    uint32_t *spec_ids;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --- setup ------------------------------------------------------------------------------ */

static int settle_local_size(lower_ctx *c, const spvjit_options *o)
{
    const spv_entry_point *ep = c->ep;
    bool fixed = false;
    uint32_t ls[3] = {1, 1, 1};
    if (ep->has_local_size) { memcpy(ls, ep->local_size, sizeof ls); fixed = true; }
    if (ep->has_local_size_id) {
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            if (!jit_shape_u64(c, ep->local_size_id[i], &v)) return -1;
            ls[i] = (uint32_t)v;
        }
        fixed = true;
    }
    const spv_id *wgs = spv_id_get(c->m, c->m->workgroup_size_id);
    if (wgs && wgs->is_composite && wgs->nparts >= 3) {
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            if (!jit_shape_u64(c, wgs->parts[i], &v)) return -1;
            ls[i] = (uint32_t)v;
        }
        fixed = true;
    }
    bool given = o->local_size[0] || o->local_size[1] || o->local_size[2];
    if (given) {
        for (int i = 0; i < 3; i++) {
            uint32_t g = o->local_size[i] ? o->local_size[i] : 1;
            if (fixed && g != ls[i])
                return jit_fail(c, "entry point %s has a fixed local size %ux%ux%u; %ux%ux%u was asked for",
                                ep->name, ls[0], ls[1], ls[2], o->local_size[0], o->local_size[1], o->local_size[2]);
            ls[i] = g;
        }
    }
    if (!fixed && !given) return 0;
    if (!ls[0] || !ls[1] || !ls[2]) return jit_fail(c, "local size %ux%ux%u has a zero dimension", ls[0], ls[1], ls[2]);
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
        if (!in || d->spec_id == SPV_NONE) continue;
        if (in->opcode != SpvOpSpecConstant && in->opcode != SpvOpSpecConstantTrue &&
            in->opcode != SpvOpSpecConstantFalse) continue;
        pairs[2 * n] = d->spec_id;
        pairs[2 * n + 1] = id;
        n++;
    }
    qsort(pairs, n, 2 * sizeof *pairs, cmp_u32pair);
    c->nspec = n;
    c->spec_ids = calloc(n + 1, sizeof *c->spec_ids);
    for (uint32_t i = 0; i < n; i++) {
        c->spec_ids[i] = pairs[2 * i];
        if (c->unspec) c->var_slot[pairs[2 * i + 1]] = i;
    }
    free(pairs);
}

static void number_barriers(lower_ctx *c, const bool *reach)
{
    for (uint32_t f = 0; f < c->m->nfuncs; f++) {
        if (!reach[f]) continue;
        const spv_function *fn = &c->m->funcs[f];
        for (uint32_t b = 0; b < fn->nblocks; b++)
            for (uint32_t i = fn->blocks[b].first; i < fn->blocks[b].end; i++) {
                const spv_inst *in = &c->m->insts[i];
                unsigned n = jit_barrier_sites(c, in);
                if (!n) continue;
                c->barrier_site[i] = c->nbarriers + 1;   /* first site + 1; a collective takes two */
                c->nbarriers += n;
                uint64_t slot = jit_wg_scratch_slot(c, in);
                if (slot > c->wg_scratch_slot) c->wg_scratch_slot = slot;
            }
    }
    c->uses_barriers = c->nbarriers > 0;
}

static uint64_t function_var_bytes(lower_ctx *c, const bool *reach)
{
    uint64_t total = 0;
    for (uint32_t f = 0; f < c->m->nfuncs; f++) {
        if (!reach[f] || !c->m->funcs[f].nblocks) continue;
        const spv_block *b = &c->m->funcs[f].blocks[0];
        for (uint32_t i = b->first; i < b->end; i++) {
            const spv_inst *in = &c->m->insts[i];
            if (in->opcode != SpvOpVariable) continue;
            const spv_type *pt = spv_type_get(c->m, in->type_id);
            const jit_layout *l = pt ? jit_layout_of(c, pt->elem) : NULL;
            if (l) total += l->size;
        }
    }
    return total;
}

static void ctx_init(lower_ctx *c, const spv_module *m, LLVMContextRef llc)
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
    for (uint32_t i = 0; i < n; i++) c->var_slot[i] = SPV_NONE;
    c->var_offset = calloc(n, sizeof *c->var_offset);
    c->globals = calloc(n, sizeof *c->globals);
    c->fns = calloc(m->nfuncs + 1, sizeof *c->fns);
    c->barrier_site = calloc(m->ninsts + 1, sizeof *c->barrier_site);
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

static void ctx_free(lower_ctx *c)
{
    free(c->vtypes); free(c->layouts); free(c->consts); free(c->vals); free(c->blocks);
    free(c->block_ends); free(c->mat_info); free(c->var_slot); free(c->var_offset); free(c->globals);
    free(c->fns); free(c->barrier_site); free(c->phis); free(c->res); free(c->params); free(c->spec_ids);
    if (c->fb) LLVMDisposeBuilder(c->fb);
    if (c->pb) LLVMDisposeBuilder(c->pb);
}

/* --- lowering --------------------------------------------------------------------------------- */

static int lower_module(lower_ctx *c, uint32_t entry)
{
    bool *reach = calloc(c->m->nfuncs + 1, sizeof *reach);
    int rc = -1;
    if (jit_check_recursion(c, entry)) goto out;
    jit_mark_reachable(c, entry, reach);
    number_barriers(c, reach);
    if (jit_create_module_globals(c) || jit_declare_functions(c)) goto out;
    if (c->wg_scratch_slot) {
        /* work-group collectives: one slot per work-item after the Workgroup variables */
        if (!c->ls_known) {
            jit_fail(c, "entry point %s uses work-group collective operations, which need a local size "
                        "fixed at compile time", c->ep->name);
            goto out;
        }
        c->wg_scratch_offset = (c->wg_size + 15) & ~15ull;
        c->wg_size = c->wg_scratch_offset +
                     c->wg_scratch_slot * c->local_size[0] * c->local_size[1] * c->local_size[2];
    }
    if (c->kernel && jit_kernel_params(c, entry)) goto out;
    if (!c->kernel) c->params = calloc(1, sizeof *c->params);
    for (uint32_t f = 0; f < c->m->nfuncs; f++)
        if (reach[f] && !c->m->funcs[f].is_declaration && jit_lower_function(c, f)) goto out;
    c->fn = NULL;
    if (jit_build_entry_functions(c, entry)) goto out;
    c->item_size += function_var_bytes(c, reach);
    rc = 0;
out:
    free(reach);
    return rc;
}

static int verify(lower_ctx *c)
{
    char *msg = NULL;
    if (!LLVMVerifyModule(c->mod, LLVMReturnStatusAction, &msg)) { LLVMDisposeMessage(msg); return 0; }
    jit_fail(c, "internal error: the lowered LLVM module does not verify (a JIT bug): %.1500s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
}

static void emit_text(const spvjit_options *o, const char *what, char *text)
{
    if (text && o->emit) o->emit(o->emit_user, what, text);
    free(text);
}

static void fill_facts(jit_kernel *k, lower_ctx *c)
{
    spvjit_kernel_facts *f = &k->facts;
    f->is_kernel = c->kernel;
    f->uses_barriers = c->uses_barriers;
    f->nbarrier_sites = c->nbarriers;
    f->local_size_known = c->ls_known;
    memcpy(f->local_size, c->local_size, sizeof f->local_size);
    f->wg_mem_size = c->wg_size;
    f->wg_mem_align = c->wg_align;
    k->params = c->params; c->params = NULL;
    k->res = c->res; c->res = NULL;
    k->spec_ids = c->spec_ids; c->spec_ids = NULL;
    f->nparams = c->nparams; f->params = k->params;
    f->nresources = c->nres; f->resources = k->res;
    f->nslots = c->nres_slots;
    f->push_constant_size = c->push_size;
    f->nspec = c->unspec ? c->nspec : 0;
    f->spec_ids = k->spec_ids;
    f->stack_estimate = c->item_size;
}

static const spv_entry_point *find_entry(const spv_module *m, const char *name, spv_diag *diag)
{
    const spv_entry_point *ep = spv_find_entry(m, name);
    if (!ep) {
        spv_fail(diag, "%s: no entry point %s%s%s", m->source ? m->source : "<memory>",
                 name ? "named '" : "", name ? name : "(compute)", name ? "'" : "");
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

/* Barrier kernels stay on fibers when asked (option or SPVJIT_BARRIERS=fibers). */
static bool barriers_on_fibers(const spvjit_options *o)
{
    const char *e = getenv("SPVJIT_BARRIERS");
    return o->barrier_fibers || (e && !strcmp(e, "fibers"));
}

jit_kernel *spvjit_compile(const spv_module *m, const char *entry, const spvjit_options *opts, spv_diag *diag)
{
    static const spvjit_options defaults = {.opt_level = 3};
    const spvjit_options *o = opts ? opts : &defaults;
    const spv_entry_point *ep = find_entry(m, entry, diag);
    if (!ep) return NULL;
    double t0 = now_ms();
    LLVMTargetMachineRef tm = jit_host_target_machine(o->opt_level, diag);
    if (!tm) return NULL;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    lower_ctx c = {.m = m, .ep = ep, .diag = diag, .unspec = o->unspecialized, .kernel = m->is_kernel && !m->is_shader,
                   .shape = o->shape_values, .nshape = o->nshape_values};
    if (ep->model == SpvExecutionModelKernel) c.kernel = true;
    ctx_init(&c, m, LLVMOrcThreadSafeContextGetContext(tsc));
    c.mod = LLVMModuleCreateWithNameInContext(ep->name, c.llc);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetModuleDataLayout(c.mod, td);
    LLVMSetTarget(c.mod, triple);
    LLVMDisposeMessage(triple);
    c.td = td;
    jit_kernel *k = calloc(1, sizeof *k);
    LLVMModuleRef mod = c.mod;
    bool ok = !settle_local_size(&c, o), regions = false;
    if (ok) spec_slots(&c);
    ok = ok && !lower_module(&c, ep->func) && !verify(&c);
    if (ok && c.uses_barriers && !barriers_on_fibers(o))
        ok = !jit_regions_build(&c, &regions) && !verify(&c);
    double t1 = now_ms();
    if (ok && o->emit && o->emit_ir) emit_text(o, "ir", jit_emit_ir(mod));
    ok = ok && !jit_optimize(mod, tm, o->opt_level, diag);
    double t2 = now_ms();
    if (ok && o->emit && o->emit_opt_ir) emit_text(o, "opt-ir", jit_emit_ir(mod));
    if (ok && o->emit && o->emit_asm) emit_text(o, "asm", jit_emit_asm(mod, tm, diag));
    if (ok) fill_facts(k, &c);
    k->facts.barrier_regions = regions;
    bool wg = !c.uses_barriers || regions, item = !regions;
    const char *names[3] = {wg ? JIT_SYM_WG : NULL, item ? JIT_SYM_ITEM : NULL, c.has_wg_init ? JIT_SYM_WG_INIT : NULL};
    ctx_free(&c);
    LLVMDisposeTargetData(td);
    LLVMDisposeTargetMachine(tm);
    if (!ok) {
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        spvjit_kernel_free(k);
        return NULL;
    }
    void *addrs[3];
    k->jit = jit_codegen(tsc, mod, o->opt_level, names, addrs, 3, diag);
    if (!k->jit) { spvjit_kernel_free(k); return NULL; }
    k->wg = (spvjit_wg_fn)addrs[0];
    k->item = (spvjit_item_fn)addrs[1];
    k->wg_init = (spvjit_wg_fn)addrs[2];
    double t3 = now_ms();
    k->facts.ms_lower = t1 - t0;
    k->facts.ms_passes = t2 - t1;
    k->facts.ms_codegen = t3 - t2;
    return k;
}

void spvjit_kernel_free(jit_kernel *k)
{
    if (!k) return;
    if (k->jit) LLVMOrcDisposeLLJIT(k->jit);
    free(k->params);
    free(k->res);
    free(k->spec_ids);
    free(k);
}

const spvjit_kernel_facts *spvjit_kernel_facts_of(const jit_kernel *k) { return &k->facts; }
spvjit_wg_fn spvjit_kernel_wg_fn(const jit_kernel *k) { return k->wg; }
spvjit_item_fn spvjit_kernel_item_fn(const jit_kernel *k) { return k->item; }
spvjit_wg_fn spvjit_kernel_wg_init_fn(const jit_kernel *k) { return k->wg_init; }
