/* jit/jit.c — spvjit_compile(): entry point → LLVM module → passes → native code.
 *
 * Order: find the entry point, settle the local size and (unspecialized) the
 * spec-constant slots, analyze what the entry reaches (analyze.c: barrier
 * sites, recursion, module-scope memory), lower every reachable function,
 * build the work-group functions (workgroup.c), verify, compile barriers into
 * regions where possible (barrier_path.c), optimize at the tier asked for
 * (optimize.c), emit a relocatable object and link it into the JIT (emit.c),
 * keeping optimized code for the disk cache when asked (object.c).
 */
#include "kernel_internal.h"
#include "util/timer.h"
#include "barrier_path.h"
#include "contract.h"

#include <stdlib.h>

static int lower_module(lower_ctx *c, uint32_t entry)
{
    if (jit_analyze(c, entry, true) || jit_declare_functions(c))
        return -1;
    for (uint32_t f = 0; f < c->m->nfuncs; f++)
        if (c->reach[f] && !c->m->funcs[f].is_declaration && jit_lower_function(c, f))
            return -1;
    c->fn = NULL;
    jit_contract(c->mod); /* before any pass: the same pairs on both tiers */
    return jit_build_entry_functions(c, entry);
}

typedef struct entry_steps {
    const spvjit_options *o;
    jit_barrier_path path; /* regions, fibers or none, and why */
} entry_steps;

unsigned jit_subgroup_size_asked(const spvjit_options *o)
{
    if (o->simd == JIT_SIMD_OFF)
        return 1;
    return o->subgroup_size ? o->subgroup_size : jit_host_lanes32();
}

/* Everything that makes LLVM IR, with the out-of-memory exit armed. */
static int lower_entry(lower_ctx *c, void *user)
{
    entry_steps *s = user;
    const spvjit_options *o = s->o;
    if (o->simd == JIT_SIMD_OFF && o->subgroup_size > 1)
        return jit_fail(c, "sub-groups of %u work-items need the SIMD path, and simd is off", o->subgroup_size);
    /* the barrier-free range is built as the lowering ends: it reads these */
    c->simd_width = jit_subgroup_size_asked(o);
    c->simd_narrow = !o->subgroup_size;
    c->simd_observed_only = c->quick = jit_level(o) == JIT_LEVEL_QUICK;
    if (jit_settle_entry(c, o) || lower_module(c, c->ep->func) || jit_verify(c) ||
        jit_choose_barrier_path(c, o->barriers, &s->path))
        return -1;
    if (o->subgroup_size > 1 && s->path.subgroup_size != o->subgroup_size)
        return jit_fail(c, "entry point %s: sub-groups of %u work-items were asked for, but %s", c->ep->name,
                        o->subgroup_size, s->path.simd);
    return 0;
}

jit_kernel *spvjit_compile(const spv_module *m, const char *entry, const spvjit_options *opts, spv_diag *diag)
{
    static const spvjit_options defaults = { .opt_level = 3 };
    const spvjit_options *o = opts ? opts : &defaults;
    const spv_entry_point *ep = jit_find_entry(m, entry, diag);
    if (!ep)
        return NULL;
    jit_build b = { 0 };
    entry_steps steps = { .o = o };
    jit_kernel *k = calloc(1, sizeof *k);
    if (!k)
        spv_fail(diag, "out of memory");
    bool ok = k && !jit_build_begin(&b, m, ep, o, true, ep->name, diag);
    ok = ok && !jit_run_guarded(&b.c, lower_entry, &steps);
    b.barrier_path = &steps.path; /* the texts say which path the barriers took */
    LLVMMemoryBufferRef obj = ok ? jit_build_object(&b) : NULL;
    ok = obj && !jit_fill_facts(k, &b.c);
    bool regions = steps.path.kind == JIT_BARRIERS_REGIONS;
    bool wg = !b.c.uses_barriers || regions, item = !wg;
    unsigned syms = (wg ? JIT_HAS_WG_RANGE : 0) | (item ? JIT_HAS_ITEM : 0) | (b.c.has_wg_init ? JIT_HAS_WG_INIT : 0);
    double t0 = b.t_start, t1 = b.t_lowered, t2 = b.t_optimized;
    jit_build_end(&b);
    if (ok) {
        k->facts.barrier_regions = regions;
        k->facts.subgroup_size = steps.path.subgroup_size;
        bool keep = o->keep_object && jit_level(o) != JIT_LEVEL_QUICK; /* only optimized code travels */
        if (keep && jit_keep_object(k, syms, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj))) {
            spv_fail(diag, "out of memory keeping the object file");
            ok = false;
        }
    }
    if (!ok || jit_kernel_link(k, obj, syms, diag)) {
        if (obj && !ok)
            LLVMDisposeMemoryBuffer(obj);
        spvjit_kernel_free(k);
        return NULL;
    }
    k->facts.ms_lower = t1 - t0;
    k->facts.ms_passes = t2 - t1;
    k->facts.ms_codegen = util_now_ms() - t2;
    return k;
}

void spvjit_kernel_free_code(jit_kernel *k)
{
    if (k && k->code) {
        jit_code_free(k->code);
        k->code = NULL;
        k->wg_range = NULL;
        k->wg_init = NULL;
        k->item = NULL;
        k->export_fn = NULL;
    }
}

void spvjit_kernel_free(jit_kernel *k)
{
    if (!k)
        return;
    spvjit_kernel_free_code(k);
    free(k->params);
    free(k->res);
    free(k->spec_ids);
    free(k->blob);
    free(k);
}

const spvjit_kernel_facts *spvjit_kernel_facts_of(const jit_kernel *k)
{
    return &k->facts;
}
spvjit_wg_range_fn spvjit_kernel_wg_range_fn(const jit_kernel *k)
{
    return k->wg_range;
}
spvjit_item_fn spvjit_kernel_item_fn(const jit_kernel *k)
{
    return k->item;
}
spvjit_wg_fn spvjit_kernel_wg_init_fn(const jit_kernel *k)
{
    return k->wg_init;
}
