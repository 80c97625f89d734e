/* jit/jit.c — spvjit_compile(): entry point → LLVM module → O3 → native code.
 *
 * Order: find the entry point, settle the local size and (unspecialized) the
 * spec-constant slots, analyze what the entry reaches (analyze.c: barrier
 * sites, recursion, module-scope memory), lower every reachable function,
 * build the work-group functions (workgroup.c), verify, compile barriers into
 * regions where possible (barrier_path.c), optimize, emit a relocatable object and
 * link it into the JIT (emit.c), keeping it for the disk cache when asked
 * (object.c).
 */
#include "kernel_internal.h"
#include "util/timer.h"
#include "barrier_path.h"

#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>

static int lower_module(lower_ctx *c, uint32_t entry)
{
    if (jit_analyze(c, entry, true) || jit_declare_functions(c))
        return -1;
    for (uint32_t f = 0; f < c->m->nfuncs; f++)
        if (c->reach[f] && !c->m->funcs[f].is_declaration && jit_lower_function(c, f))
            return -1;
    c->fn = NULL;
    return jit_build_entry_functions(c, entry);
}

int jit_verify(lower_ctx *c)
{
    char *msg = NULL;
    if (!LLVMVerifyModule(c->mod, LLVMReturnStatusAction, &msg)) {
        LLVMDisposeMessage(msg);
        return 0;
    }
    jit_fail(c, "internal error: the lowered LLVM module does not verify (a JIT bug): %.1500s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
}

/* The host assembler's line comment (the JIT compiles for the host). */
#if defined(__aarch64__)
#define ASM_COMMENT "//"
#else
#define ASM_COMMENT "#"
#endif

/* Hands text to the emit hook, the barrier path's reason as its first line. */
static void emit_text(const spvjit_options *o, const char *what, const jit_barrier_path *path, char *text)
{
    text = jit_barrier_path_note(path, strcmp(what, "asm") ? ";" : ASM_COMMENT, text);
    if (text && o->emit)
        o->emit(o->emit_user, what, text);
    free(text);
}

jit_kernel *spvjit_compile(const spv_module *m, const char *entry, const spvjit_options *opts, spv_diag *diag)
{
    static const spvjit_options defaults = { .opt_level = 3 };
    const spvjit_options *o = opts ? opts : &defaults;
    const spv_entry_point *ep = jit_find_entry(m, entry, diag);
    if (!ep)
        return NULL;
    double t0 = util_now_ms();
    LLVMTargetMachineRef tm = jit_host_target_machine(o->opt_level, diag);
    if (!tm)
        return NULL;
    LLVMContextRef llc = LLVMContextCreate();
    lower_ctx c = { .m = m,
                    .ep = ep,
                    .diag = diag,
                    .unspec = o->unspecialized,
                    .kernel = m->is_kernel && !m->is_shader,
                    .shape = o->shape_values,
                    .nshape = o->nshape_values };
    if (ep->model == SpvExecutionModelKernel)
        c.kernel = true;
    jit_ctx_init(&c, m, llc);
    jit_new_host_module(&c, tm, ep->name);
    jit_kernel *k = calloc(1, sizeof *k);
    LLVMModuleRef mod = c.mod;
    jit_barrier_path path = { 0 };
    bool ok = !jit_settle_entry(&c, o);
    ok = ok && !lower_module(&c, ep->func) && !jit_verify(&c);
    ok = ok && !jit_choose_barrier_path(&c, jit_barriers_on_fibers(o), &path);
    bool regions = path.kind == JIT_BARRIERS_REGIONS;
    double t1 = util_now_ms();
    if (ok && o->emit && o->emit_ir)
        emit_text(o, "ir", &path, jit_emit_ir(mod));
    ok = ok && !jit_optimize(mod, tm, o->opt_level, diag);
    double t2 = util_now_ms();
    if (ok && o->emit && o->emit_opt_ir)
        emit_text(o, "opt-ir", &path, jit_emit_ir(mod));
    if (ok && o->emit && o->emit_asm)
        emit_text(o, "asm", &path, jit_emit_asm(mod, tm, diag));
    LLVMMemoryBufferRef obj = ok ? jit_emit_object(mod, tm, diag) : NULL;
    ok = ok && obj;
    if (ok)
        jit_fill_facts(k, &c);
    k->facts.barrier_regions = regions;
    bool wg = !c.uses_barriers || regions, item = !regions;
    const char *names[3] = { wg ? JIT_SYM_WG : NULL, item ? JIT_SYM_ITEM : NULL,
                             c.has_wg_init ? JIT_SYM_WG_INIT : NULL };
    jit_ctx_free(&c);
    LLVMDisposeTargetData(c.td);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llc);
    unsigned syms = (wg ? JIT_HAS_WG : 0) | (item ? JIT_HAS_ITEM : 0) | (names[2] ? JIT_HAS_WG_INIT : 0);
    if (ok && o->keep_object && jit_keep_object(k, syms, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj))) {
        spv_fail(diag, "out of memory keeping the object file");
        ok = false;
    }
    if (!ok) {
        if (obj)
            LLVMDisposeMemoryBuffer(obj);
        spvjit_kernel_free(k);
        return NULL;
    }
    void *addrs[3];
    k->jit = jit_link_object(obj, o->opt_level, names, addrs, 3, diag);
    if (!k->jit) {
        spvjit_kernel_free(k);
        return NULL;
    }
    k->wg = (spvjit_wg_fn)addrs[0];
    k->item = (spvjit_item_fn)addrs[1];
    k->wg_init = (spvjit_wg_fn)addrs[2];
    double t3 = util_now_ms();
    k->facts.ms_lower = t1 - t0;
    k->facts.ms_passes = t2 - t1;
    k->facts.ms_codegen = t3 - t2;
    return k;
}

void spvjit_kernel_free(jit_kernel *k)
{
    if (!k)
        return;
    if (k->jit)
        LLVMOrcDisposeLLJIT(k->jit);
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
spvjit_wg_fn spvjit_kernel_wg_fn(const jit_kernel *k)
{
    return k->wg;
}
spvjit_item_fn spvjit_kernel_item_fn(const jit_kernel *k)
{
    return k->item;
}
spvjit_wg_fn spvjit_kernel_wg_init_fn(const jit_kernel *k)
{
    return k->wg_init;
}
