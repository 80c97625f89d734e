/* jit/lower_vars.c — module-scope variables: where each storage class lives.
 *
 *   StorageBuffer / Uniform (Shader)  resource slot: base = env[RES0 + slot]
 *   PushConstant                      env[PUSH] (ctx->push_constants)
 *   Workgroup                         env[WGMEM] + static offset (wg memory)
 *   Private                           item state + static offset (per work-item)
 *   CrossWorkgroup, UniformConstant   LLVM globals in the JIT module (Kernel:
 *     (Kernel)                        program-scope data, shared by all groups)
 *   Input (BuiltIn)                   an alloca holding the builtin's value
 */
#include "lower_ctx.h"

#include <stdio.h>
#include <stdlib.h>

uint32_t jit_var_storage(lower_ctx *c, uint32_t var_id)
{
    const spv_id *d = spv_id_get(c->m, var_id);
    const spv_type *pt = d ? spv_type_get(c->m, d->type_id) : NULL;
    return (pt && pt->kind == SPV_TYPE_POINTER) ? pt->storage : SpvStorageClassMax;
}

static uint32_t pointee(lower_ctx *c, uint32_t var_id)
{
    return spv_type_get(c->m, c->m->ids[var_id].type_id)->elem;
}

LLVMValueRef jit_env(lower_ctx *c, uint32_t slot)
{
    LLVMValueRef p =
        LLVMBuildInBoundsGEP2(c->b, c->t_i8, c->arg_item,
                              (LLVMValueRef[]){ LLVMConstInt(c->t_i64, JIT_ITEM_ENV + 8ull * slot, 0) }, 1, "");
    LLVMValueRef l = LLVMBuildLoad2(c->b, c->t_ptr, p, "");
    LLVMSetAlignment(l, 8);
    return l;
}

static LLVMValueRef builtin_input(lower_ctx *c, uint32_t var)
{
    uint32_t bi;
    if (!jit_var_builtin(c, var, &bi)) {
        jit_fail(c,
                 "%%%u: an Input variable without a BuiltIn decoration has no meaning in a compute "
                 "entry point",
                 var);
        return NULL;
    }
    uint32_t pt = pointee(c, var);
    const spv_layout *l = jit_layout_of(c, pt);
    LLVMValueRef v = jit_builtin_value(c, bi, pt, NULL);
    if (!l || !v)
        return NULL;
    LLVMValueRef a = LLVMBuildAlloca(c->b, LLVMArrayType2(c->t_i8, l->size), "");
    LLVMSetAlignment(a, 16);
    if (jit_store_mem(c, pt, a, v, 0, false, 0))
        return NULL;
    return a;
}

static LLVMValueRef var_ptr(lower_ctx *c, uint32_t var)
{
    uint32_t sc = jit_var_storage(c, var);
    if (c->globals[var])
        return c->globals[var];
    switch (sc) {
    case SpvStorageClassStorageBuffer:
    case SpvStorageClassUniform:
    case SpvStorageClassUniformConstant:
        if (c->var_slot[var] == SPV_NONE)
            break;
        {
            const spv_type *t = spv_type_get(c->m, pointee(c, var));
            if (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY) /* descriptor array */
                return jit_ptr_at(c, c->arg_item, JIT_ITEM_ENV + 8ull * (JIT_ENV_RES0 + c->var_slot[var]));
        }
        return jit_env(c, JIT_ENV_RES0 + c->var_slot[var]);
    case SpvStorageClassPushConstant:
        return jit_env(c, JIT_ENV_PUSH);
    case SpvStorageClassWorkgroup:
        return jit_ptr_at(c, jit_env(c, JIT_ENV_WGMEM), c->var_offset[var]);
    case SpvStorageClassPrivate:
        return jit_ptr_at(c, c->arg_item, c->var_offset[var]);
    case SpvStorageClassInput:
        return builtin_input(c, var);
    default:
        break;
    }
    jit_fail(c, "%%%u (%s): module-scope variable in storage class %u is not supported here", var,
             c->m->ids[var].name ? c->m->ids[var].name : "unnamed", sc);
    return NULL;
}

LLVMValueRef jit_global_var_ptr(lower_ctx *c, uint32_t var)
{
    LLVMBuilderRef saved = c->b;
    c->b = c->pb;
    LLVMValueRef v = var_ptr(c, var);
    c->b = saved;
    return v;
}

