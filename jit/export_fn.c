/* jit/export_fn.c — spvjit_compile_function(): one SPIR-V function as a
 * native function with its C signature (for spvjit_call_exported).
 *
 * The lowered SPIR-V function takes two hidden pointers first (the work-group
 * context and the work-item state, see lower_ctx.h); the exported wrapper
 *   <result> spvjit_export(<parameters>)
 * makes both on its stack for a dispatch of one work-item (ids 0, sizes 1),
 * initializes the Private variables (and, where the function reaches them,
 * the Workgroup ones), converts C bool to and from i1 and calls the function,
 * which LLVM inlines.
 */
#include "kernel_internal.h"
#include "sg_marker.h"
#include "util/timer.h"
#include "spirv/interface.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JIT_SYM_EXPORT "spvjit_export"

/* Work-group memory a called function may use at most (it lives on the caller's stack). */
#define EXPORT_MAX_WG_BYTES (256u << 10)

/* The C-side LLVM type of a parameter or the result: bool as i8; NULL + diag
 * for what has no plain C form. */
static LLVMTypeRef c_type(lower_ctx *c, const char *fname, uint32_t type_id, const char *what, bool *is_bool)
{
    const spv_type *t = jit_spv_type(c, type_id);
    if (!t)
        return NULL;
    *is_bool = false;
    switch (t->kind) {
    case SPV_TYPE_VOID:
        return c->t_void;
    case SPV_TYPE_BOOL:
        *is_bool = true;
        return c->t_i8;
    case SPV_TYPE_INT:
        if (t->width == 8 || t->width == 16 || t->width == 32 || t->width == 64)
            return jit_type(c, type_id);
        break;
    case SPV_TYPE_FLOAT:
        if (t->width == 32 || t->width == 64)
            return jit_type(c, type_id);
        break;
    case SPV_TYPE_POINTER:
        return c->t_ptr;
    default:
        break;
    }
    char name[256];
    spv_type_name(c->m, type_id, name, sizeof name);
    jit_fail(c,
             "function %s: %s has type %s, which host C cannot pass (bool, integers, float, double and "
             "pointers only)",
             fname, what, name);
    return NULL;
}

static LLVMValueRef zeroed_alloca(lower_ctx *c, uint64_t size, unsigned align, const char *name)
{
    LLVMValueRef a = LLVMBuildAlloca(c->b, LLVMArrayType2(c->t_i8, size ? size : 1), name);
    LLVMSetAlignment(a, align);
    LLVMBuildMemSet(c->b, a, LLVMConstInt(c->t_i8, 0, 0), LLVMConstInt(c->t_i64, size ? size : 1, 0), align);
    return a;
}

/* Whether a reached function names a module-scope Workgroup variable. */
static bool reaches_workgroup_vars(lower_ctx *c)
{
    const spv_module *m = c->m;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        if (!c->reach[f])
            continue;
        const spv_function *fn = &m->funcs[f];
        for (uint32_t b = 0; b < fn->nblocks; b++)
            for (uint32_t i = fn->blocks[b].first; i < fn->blocks[b].end; i++)
                for (uint32_t k = 0; k < spv_inst_nops(&m->insts[i]); k++) {
                    uint32_t id = spv_inst_op(&m->insts[i], k);
                    const spv_id *d = spv_id_get(m, id);
                    if (d && d->kind == SPV_ID_GLOBAL_VARIABLE && jit_var_storage(c, id) == SpvStorageClassWorkgroup)
                        return true;
                }
    }
    return false;
}

/* The ctx of a 1x1x1 dispatch: a constant (compiled code reads the ctx with
 * invariant loads, jit/lower_access.c, so it must not be built by stores). */
