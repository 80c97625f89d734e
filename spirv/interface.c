/* spirv/interface.c — an entry point's parameters and resources (see interface.h). */
#include "interface.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "operands.h"
#include "spirv_grammar.h"
#include "util/array.h"

void spv_type_name(const spv_module *m, uint32_t type_id, char *buf, size_t len)
{
    const spv_type *t = spv_type_get(m, type_id);
    char inner[256];
    if (!len)
        return;
    if (!t) {
        snprintf(buf, len, "%%%u", type_id);
        return;
    }
    switch (t->kind) {
    case SPV_TYPE_VOID:
        snprintf(buf, len, "void");
        break;
    case SPV_TYPE_BOOL:
        snprintf(buf, len, "bool");
        break;
    case SPV_TYPE_INT:
        if (t->width == 32)
            snprintf(buf, len, "%s", t->is_signed || m->is_kernel ? "int" : "uint");
        else
            snprintf(buf, len, "%sint%u", t->is_signed || m->is_kernel ? "" : "u", t->width);
        break;
    case SPV_TYPE_FLOAT:
        snprintf(buf, len, "%s", t->width == 16 ? "half" : t->width == 64 ? "double" : "float");
        break;
    case SPV_TYPE_VECTOR:
        spv_type_name(m, t->elem, inner, sizeof inner);
        snprintf(buf, len, "%s%u", inner, t->count);
        break;
    case SPV_TYPE_MATRIX: {
        const spv_type *c = spv_type_get(m, t->elem);
        spv_type_name(m, c ? c->elem : 0, inner, sizeof inner);
        snprintf(buf, len, "%s%ux%u", inner, t->count, c ? c->count : 0);
        break;
    }
    case SPV_TYPE_ARRAY:
        spv_type_name(m, t->elem, inner, sizeof inner);
        if (t->count)
            snprintf(buf, len, "%s[%u]", inner, t->count);
        else
            snprintf(buf, len, "%s[spec %%%u]", inner, t->length_id);
        break;
    case SPV_TYPE_RUNTIME_ARRAY:
        spv_type_name(m, t->elem, inner, sizeof inner);
        snprintf(buf, len, "%s[]", inner);
        break;
    case SPV_TYPE_STRUCT: {
        const char *name = m->ids[type_id].name;
        size_t k = (size_t)snprintf(buf, len, "struct%s%s {", name && *name ? " " : "", name ? name : "");
        for (uint32_t i = 0; i < t->nmembers && k < len; i++) {
            spv_type_name(m, t->members[i], inner, sizeof inner);
            k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : " ", inner);
        }
        if (k < len)
            snprintf(buf + k, len - k, " }");
        break;
    }
    case SPV_TYPE_POINTER: {
        const char *sc = spv_enum_name(SPV_OPERAND_StorageClass, t->storage);
        spv_type_name(m, t->elem, inner, sizeof inner);
        snprintf(buf, len, "%s %s*", sc ? sc : "?", inner);
        break;
    }
    case SPV_TYPE_FUNCTION:
        snprintf(buf, len, "function");
        break;
    default: {
        const char *op = spv_opcode_name(t->opaque_op);
        snprintf(buf, len, "%s", op ? op + 6 : "opaque"); /* skip "OpType" */
        break;
    }
    }
}

/* --- static use ---------------------------------------------------------------- */

typedef struct use_walk {
    const spv_module *m;
    bool *used;      /* [bound]: global variables and constants reached */
    bool *func_seen; /* [nfuncs] */
    uint32_t *stack; /* function indices to visit */
    uint32_t nstack;
    bool failed; /* out of memory (the loader split every instruction before) */
} use_walk;

static void use_id(use_walk *u, uint32_t id);

/* Every id operand (not result, not result type) of one instruction. */
static void use_operands(use_walk *u, const spv_inst *in)
{
    spv_diag d;
    /* an operand has at least one word; the ids are gathered before use_id recurses */
    spv_operand *ops = malloc(in->nwords * sizeof *ops);
    uint32_t *ids = malloc(in->nwords * sizeof *ids), nids = 0;
    int n = ops && ids ? spv_split_operands(in->w, in->nwords, spv_module_literal_words, (void *)u->m, ops,
                                            (int)in->nwords, "", &d)
                       : -1;
    if (n < 0)
        u->failed = true;
    for (int k = 0; k < n; k++) {
        const spv_operand *o = &ops[k];
        uint32_t first, last;
        if (o->kind == SPV_OPERAND_IdResult || o->kind == SPV_OPERAND_IdResultType ||
            !spv_operand_id_words(o, &first, &last))
            continue;
        for (uint32_t w = first; w < last && w < in->nwords; w++)
            ids[nids++] = in->w[w];
    }
    free(ops);
    for (uint32_t i = 0; i < nids; i++)
        use_id(u, ids[i]);
    free(ids);
}

