/* jit/lower_ctx.c — the lowering context: its arena and tables, the one exit
 * for running out of memory, and failure messages (the contract is in
 * lower_ctx.h). */
#include "lower_ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t arena_limit_for_tests;

void jit_set_arena_limit_for_tests(size_t bytes)
{
    arena_limit_for_tests = bytes;
}

static _Noreturn void out_of_memory(lower_ctx *c)
{
    c->failed = false; /* this is the failure to report, whatever came before */
    jit_fail(c, "out of memory (the compile holds %zu bytes)", c->arena.reserved);
    if (!c->oom_exit) {
        /* a JIT bug: every step that allocates runs under jit_run_guarded */
        fprintf(stderr, "spvjit: internal error: %s (outside jit_run_guarded)\n", c->diag->msg);
        abort();
    }
    longjmp(*c->oom_exit, 1);
}

void *jit_alloc(lower_ctx *c, size_t n, size_t size)
{
    void *p = util_arena_array(&c->arena, n ? n : 1, size);
    if (!p)
        out_of_memory(c);
    return p;
}

int jit_run_guarded(lower_ctx *c, int (*step)(lower_ctx *c, void *user), void *user)
{
    jmp_buf exit, *outer = c->oom_exit;
    int rc;
    c->oom_exit = &exit;
    if (setjmp(exit) == 0)
        rc = step(c, user);
    else
        rc = -1;
    c->oom_exit = outer;
    return rc;
}

static int alloc_tables(lower_ctx *c, void *user)
{
    (void)user;
    const spv_module *m = c->m;
    size_t n = (size_t)m->bound + 1;
    c->vtypes = jit_alloc(c, n, sizeof *c->vtypes);
    c->compat = jit_alloc(c, n, sizeof *c->compat);
    memset(c->compat, -1, n);
    c->consts = jit_alloc(c, n, sizeof *c->consts);
    c->vals = jit_alloc(c, n, sizeof *c->vals);
    c->bnd = jit_alloc(c, n, sizeof *c->bnd);
    c->shadow = jit_alloc(c, n, sizeof *c->shadow);
    c->blocks = jit_alloc(c, n, sizeof *c->blocks);
    c->block_ends = jit_alloc(c, n, sizeof *c->block_ends);
    c->mat_info = jit_alloc(c, n, sizeof *c->mat_info);
    c->var_slot = jit_alloc(c, n, sizeof *c->var_slot);
    for (size_t i = 0; i < n; i++)
        c->var_slot[i] = SPV_NONE;
    c->var_offset = jit_alloc(c, n, sizeof *c->var_offset);
    c->globals = jit_alloc(c, n, sizeof *c->globals);
    c->fns = jit_alloc(c, m->nfuncs + 1, sizeof *c->fns);
    c->reach = jit_alloc(c, m->nfuncs + 1, sizeof *c->reach);
    c->barrier_site = jit_alloc(c, m->ninsts + 1, sizeof *c->barrier_site);
    spv_shape shape = { .m = m, .values = c->shape, .nvalues = c->nshape };
    c->layouts = spv_layouts_new(m, c->kernel, &shape, &c->arena, c->diag);
    if (!c->layouts)
        out_of_memory(c);
    return 0;
}

int jit_ctx_init(lower_ctx *c, LLVMContextRef llc)
{
    util_arena_init(&c->arena, arena_limit_for_tests);
    c->llc = llc;
    if (llc) {
        c->t_void = LLVMVoidTypeInContext(llc);
        c->t_i1 = LLVMInt1TypeInContext(llc);
        c->t_i8 = LLVMInt8TypeInContext(llc);
        c->t_i16 = LLVMInt16TypeInContext(llc);
        c->t_i32 = LLVMInt32TypeInContext(llc);
        c->t_i64 = LLVMInt64TypeInContext(llc);
        c->t_ptr = LLVMPointerTypeInContext(llc, 0);
        c->fb = LLVMCreateBuilderInContext(llc);
        c->pb = LLVMCreateBuilderInContext(llc);
        c->xb = LLVMCreateBuilderInContext(llc);
        c->b = c->fb;
    }
    return jit_run_guarded(c, alloc_tables, NULL);
}

void jit_ctx_free(lower_ctx *c)
{
    if (c->fb)
        LLVMDisposeBuilder(c->fb);
    if (c->pb)
        LLVMDisposeBuilder(c->pb);
    if (c->xb)
        LLVMDisposeBuilder(c->xb);
    c->fb = c->pb = c->xb = c->b = NULL;
    util_array_fini(&c->phis);
    free(c->used_globals);
    c->used_globals = NULL;
    util_arena_fini(&c->arena);
    c->layouts = NULL;
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

/* --- failure ------------------------------------------------------------------- */

static void vfail(lower_ctx *c, const spv_inst *in, const char *fmt, va_list ap)
{
    if (c->failed)
        return; /* the first failure is the cause; the rest is its unwinding */
    c->failed = true;
    char msg[1024], dis[512] = "";
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (in)
        spv_disasm_inst(c->m, in, dis, sizeof dis);
    const char *fn = (c->fn && c->m->ids[c->fn->id].name) ? c->m->ids[c->fn->id].name : NULL;
    spv_fail(c->diag, "%s: %s%s%s%s%s", c->m->source ? c->m->source : "<memory>", fn ? "in function " : "",
             fn ? fn : "", fn ? ": " : "", in ? dis : "", in ? ": " : "");
    spv_diag_append(c->diag, "%s", msg);
}

int jit_fail_inst(lower_ctx *c, const spv_inst *in, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, in, fmt, ap);
    va_end(ap);
    return -1;
}

int jit_fail(lower_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(c, NULL, fmt, ap);
    va_end(ap);
    return -1;
}

const char *jit_name_of(lower_ctx *c, uint32_t id)
{
    const char *n = id < c->m->bound ? c->m->ids[id].name : NULL;
    return n ? n : "unnamed";
}