static LLVMValueRef one_item_ctx(lower_ctx *c)
{
    spvjit_wg_ctx one;
    memset(&one, 0, sizeof one);
    for (unsigned i = 0; i < 3; i++) {
        one.num_groups[i] = one.enqueued_local_size[i] = one.local_size[i] = 1;
        one.global_size[i] = 1;
    }
    one.work_dim = 1;
    LLVMValueRef init = LLVMConstStringInContext(c->llc, (const char *)&one, sizeof one, 1);
    LLVMValueRef g = LLVMAddGlobal(c->mod, LLVMTypeOf(init), "spvjit.one.item.ctx");
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, 16);
    return g;
}

static int build_export(lower_ctx *c, uint32_t fidx, const char *fname)
{
    const spv_function *f = &c->m->funcs[fidx];
    const spv_type *ft = jit_spv_type(c, f->fn_type);
    if (!ft)
        return -1;
    unsigned n = f->nparams;
    LLVMTypeRef *pt = jit_alloc(c, n + 1, sizeof *pt);
    bool *pbool = jit_alloc(c, n + 1, sizeof *pbool), rbool = false;
    LLVMValueRef *args = jit_alloc(c, 3 * n + 2, sizeof *args);
    LLVMTypeRef rt = c_type(c, fname, ft->elem, "the result", &rbool);
    if (!rt)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "parameter %u", i);
        if (!(pt[i] = c_type(c, fname, i < ft->nmembers ? ft->members[i] : 0, what, &pbool[i])))
            return -1;
    }
    bool wg_used = c->wg_size && reaches_workgroup_vars(c);
    if (wg_used && c->wg_size > EXPORT_MAX_WG_BYTES)
        return jit_fail(c,
                        "function %s uses Workgroup variables; their %llu bytes exceed the %u a call from host C "
                        "may take on its stack",
                        fname, (unsigned long long)c->wg_size, EXPORT_MAX_WG_BYTES);

    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_EXPORT, LLVMFunctionType(rt, pt, n, 0));
    jit_add_attr(c, fn, LLVMAttributeFunctionIndex, "nounwind");
    LLVMPositionBuilderAtEnd(c->pb, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    c->b = c->pb;
    c->llfn = fn;
    c->arg_ctx = one_item_ctx(c);
    /* the item state: environment (work-group memory only), local id 0, local size 1 */
    LLVMValueRef wgmem = wg_used ? zeroed_alloca(c, c->wg_size, c->wg_align, "wgmem") : LLVMConstPointerNull(c->t_ptr);
    c->arg_item = zeroed_alloca(c, c->item_size, c->item_align, "item");
    jit_store_at(c, c->arg_item, JIT_ITEM_ENV + 8ull * JIT_ENV_WGMEM, wgmem, 8);
    for (unsigned i = 0; i < 3; i++)
        jit_store_at(c, c->arg_item, JIT_ITEM_LSIZE + 4 * i, LLVMConstInt(c->t_i32, 1, 0), 4);
    jit_clear_values(c);
    if ((wg_used && c->has_wg_init && jit_init_module_vars(c, SpvStorageClassWorkgroup)) ||
        jit_init_module_vars(c, SpvStorageClassPrivate))
        return -1;
    args[0] = c->arg_ctx;
    args[1] = c->arg_item;
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef p = LLVMGetParam(fn, i);
        args[2 + i] = pbool[i] ? LLVMBuildICmp(c->b, LLVMIntNE, p, LLVMConstInt(c->t_i8, 0, 0), "") : p;
    }
    /* host pointers come without a size: their ranges span the address space,
     * the pointer in the middle (memory modes robust and check) */
    unsigned nb = 0;
    for (unsigned i = 0; i < n && jit_checks_on(c); i++)
        if (LLVMGetTypeKind(pt[i]) == LLVMPointerTypeKind) {
            args[2 + n + nb++] = LLVMConstInt(c->t_i64, 1ull << 63, 0);
            args[2 + n + nb++] = LLVMConstInt(c->t_i64, UINT64_MAX, 0);
        }
    LLVMValueRef callee = c->fns[fidx];
    LLVMValueRef r = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(callee), callee, args, n + 2 + nb, "");
    if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
        LLVMBuildRetVoid(c->b);
    else
        LLVMBuildRet(c->b, rbool ? LLVMBuildZExt(c->b, r, c->t_i8, "") : r);
    c->llfn = NULL;
    return 0;
}