static void use_id(use_walk *u, uint32_t id)
{
    const spv_id *x = spv_id_get(u->m, id);
    if (!x || u->used[id])
        return;
    if (x->kind == SPV_ID_FUNCTION) {
        for (uint32_t f = 0; f < u->m->nfuncs; f++)
            if (u->m->funcs[f].id == id && !u->func_seen[f]) {
                u->func_seen[f] = true;
                u->stack[u->nstack++] = f;
            }
        return;
    }
    if (x->kind != SPV_ID_GLOBAL_VARIABLE && x->kind != SPV_ID_CONSTANT && x->kind != SPV_ID_SPEC_CONSTANT)
        return;
    u->used[id] = true;
    const spv_inst *def = spv_def(u->m, id);
    if (def) /* a constant's constituents, a variable's initializer */
        use_operands(u, def);
}

bool *spv_entry_used_globals(const spv_module *m, const spv_entry_point *e)
{
    uint32_t fidx = e->func;
    use_walk u = { .m = m };
    u.used = calloc(m->bound + 1, sizeof *u.used);
    u.func_seen = calloc(m->nfuncs + 1, sizeof *u.func_seen);
    u.stack = calloc(m->nfuncs + 1, sizeof *u.stack);
    if (!u.used || !u.func_seen || !u.stack) {
        free(u.used);
        free(u.func_seen);
        free(u.stack);
        return NULL;
    }
    if (fidx < m->nfuncs) {
        u.func_seen[fidx] = true;
        u.stack[u.nstack++] = fidx;
    }
    for (uint32_t i = 0; i < e->ninterface; i++) /* listed is used (a Workgroup block's initializer counts) */
        use_id(&u, e->interface[i]);
    while (u.nstack) {
        const spv_function *f = &m->funcs[u.stack[--u.nstack]];
        for (uint32_t i = f->inst; i <= f->end && i < m->ninsts; i++)
            use_operands(&u, &m->insts[i]);
    }
    free(u.func_seen);
    free(u.stack);
    if (u.failed) {
        free(u.used);
        return NULL;
    }
    for (uint32_t id = 0; id < m->bound; id++) /* constants were followed; only variables are asked for */
        if (u.used[id] && m->ids[id].kind != SPV_ID_GLOBAL_VARIABLE)
            u.used[id] = false;
    return u.used;
}

/* 0: no scalar seen yet; UINT32_MAX: scalars of different types; else the type. */
static uint32_t scalar_join(const spv_module *m, uint32_t type_id, uint32_t seen, unsigned depth)
{
    const spv_type *t = spv_type_get(m, type_id);
    if (!t || depth > 64 || seen == UINT32_MAX)
        return UINT32_MAX;
    switch (t->kind) {
    case SPV_TYPE_INT:
    case SPV_TYPE_FLOAT:
        return seen == 0 || seen == type_id ? type_id : UINT32_MAX;
    case SPV_TYPE_VECTOR:
    case SPV_TYPE_MATRIX:
    case SPV_TYPE_ARRAY:
    case SPV_TYPE_RUNTIME_ARRAY:
        return scalar_join(m, t->elem, seen, depth + 1);
    case SPV_TYPE_STRUCT:
        for (uint32_t i = 0; i < t->nmembers && seen != UINT32_MAX; i++)
            seen = scalar_join(m, t->members[i], seen, depth + 1);
        return seen;
    default:
        return UINT32_MAX;
    }
}

uint32_t spv_uniform_scalar_type(const spv_module *m, uint32_t type_id)
{
    uint32_t t = scalar_join(m, type_id, 0, 0);
    return t == UINT32_MAX ? 0 : t;
}

/* A kernel parameter decorated FuncParamAttr `attr` (it may carry several). */
static bool has_param_attr(const spv_module *m, uint32_t id, uint32_t attr)
{
    const spv_id *x = spv_id_get(m, id);
    for (uint32_t i = x ? x->dec_first : 0; x && i < x->dec_first + x->dec_count; i++) {
        const spv_decoration *d = &m->decs[i];
        if (d->member == -1 && d->decoration == SpvDecorationFuncParamAttr && d->nargs && d->args[0] == attr)
            return true;
    }
    return false;
}

bool spv_pointer_param_readonly(const spv_module *m, uint32_t id)
{
    const spv_id *x = spv_id_get(m, id);
    const spv_type *t = x ? spv_type_get(m, x->type_id) : NULL;
    return t && t->kind == SPV_TYPE_POINTER &&
           (t->storage == SpvStorageClassUniformConstant ||
            has_param_attr(m, id, SpvFunctionParameterAttributeNoWrite));
}

/* NonWritable / NonReadable on the variable, or on every member of its block
 * (how glslang marks a readonly / writeonly buffer; through a descriptor array). */
static bool has_access_decoration(const spv_module *m, uint32_t var, uint32_t block, uint32_t decoration)
{
    if (spv_find_decoration(m, var, -1, decoration))
        return true;
    const spv_type *t = spv_type_get(m, block);
    while (t && (t->kind == SPV_TYPE_ARRAY || t->kind == SPV_TYPE_RUNTIME_ARRAY)) {
        block = t->elem;
        t = spv_type_get(m, block);
    }
    if (!t || t->kind != SPV_TYPE_STRUCT || t->nmembers == 0)
        return false;
    for (uint32_t i = 0; i < t->nmembers; i++)
        if (!spv_find_decoration(m, block, (int32_t)i, decoration))
            return false;
    return true;
}