/* --- where module-scope variables live ------------------------------------------------
 * Workgroup variables are placed one after another in work-group memory,
 * Private ones in the item state, each at the next multiple of its type's
 * alignment: an allocation plan (the types' layouts are spirv/'s). */

static uint64_t place(uint64_t at, uint32_t align)
{
    return (at + align - 1) / align * align;
}

static int cmp_res(const void *a, const void *b)
{
    const spvjit_resource *x = a, *y = b;
    if (x->set != y->set)
        return x->set < y->set ? -1 : 1;
    if (x->binding != y->binding)
        return x->binding < y->binding ? -1 : 1;
    return 0;
}

static uint32_t dec_arg(lower_ctx *c, uint32_t id, uint32_t dec)
{
    const spv_decoration *d = spv_find_decoration(c->m, id, -1, dec);
    return (d && d->nargs) ? d->args[0] : 0;
}

static int add_resource(lower_ctx *c, uint32_t var, uint32_t sc)
{
    uint32_t pt = pointee(c, var);
    const spv_type *t = spv_type_get(c->m, pt);
    if (t->kind == SPV_TYPE_OPAQUE)
        return 0; /* images/samplers: error only if used */
    spvjit_resource *r = &c->res[c->nres++];
    r->var_id = var;
    r->name = c->m->ids[var].name;
    r->set = dec_arg(c, var, SpvDecorationDescriptorSet);
    r->binding = dec_arg(c, var, SpvDecorationBinding);
    r->storage = sc;
    r->array_count = 1;
    r->readonly = spv_find_decoration(c->m, var, -1, SpvDecorationNonWritable) != NULL;
    if (t->kind == SPV_TYPE_RUNTIME_ARRAY)
        return jit_fail(c, "%%%u: runtime-sized descriptor arrays are not supported", var);
    if (t->kind == SPV_TYPE_ARRAY) {
        uint64_t n;
        if (!jit_array_length(c, pt, &n))
            return -1;
        r->array_count = (uint32_t)n;
        pt = t->elem;
    }
    /* the binding check's number: spirv/'s, as for reflection */
    if (!spv_block_size(c->layouts, pt, &r->size, &r->runtime_stride)) {
        c->failed = true;
        return -1;
    }
    return 0;
}

/* An LLVM global for program-scope Kernel data, initialized from the constant's bytes. */
static int make_llvm_global(lower_ctx *c, uint32_t var, const spv_inst *in, uint32_t sc)
{
    uint32_t pt = pointee(c, var);
    const spv_layout *l = jit_layout_of(c, pt);
    if (!l)
        return -1;
    uint64_t size = l->size ? l->size : 1;
    uint8_t *buf = jit_alloc(c, size, 1);
    if (spv_inst_nops(in) >= 2 && jit_const_bytes(c, spv_inst_op(in, 1), pt, buf, size))
        return -1;
    LLVMValueRef init = LLVMConstStringInContext(c->llc, (const char *)buf, (unsigned)size, 1);
    char name[32];
    snprintf(name, sizeof name, "spv.var.%u", var);
    LLVMValueRef g = LLVMAddGlobal(c->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, l->align < 16 ? 16 : l->align);
    if (sc == SpvStorageClassUniformConstant)
        LLVMSetGlobalConstant(g, 1);
    c->globals[var] = g;
    return 0;
}

/* SPV_KHR_workgroup_memory_explicit_layout: Workgroup variables of Block
 * type share one storage, all starting at offset 0 of work-group memory. */
static bool aliased_wg_block(lower_ctx *c, uint32_t var)
{
    return jit_var_storage(c, var) == SpvStorageClassWorkgroup &&
           spv_find_decoration(c->m, pointee(c, var), -1, SpvDecorationBlock) != NULL;
}