typedef struct export_steps {
    uint32_t fidx;
    const char *fname;
} export_steps;

/* Everything that makes LLVM IR, with the out-of-memory exit armed. */
static int lower_export(lower_ctx *c, void *user)
{
    const export_steps *s = user;
    if (jit_analyze(c, s->fidx, false))
        return -1;
    if (c->nbarriers)
        return jit_fail(c,
                        "function %s reaches %u work-group barrier site%s (barriers or collectives), which only "
                        "have a meaning inside a dispatch",
                        s->fname, c->nbarriers, c->nbarriers == 1 ? "" : "s");
    if (jit_declare_functions(c))
        return -1;
    for (uint32_t f = 0; f < c->m->nfuncs; f++)
        if (c->reach[f] && !c->m->funcs[f].is_declaration && jit_lower_function(c, f))
            return -1;
    c->fn = NULL;
    if (build_export(c, s->fidx, s->fname))
        return -1;
    jit_sg_lower_scalar(c->mod); /* one work-item: a sub-group of one */
    return jit_verify(c);
}

spvjit_native_fn spvjit_compile_function(const spv_module *m, uint32_t func_id, const spvjit_options *opts,
                                         jit_kernel **owner, spv_diag *diag)
{
    static const spvjit_options defaults = { .opt_level = 3 };
    const spvjit_options *o = opts ? opts : &defaults;
    const char *src = m->source ? m->source : "<memory>";
    *owner = NULL;
    uint32_t fidx = spv_function_index(m, func_id);
    if (fidx == SPV_NONE) {
        spv_fail(diag, "%s: %%%u is not a function", src, func_id);
        return NULL;
    }
    const char *fname = m->ids[func_id].name ? m->ids[func_id].name : "unnamed";
    if (m->funcs[fidx].is_declaration) {
        spv_fail(diag, "%s: function %s (%%%u) is a declaration without a body", src, fname, func_id);
        return NULL;
    }
    if (!m->is_kernel || m->is_shader) {
        spv_fail(diag,
                 "%s: function %s: only functions of Kernel-flavour (OpenCL / SYCL) modules can be called "
                 "from host C",
                 src, fname);
        return NULL;
    }
    if (o->unspecialized) {
        spv_fail(diag, "%s: function %s: calls from host C are compiled specialized only", src, fname);
        return NULL;
    }
    jit_build b = { 0 };
    export_steps steps = { fidx, fname };
    jit_kernel *k = calloc(1, sizeof *k);
    if (!k)
        spv_fail(diag, "out of memory");
    bool ok = k && !jit_build_begin(&b, m, NULL, o, true, fname, diag);
    if (ok) {
        b.c.ls_known = true;
        b.c.local_size[0] = b.c.local_size[1] = b.c.local_size[2] = 1;
    }
    ok = ok && !jit_run_guarded(&b.c, lower_export, &steps);
    LLVMMemoryBufferRef obj = ok ? jit_build_object(&b) : NULL;
    ok = obj && !jit_fill_facts(k, &b.c);
    double t0 = b.t_start, t1 = b.t_lowered, t2 = b.t_optimized;
    jit_build_end(&b);
    const char *names[1] = { JIT_SYM_EXPORT };
    void *addr = NULL;
    if (!ok || !(k->code = jit_link_object(obj, names, &addr, 1, diag))) {
        if (obj && !ok)
            LLVMDisposeMemoryBuffer(obj);
        spvjit_kernel_free(k);
        return NULL;
    }
    k->export_fn = (spvjit_native_fn)addr;
    k->facts.ms_lower = t1 - t0;
    k->facts.ms_passes = t2 - t1;
    k->facts.ms_codegen = util_now_ms() - t2;
    *owner = k;
    return k->export_fn;
}
