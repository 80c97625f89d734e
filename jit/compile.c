/* jit/compile.c — what the three makers of a kernel share (kernel_internal.h):
 * the start of a compile, its back half (passes, code generation, the texts
 * asked for), the one place where it releases everything, and linking an
 * object into a kernel. */
#include "kernel_internal.h"

#include "barrier_path.h"
#include "lane_redirect.h"
#include "poll.h"
#include "quick_isel.h"
#include "quick_unroll.h"
#include "unbranch.h"
#include "unmask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>

#include "util/timer.h"

/* LLVM's diagnostics go to the build, not to the host's stderr: a library
 * prints nothing of its own, and LLVM's default handler ends the process on
 * an error.  Warnings and remarks (a loop Unroll hint it could not follow)
 * are dropped; the first error fails the build (build_failed_in_llvm). */
static void on_llvm_diagnostic(LLVMDiagnosticInfoRef info, void *user)
{
    jit_build *b = user;
    if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || b->llvm_error[0])
        return;
    char *msg = LLVMGetDiagInfoDescription(info);
    snprintf(b->llvm_error, sizeof b->llvm_error, "%s", msg && *msg ? msg : "an error without a message");
    LLVMDisposeMessage(msg);
}

static bool build_failed_in_llvm(const jit_build *b, spv_diag *diag)
{
    if (!b->llvm_error[0])
        return false;
    spv_fail(diag, "LLVM could not compile the kernel: %s", b->llvm_error);
    return true;
}

int jit_build_begin(jit_build *b, const spv_module *m, const spv_entry_point *ep, const spvjit_options *o,
                    bool with_llvm, const char *name, spv_diag *diag)
{
    memset(b, 0, sizeof *b);
    b->o = o;
    b->t_start = util_now_ms();
    lower_ctx *c = &b->c;
    c->m = m;
    c->ep = ep;
    c->diag = diag;
    c->unspec = o->unspecialized;
    c->kernel = spv_layout_is_opencl(m, ep);
    c->fp_relaxed = jit_fp_relaxed_widths(ep, c->kernel);
    c->fp_contract = jit_fp_contract_allowed(ep, c->kernel);
    c->memory = o->memory;
    c->shape = o->shape_values;
    c->nshape = o->nshape_values;
    c->dispatch = jit_lower_inst; /* the core lowers spec-constant ops on first use through it */
    if (with_llvm) {
        if (!(b->tm = jit_thread_target_machine(jit_level(o), diag)))
            return -1;
        c->llc = LLVMContextCreate();
        LLVMContextSetDiagnosticHandler(c->llc, on_llvm_diagnostic, b);
        /* Names are for a reader of the IR texts; building and copying them
         * is a few percent of a build that shows none. */
        bool ir_text = o->emit && (o->emit_ir || o->emit_opt_ir);
        LLVMContextSetDiscardValueNames(c->llc, !ir_text);
    }
    if (jit_ctx_init(c, c->llc))
        return -1;
    if (with_llvm)
        jit_new_host_module(c, b->tm, name);
    return 0;
}

void jit_build_end(jit_build *b)
{
    lower_ctx *c = &b->c;
    jit_ctx_free(c);
    if (c->td)
        LLVMDisposeTargetData(c->td);
    if (c->mod)
        LLVMDisposeModule(c->mod);
    if (c->llc)
        LLVMContextDispose(c->llc);
    memset(b, 0, sizeof *b);
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

/* Hands text to the emit hook, the barrier path's reason (when the build has
 * one) as its first line. */
static void emit_text(const jit_build *b, const char *what, char *text)
{
    const spvjit_options *o = b->o;
    if (b->barrier_path)
        text = jit_barrier_path_note(b->barrier_path, strcmp(what, "asm") ? ";" : ASM_COMMENT, text);
    if (text && o->emit)
        o->emit(o->emit_user, what, text);
    free(text);
}

/* A compile whose result nobody wants any more stops between steps. */
static bool cancelled(const spvjit_options *o, spv_diag *diag)
{
    if (!o->cancel || !atomic_load_explicit(o->cancel, memory_order_relaxed))
        return false;
    spv_fail(diag, "cancelled");
    return true;
}

LLVMMemoryBufferRef jit_build_object(jit_build *b)
{
    const spvjit_options *o = b->o;
    LLVMModuleRef mod = b->c.mod;
    spv_diag *diag = b->c.diag;
    b->t_lowered = util_now_ms();
    if (o->emit && o->emit_ir)
        emit_text(b, "ir", jit_emit_ir(mod));
    if (cancelled(o, diag) || jit_optimize(mod, b->tm, jit_level(o), diag) || build_failed_in_llvm(b, diag))
        return NULL;
    if (o->memory == JIT_MEMORY_ROBUST)
        jit_unbranch_guards(mod, b->c.td);
    if (jit_unmask_full_lanes(mod) < 0) {
        spv_fail(diag, "out of memory");
        return NULL;
    }
    jit_redirect_masked_lanes(mod);  /* after unmask.c, whose copies for full sub-groups have all lanes on */
    if (jit_insert_polls(mod) < 0) { /* after the passes: they never see a poll */
        spv_fail(diag, "internal error: inserting the stop polls (out of memory, or a group function "
                       "without its load of the stop flag)");
        return NULL;
    }
    if (jit_level(o) == JIT_LEVEL_QUICK && (jit_quick_unroll(mod) < 0 || jit_quick_isel_expand(mod) < 0)) {
        /* the last rewrites: see quick_unroll.h, quick_isel.h */
        spv_fail(diag, "out of memory");
        return NULL;
    }
    b->t_optimized = util_now_ms();
    if (cancelled(o, diag))
        return NULL;
    if (o->emit && o->emit_opt_ir)
        emit_text(b, "opt-ir", jit_emit_ir(mod));
    if (o->emit && o->emit_asm)
        emit_text(b, "asm", jit_emit_asm(mod, b->tm, diag));
    LLVMMemoryBufferRef obj = jit_emit_object(mod, b->tm, diag);
    if (obj && build_failed_in_llvm(b, diag)) {
        LLVMDisposeMemoryBuffer(obj);
        return NULL;
    }
    return obj;
}

int jit_kernel_link(jit_kernel *k, LLVMMemoryBufferRef obj, unsigned syms, spv_diag *diag)
{
    const char *names[3] = { (syms & JIT_HAS_WG_RANGE) ? JIT_SYM_WG_RANGE : NULL,
                             (syms & JIT_HAS_ITEM) ? JIT_SYM_ITEM : NULL,
                             (syms & JIT_HAS_WG_INIT) ? JIT_SYM_WG_INIT : NULL };
    void *addrs[3];
    k->code = jit_link_object(obj, names, addrs, 3, diag);
    if (!k->code)
        return -1;
    k->wg_range = (spvjit_wg_range_fn)addrs[0];
    k->item = (spvjit_item_fn)addrs[1];
    k->wg_init = (spvjit_wg_fn)addrs[2];
    return 0;
}
