/* spirv/module.c — lookups on the module model (see module.h). */
#include "module.h"

#include <string.h>

const spv_type *spv_type_get(const spv_module *m, uint32_t id)
{
    const spv_id *x = spv_id_get(m, id);
    return x && x->kind == SPV_ID_TYPE ? &x->type : NULL;
}

const spv_inst *spv_def(const spv_module *m, uint32_t id)
{
    const spv_id *x = spv_id_get(m, id);
    return x && x->inst != SPV_NONE ? &m->insts[x->inst] : NULL;
}

const spv_decoration *spv_find_decoration(const spv_module *m, uint32_t id, int32_t member, uint32_t decoration)
{
    const spv_id *x = spv_id_get(m, id);
    if (!x)
        return NULL;
    for (uint32_t i = x->dec_first; i < x->dec_first + x->dec_count; i++)
        if (m->decs[i].member == member && m->decs[i].decoration == decoration)
            return &m->decs[i];
    return NULL;
}

uint32_t spv_function_index(const spv_module *m, uint32_t id)
{
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].id == id)
            return i;
    return SPV_NONE;
}

const spv_entry_point *spv_find_entry(const spv_module *m, const char *name)
{
    const spv_entry_point *first = NULL;
    for (uint32_t i = 0; i < m->nentries; i++) {
        const spv_entry_point *e = &m->entries[i];
        if (name && !strcmp(e->name, name))
            return e;
        if (!name && !first && (e->model == SpvExecutionModelGLCompute || e->model == SpvExecutionModelKernel))
            first = e;
    }
    return name ? NULL : first;
}

const char *spv_literal_string(const uint32_t *w, uint32_t nwords)
{
    for (uint32_t i = 0; i < nwords; i++) {
        uint32_t x = w[i];
        if (!(x & 0xff) || !(x & 0xff00) || !(x & 0xff0000) || !(x & 0xff000000))
            return (const char *)w;
    }
    return "";
}

bool spv_const_u64(const spv_module *m, uint32_t id, uint64_t *out)
{
    const spv_id *x = spv_id_get(m, id);
    if (!x || (x->kind != SPV_ID_CONSTANT && x->kind != SPV_ID_SPEC_CONSTANT) || x->is_composite)
        return false;
    const spv_type *t = spv_type_get(m, x->type_id);
    if (!t || (t->kind != SPV_TYPE_INT && t->kind != SPV_TYPE_BOOL))
        return false;
    const spv_inst *in = &m->insts[x->inst];
    if (in->opcode == SpvOpSpecConstantOp)
        return false;
    *out = x->is_null ? 0 : x->scalar;
    return true;
}