int jit_create_module_globals(lower_ctx *c)
{
    const spv_module *m = c->m;
    c->res = jit_alloc(c, m->bound + 1, sizeof *c->res);
    c->wg_align = 16;
    for (uint32_t i = 0; i < m->first_func_inst && i < m->ninsts; i++) { /* the aliased blocks first */
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpVariable || !aliased_wg_block(c, in->result_id) ||
            (c->used_globals && !c->used_globals[in->result_id]))
            continue;
        const spv_layout *l = jit_layout_of(c, pointee(c, in->result_id));
        if (!l)
            return -1;
        c->var_offset[in->result_id] = 0;
        if (l->size > c->wg_size)
            c->wg_size = l->size;
        if (l->align > c->wg_align)
            c->wg_align = l->align;
        if (spv_inst_nops(in) >= 2)
            c->has_wg_init = true;
    }
    for (uint32_t i = 0; i < m->first_func_inst && i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpVariable)
            continue;
        uint32_t var = in->result_id, sc = jit_var_storage(c, var);
        /* the resources and work-group memory of other entry points are not this one's */
        bool interface = sc == SpvStorageClassStorageBuffer || sc == SpvStorageClassUniform ||
                         sc == SpvStorageClassPushConstant || sc == SpvStorageClassWorkgroup ||
                         (!c->kernel && sc == SpvStorageClassUniformConstant);
        if (interface && c->used_globals && !c->used_globals[var])
            continue;
        bool kernel_data = c->kernel && (sc == SpvStorageClassUniformConstant || sc == SpvStorageClassCrossWorkgroup);
        if (kernel_data || sc == SpvStorageClassCrossWorkgroup) {
            /* an analysis without a module (jit/analyze.c) needs no globals: they are no facts */
            if (c->mod && make_llvm_global(c, var, in, sc))
                return -1;
        } else if (sc == SpvStorageClassStorageBuffer || sc == SpvStorageClassUniform ||
                   sc == SpvStorageClassUniformConstant) {
            if (add_resource(c, var, sc))
                return -1;
        } else if (sc == SpvStorageClassWorkgroup && !aliased_wg_block(c, var)) {
            const spv_layout *l = jit_layout_of(c, pointee(c, var));
            if (!l)
                return -1;
            c->wg_size = place(c->wg_size, l->align);
            c->var_offset[var] = c->wg_size;
            c->wg_size += l->size;
            if (l->align > c->wg_align)
                c->wg_align = l->align;
            if (spv_inst_nops(in) >= 2)
                c->has_wg_init = true;
        } else if (sc == SpvStorageClassPushConstant) {
            uint64_t stride; /* (a push-constant block has no runtime array) */
            if (!spv_block_size(c->layouts, pointee(c, var), &c->push_size, &stride)) {
                c->failed = true;
                return -1;
            }
        }
    }
    qsort(c->res, c->nres, sizeof *c->res, cmp_res);
    for (uint32_t i = 0; i < c->nres; i++) {
        c->res[i].slot = c->nres_slots;
        c->var_slot[c->res[i].var_id] = c->nres_slots;
        c->nres_slots += c->res[i].array_count;
    }
    /* Private variables follow the environment slots in the item state. */
    c->item_size = c->private_at = place(JIT_ITEM_ENV + 8ull * (JIT_ENV_RES0 + c->nres_slots), 16);
    c->item_align = 16;
    for (uint32_t i = 0; i < m->first_func_inst && i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpVariable || jit_var_storage(c, in->result_id) != SpvStorageClassPrivate)
            continue;
        const spv_layout *l = jit_layout_of(c, pointee(c, in->result_id));
        if (!l)
            return -1;
        c->item_size = place(c->item_size, l->align);
        c->var_offset[in->result_id] = c->item_size;
        c->item_size += l->size ? l->size : 1;
        if (l->align > c->item_align)
            c->item_align = l->align;
    }
    return 0;
}

/* Stores the initializers of module-scope variables of storage class sc (Private
 * into the item state, Workgroup into work-group memory) at the builder. */
int jit_init_module_vars(lower_ctx *c, uint32_t sc)
{
    const spv_module *m = c->m;
    for (uint32_t i = 0; i < m->first_func_inst && i < m->ninsts; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpVariable || spv_inst_nops(in) < 2)
            continue;
        if (jit_var_storage(c, in->result_id) != sc || (c->used_globals && !c->used_globals[in->result_id]))
            continue;
        LLVMValueRef p = jit_global_var_ptr(c, in->result_id);
        LLVMValueRef v = jit_value(c, spv_inst_op(in, 1));
        if (!p || !v || jit_store_mem(c, pointee(c, in->result_id), p, v, 0, false, 0))
            return -1;
    }
    return 0;
}