int spv_entry_resources(const spv_module *m, const spv_entry_point *e, spv_resource **out, spv_diag *diag)
{
    util_array list = { 0 };
    *out = NULL;
    bool *used = spv_entry_used_globals(m, e);
    spv_layouts *L = used ? spv_layouts_new(m, spv_layout_is_opencl(m, e), NULL, NULL, diag) : NULL;
    if (!L) {
        free(used);
        return used ? -1 : spv_fail(diag, "%s: out of memory", m->source);
    }
    const spv_function *f = &m->funcs[e->func];
    for (uint32_t i = 0; i < f->nparams; i++) {
        uint32_t id = f->params[i];
        spv_resource r = {
            .kind = SPV_RES_KERNEL_ARG, .id = id, .name = m->ids[id].name, .type_id = m->ids[id].type_id, .index = i
        };
        const spv_type *t = spv_type_get(m, r.type_id);
        /* a pointer to Function memory is how a struct passed by value arrives
         * (FuncParamAttr ByVal): the argument is the pointee's bytes */
        bool byval = t && t->kind == SPV_TYPE_POINTER && t->storage == SpvStorageClassFunction;
        r.is_pointer = t && t->kind == SPV_TYPE_POINTER && !byval;
        if (r.is_pointer) {
            r.storage = t->storage;
            r.readonly = spv_pointer_param_readonly(m, id);
        }
        r.elem_type_id = spv_uniform_scalar_type(m, t && t->kind == SPV_TYPE_POINTER ? t->elem : r.type_id);
        /* a pointer's pointee may have no size (void, an opaque struct): report 0 */
        const spv_layout *l = spv_layout_of(L, t && t->kind == SPV_TYPE_POINTER ? t->elem : r.type_id);
        r.size = l ? l->size : 0;
        if (!UTIL_ARRAY_PUSH(&list, spv_resource, r))
            goto oom;
    }
    for (uint32_t i = 0; i < m->first_func_inst; i++) {
        const spv_inst *in = &m->insts[i];
        if (in->opcode != SpvOpVariable)
            continue;
        const spv_type *pt = spv_type_get(m, in->type_id);
        if (!pt || pt->kind != SPV_TYPE_POINTER)
            continue;
        uint32_t id = in->result_id, pointee = pt->elem;
        spv_resource r = { .id = id, .name = m->ids[id].name, .type_id = pointee, .storage = pt->storage };
        if (!r.name || !*r.name)
            r.name = m->ids[pointee].name;
        const spv_decoration *d;
        if ((d = spv_find_decoration(m, id, -1, SpvDecorationDescriptorSet)) && d->nargs)
            r.set = d->args[0];
        if ((d = spv_find_decoration(m, id, -1, SpvDecorationBinding)) && d->nargs)
            r.binding = d->args[0];
        r.readonly = has_access_decoration(m, id, pointee, SpvDecorationNonWritable);
        r.writeonly = has_access_decoration(m, id, pointee, SpvDecorationNonReadable);
        r.elem_type_id = spv_uniform_scalar_type(m, pointee);
        switch (pt->storage) {
        case SpvStorageClassStorageBuffer:
            r.kind = SPV_RES_STORAGE_BUFFER;
            break;
        case SpvStorageClassUniform:
            r.kind = spv_find_decoration(m, pointee, -1, SpvDecorationBufferBlock) ? SPV_RES_STORAGE_BUFFER
                                                                                   : SPV_RES_UNIFORM_BUFFER;
            break;
        case SpvStorageClassPushConstant:
            r.kind = SPV_RES_PUSH_CONSTANT;
            break;
        case SpvStorageClassWorkgroup:
            r.kind = SPV_RES_WORKGROUP;
            break;
        case SpvStorageClassUniformConstant:
            r.kind = SPV_RES_OPAQUE;
            break;
        default:
            continue;
        }
        if (!used[id])
            continue;
        /* Arrays of buffers (descriptor arrays) keep the array type; the sizes are the element's. */
        const spv_type *pe = spv_type_get(m, pointee);
        uint32_t block =
            pe && (pe->kind == SPV_TYPE_ARRAY || pe->kind == SPV_TYPE_RUNTIME_ARRAY) && r.kind != SPV_RES_WORKGROUP
                ? pe->elem
                : pointee;
        if (r.kind != SPV_RES_OPAQUE && !spv_block_size(L, block, &r.size, &r.stride)) {
            util_array_fini(&list);
            spv_layouts_free(L);
            free(used);
            return -1;
        }
        if (!UTIL_ARRAY_PUSH(&list, spv_resource, r))
            goto oom;
    }
    spv_layouts_free(L);
    free(used);
    int n = (int)UTIL_ARRAY_COUNT(&list, spv_resource);
    *out = util_array_steal(&list);
    return n;
oom:
    util_array_fini(&list);
    spv_layouts_free(L);
    free(used);
    return spv_fail(diag, "%s: out of memory", m->source);
}
