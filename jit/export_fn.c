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

static void store_at(lower_ctx *c, LLVMValueRef base, uint64_t off, LLVMValueRef v, unsigned align)
{
    LLVMValueRef s = LLVMBuildStore(c->b, v, jit_byte_gep(c, base, LLVMConstInt(c->t_i64, off, 0), true));
    LLVMSetAlignment(s, align);
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

/* The context of a one-work-item dispatch (jit/abi.h), on the stack. */
static LLVMValueRef one_item_ctx(lower_ctx *c)
{
    LLVMValueRef ctx = zeroed_alloca(c, sizeof(spvjit_wg_ctx), 16, "ctx");
    LLVMValueRef one32 = LLVMConstInt(c->t_i32, 1, 0), one64 = LLVMConstInt(c->t_i64, 1, 0);
    for (unsigned i = 0; i < 3; i++) {
        store_at(c, ctx, offsetof(spvjit_wg_ctx, num_groups) + 4 * i, one32, 4);
        store_at(c, ctx, offsetof(spvjit_wg_ctx, enqueued_local_size) + 4 * i, one32, 4);
        store_at(c, ctx, offsetof(spvjit_wg_ctx, local_size) + 4 * i, one32, 4);
        store_at(c, ctx, offsetof(spvjit_wg_ctx, global_size) + 8 * i, one64, 8);
    }
    store_at(c, ctx, offsetof(spvjit_wg_ctx, work_dim), one32, 4);
    return ctx;
}

static int build_export(lower_ctx *c, uint32_t fidx, const char *fname)
{
    const spv_function *f = &c->m->funcs[fidx];
    const spv_type *ft = jit_spv_type(c, f->fn_type);
    if (!ft)
        return -1;
    unsigned n = f->nparams;
    LLVMTypeRef *pt = calloc(n + 1, sizeof *pt);
    bool *pbool = calloc(n + 1, sizeof *pbool), rbool = false;
    LLVMValueRef *args = calloc(n + 2, sizeof *args);
    int rc = -1;
    LLVMTypeRef rt = c_type(c, fname, ft->elem, "the result", &rbool);
    for (unsigned i = 0; rt && i < n; i++) {
        char what[32];
        snprintf(what, sizeof what, "parameter %u", i);
        if (!(pt[i] = c_type(c, fname, i < ft->nmembers ? ft->members[i] : 0, what, &pbool[i])))
            goto out;
    }
    if (!rt)
        goto out;
    bool wg_used = c->wg_size && reaches_workgroup_vars(c);
    if (wg_used && c->wg_size > EXPORT_MAX_WG_BYTES) {
        jit_fail(c,
                 "function %s uses Workgroup variables; their %llu bytes exceed the %u a call from host C "
                 "may take on its stack",
                 fname, (unsigned long long)c->wg_size, EXPORT_MAX_WG_BYTES);
        goto out;
    }

    LLVMValueRef fn = LLVMAddFunction(c->mod, JIT_SYM_EXPORT, LLVMFunctionType(rt, pt, n, 0));
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c->llc, nounwind, 0));
    LLVMPositionBuilderAtEnd(c->pb, LLVMAppendBasicBlockInContext(c->llc, fn, "entry"));
    c->b = c->pb;
    c->llfn = fn;
    c->arg_ctx = one_item_ctx(c);
    /* the item state: environment (work-group memory only), local id 0, local size 1 */
    LLVMValueRef wgmem = wg_used ? zeroed_alloca(c, c->wg_size, c->wg_align, "wgmem") : LLVMConstPointerNull(c->t_ptr);
    c->arg_item = zeroed_alloca(c, c->item_size, c->item_align, "item");
    store_at(c, c->arg_item, JIT_ITEM_ENV + 8ull * JIT_ENV_WGMEM, wgmem, 8);
    for (unsigned i = 0; i < 3; i++)
        store_at(c, c->arg_item, JIT_ITEM_LSIZE + 4 * i, LLVMConstInt(c->t_i32, 1, 0), 4);
    memset(c->vals, 0, c->m->bound * sizeof *c->vals);
    if ((wg_used && c->has_wg_init && jit_init_module_vars(c, SpvStorageClassWorkgroup)) ||
        jit_init_module_vars(c, SpvStorageClassPrivate))
        goto out;
    args[0] = c->arg_ctx;
    args[1] = c->arg_item;
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef p = LLVMGetParam(fn, i);
        args[2 + i] = pbool[i] ? LLVMBuildICmp(c->b, LLVMIntNE, p, LLVMConstInt(c->t_i8, 0, 0), "") : p;
    }
    LLVMValueRef callee = c->fns[fidx];
    LLVMValueRef r = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(callee), callee, args, n + 2, "");
    if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
        LLVMBuildRetVoid(c->b);
    else
        LLVMBuildRet(c->b, rbool ? LLVMBuildZExt(c->b, r, c->t_i8, "") : r);
    c->llfn = NULL;
    rc = 0;
out:
    free(pt);
    free(pbool);
    free(args);
    return rc;
}

static void emit_text(const spvjit_options *o, const char *what, char *text)
{
    if (text && o->emit)
        o->emit(o->emit_user, what, text);
    free(text);
}

spvjit_native_fn spvjit_compile_function(const spv_module *m, uint32_t func_id, const spvjit_options *opts,
                                         jit_kernel **owner, spv_diag *diag)
{
    static const spvjit_options defaults = { .opt_level = 3 };
    const spvjit_options *o = opts ? opts : &defaults;
    const char *src = m->source ? m->source : "<memory>";
    *owner = NULL;
    uint32_t fidx = SPV_NONE;
    for (uint32_t i = 0; i < m->nfuncs && fidx == SPV_NONE; i++)
        if (m->funcs[i].id == func_id)
            fidx = i;
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
    double t0 = util_now_ms();
    LLVMTargetMachineRef tm = jit_host_target_machine(o->opt_level, diag);
    if (!tm)
        return NULL;
    LLVMContextRef llc = LLVMContextCreate();
    lower_ctx c = { .m = m, .diag = diag, .kernel = true, .ls_known = true, .local_size = { 1, 1, 1 } };
    jit_ctx_init(&c, m, llc);
    jit_new_host_module(&c, tm, fname);
    LLVMModuleRef mod = c.mod;
    jit_kernel *k = calloc(1, sizeof *k);
    bool ok = !jit_analyze(&c, fidx, false);
    if (ok && c.nbarriers) {
        jit_fail(&c,
                 "function %s reaches %u work-group barrier site%s (barriers or collectives), which only have "
                 "a meaning inside a dispatch",
                 fname, c.nbarriers, c.nbarriers == 1 ? "" : "s");
        ok = false;
    }
    ok = ok && !jit_declare_functions(&c);
    for (uint32_t f = 0; ok && f < m->nfuncs; f++)
        if (c.reach[f] && !m->funcs[f].is_declaration && jit_lower_function(&c, f))
            ok = false;
    c.fn = NULL;
    ok = ok && !build_export(&c, fidx, fname) && !jit_verify(&c);
    double t1 = util_now_ms();
    if (ok && o->emit && o->emit_ir)
        emit_text(o, "ir", jit_emit_ir(mod));
    ok = ok && !jit_optimize(mod, tm, o->opt_level, diag);
    double t2 = util_now_ms();
    if (ok && o->emit && o->emit_opt_ir)
        emit_text(o, "opt-ir", jit_emit_ir(mod));
    if (ok && o->emit && o->emit_asm)
        emit_text(o, "asm", jit_emit_asm(mod, tm, diag));
    LLVMMemoryBufferRef obj = ok ? jit_emit_object(mod, tm, diag) : NULL;
    ok = ok && obj;
    if (ok)
        jit_fill_facts(k, &c);
    jit_ctx_free(&c);
    LLVMDisposeTargetData(c.td);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(llc);
    if (!ok) {
        spvjit_kernel_free(k);
        return NULL;
    }
    const char *names[1] = { JIT_SYM_EXPORT };
    void *addr = NULL;
    k->jit = jit_link_object(obj, o->opt_level, names, &addr, 1, diag);
    if (!k->jit) {
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
