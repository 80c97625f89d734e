/* lib/api_module.c — loading modules and reflecting their interface. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "spirv_grammar.h"
#include "util/file.h"

void api_module_retain(spvjit_module *m)
{
    atomic_fetch_add(&m->refs, 1);
}

void api_module_release(spvjit_module *m)
{
    if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    if (m->entries)
        for (uint32_t i = 0; i < m->m->nentries; i++) {
            api_entry_info *ei = &m->entries[i];
            for (unsigned k = 0; ei->pub && k < ei->npub; k++)
                free((char *)ei->pub[k].type_name);
            free(ei->res);
            free(ei->pub);
        }
    free(m->entries);
    api_exports_free(m);
    free(m->slots);
    free(m->specs);
    free(m->spec_sets);
    if (m->view != m->m)
        spv_module_free(m->view);
    spv_module_free(m->m);
    api_context_release(m->ctx);
    free(m);
}

SPVJIT_API void spvjit_module_destroy(spvjit_module *m)
{
    api_module_release(m);
}

/* --- what spec constants set -----------------------------------------------------
 * A work-group size dimension, an array length: the SpecId constants reachable
 * from a LocalSizeId operand, the WorkgroupSize builtin's constituents or an
 * array length through OpSpecConstantOp / OpSpecConstantComposite operands
 * (literal operands read as ids can only mark too much, never too little).
 * An unspecialized build compiles exactly these values in (its cache key holds
 * only them). */

static void mark_sets(const spvjit_module *mod, uint32_t id, unsigned bit, unsigned char *seen)
{
    const spv_module *m = mod->m;
    const spv_id *x = spv_id_get(m, id);
    if (!x || x->kind != SPV_ID_SPEC_CONSTANT || (seen[id] & bit))
        return;
    seen[id] |= (unsigned char)bit;
    if (x->spec_id != SPV_NONE)
        for (size_t i = 0; i < mod->nspecs; i++)
            if (mod->specs[i].spec_id == x->spec_id)
                mod->spec_sets[i] |= bit;
    if (x->is_composite)
        for (uint32_t i = 0; i < x->nparts; i++)
            mark_sets(mod, x->parts[i], bit, seen);
    const spv_inst *in = spv_def(m, id);
    if (in && in->opcode == SpvOpSpecConstantOp)
        for (uint32_t i = 1; i < spv_inst_nops(in); i++)
            mark_sets(mod, spv_inst_op(in, i), bit, seen);
}

static int find_sets(spvjit_module *mod)
{
    const spv_module *m = mod->m;
    mod->spec_sets = calloc(mod->nspecs ? mod->nspecs : 1, sizeof *mod->spec_sets);
    unsigned char *seen = calloc(m->bound ? m->bound : 1, 1);
    if (!mod->spec_sets || !seen) {
        free(seen);
        return -1;
    }
    for (uint32_t i = 0; i < m->nentries; i++)
        if (m->entries[i].has_local_size_id)
            for (int d = 0; d < 3; d++)
                mark_sets(mod, m->entries[i].local_size_id[d], SPVJIT_SETS_LOCAL_SIZE_X << d, seen);
    const spv_id *wg = spv_id_get(m, m->workgroup_size_id);
    for (uint32_t d = 0; wg && wg->is_composite && d < wg->nparts && d < 3; d++)
        mark_sets(mod, wg->parts[d], SPVJIT_SETS_LOCAL_SIZE_X << d, seen);
    for (uint32_t id = 1; id < m->bound; id++) {
        const spv_id *x = &m->ids[id];
        if (x->kind == SPV_ID_TYPE && x->type.kind == SPV_TYPE_ARRAY)
            mark_sets(mod, x->type.length_id, SPVJIT_SETS_ARRAY_LENGTH, seen);
    }
    free(seen);
    return 0;
}

/* One entry per SpecId, named after the first named constant carrying it. */
static int list_specs(spvjit_module *mod)
{
    mod->nslots = spv_spec_constants(mod->m, &mod->slots);
    mod->specs = calloc(mod->nslots ? mod->nslots : 1, sizeof *mod->specs);
    if (!mod->specs)
        return -1;
    for (size_t i = 0; i < mod->nslots; i++) {
        const spv_spec_constant *c = &mod->slots[i];
        spv_spec_constant *u = mod->nspecs ? &mod->specs[mod->nspecs - 1] : NULL;
        if (!u || u->spec_id != c->spec_id)
            mod->specs[mod->nspecs++] = *c;
        else if (!(u->name && *u->name))
            u->name = c->name;
    }
    return 0;
}

/* --- the public view of an entry's interface ----------------------------------- */

static spvjit_resource_kind public_kind(const spv_resource *r, bool *listed)
{
    *listed = true;
    switch (r->kind) {
    case SPV_RES_KERNEL_ARG:
        return !r->is_pointer                           ? SPVJIT_RES_ARG_VALUE
               : r->storage == SpvStorageClassWorkgroup ? SPVJIT_RES_ARG_LOCAL
                                                        : SPVJIT_RES_ARG_POINTER;
    case SPV_RES_STORAGE_BUFFER:
        return SPVJIT_RES_STORAGE_BUFFER;
    case SPV_RES_UNIFORM_BUFFER:
        return SPVJIT_RES_UNIFORM_BUFFER;
    case SPV_RES_PUSH_CONSTANT:
        return SPVJIT_RES_PUSH_CONSTANTS;
    case SPV_RES_OPAQUE:
        return SPVJIT_RES_UNSUPPORTED;
    default:
        *listed = false; /* work-group variables: counted in the entry's wg_memory_bytes */
        return SPVJIT_RES_UNSUPPORTED;
    }
}

static const char *enum_name(spv_operand_kind k, uint32_t v)
{
    const char *s = spv_enum_name(k, v);
    return s ? s : "?";
}

static int make_public_view(const spv_module *m, api_entry_info *ei)
{
    ei->pub = calloc((size_t)(ei->nres > 0 ? ei->nres : 1), sizeof *ei->pub);
    if (!ei->pub)
        return -1;
    for (int i = 0; i < ei->nres; i++) {
        const spv_resource *r = &ei->res[i];
        bool listed;
        spvjit_resource_info p = { .kind = public_kind(r, &listed),
                                   .name = r->name,
                                   .index = r->index,
                                   .set = r->set,
                                   .binding = r->binding,
                                   .size = r->size,
                                   .stride = r->stride,
                                   .storage_class = enum_name(SPV_OPERAND_StorageClass, r->storage),
                                   .readonly = r->readonly || r->kind == SPV_RES_UNIFORM_BUFFER ||
                                               r->kind == SPV_RES_PUSH_CONSTANT ||
                                               (r->kind == SPV_RES_KERNEL_ARG && !r->is_pointer),
                                   .elem_type = (spvjit_type)spv_value_type_of(m, r->elem_type_id) };
        if (!listed) {
            ei->wg_bytes += r->size;
            continue;
        }
        uint32_t type_id = r->type_id;
        if (r->kind == SPV_RES_KERNEL_ARG && r->is_pointer) {
            /* A buffer is an array of the pointee: report its size as the stride. */
            const spv_type *pt = spv_type_get(m, r->type_id);
            type_id = pt ? pt->elem : 0;
            p.stride = r->size;
            p.size = 0;
        }
        char tn[512];
        spv_type_name(m, type_id, tn, sizeof tn);
        if (!(p.type_name = strdup(tn)))
            return -1;
        ei->pub[ei->npub++] = p;
    }
    return 0;
}

/* The module with its default values folded in: what reflection reports sizes
 * and the local size from (an array length or work-group size computed by an
 * OpSpecConstantOp has a value only there).  The module itself where that
 * fails, or where folding changed no word (no spec constants). */
static spv_module *default_view(spv_module *m)
{
    uint32_t *w = NULL;
    size_t nw = 0;
    spv_diag d;
    spv_module *view = NULL;
    if (spv_specialize(m, NULL, 0, &w, &nw, &d) == 0 && !spv_module_words_are(m, w, nw))
        view = spv_module_load(w, nw * 4, m->source, &(spv_load_options){ .skip_validation = true }, &d);
    free(w);
    for (uint32_t i = 0; view && i < m->nentries; i++)
        if (view->nentries != m->nentries || strcmp(view->entries[i].name, m->entries[i].name)) {
            spv_module_free(view);
            view = NULL;
        }
    return view ? view : m;
}

/* --- loading ------------------------------------------------------------------------ */

SPVJIT_API spvjit_status spvjit_module_load(spvjit_context *ctx, const void *bytes, size_t nbytes, const char *name,
                                            spvjit_module **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_load: out is NULL");
    *out = NULL;
    if (!ctx || (!bytes && nbytes))
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_load: %s is NULL",
                        !ctx ? "the context" : "bytes");
    spv_diag d;
    d.msg[0] = 0;
    spv_module *m = spv_module_load(bytes, nbytes, name, NULL, &d);
    if (!m)
        return api_fail(SPVJIT_ERROR_INVALID_MODULE, "%s", d.msg);
    if (!m->is_kernel && !m->is_shader) {
        spvjit_status s = api_fail(SPVJIT_ERROR_UNSUPPORTED,
                                   "%s: the module declares neither the Shader "
                                   "nor the Kernel capability",
                                   m->source);
        spv_module_free(m);
        return s;
    }

    spvjit_module *mod = calloc(1, sizeof *mod);
    if (!mod) {
        spv_module_free(m);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_module_load: out of memory");
    }
    atomic_init(&mod->refs, 1);
    api_context_retain(ctx);
    mod->ctx = ctx;
    mod->m = m;
    util_digest_bytes(m->words, m->nwords * 4, mod->digest);
    mod->view = default_view(m);
    mod->entries = calloc(m->nentries ? m->nentries : 1, sizeof *mod->entries);
    if (!mod->entries || list_specs(mod) != 0 || find_sets(mod) != 0 || api_exports_make(mod) != 0) {
        api_module_release(mod);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_module_load: out of memory");
    }
    for (uint32_t i = 0; i < m->nentries; i++) {
        api_entry_info *ei = &mod->entries[i];
        ei->e = &m->entries[i];
        ei->nres = spv_entry_resources(mod->view, &mod->view->entries[i], &ei->res, &d);
        if (ei->nres < 0) {
            api_module_release(mod);
            return api_fail(SPVJIT_ERROR_INVALID_MODULE, "%s", d.msg);
        }
        if (make_public_view(mod->view, ei) != 0) {
            api_module_release(mod);
            return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_module_load: out of memory");
        }
    }
    *out = mod;
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_module_load_file(spvjit_context *ctx, const char *path, spvjit_module **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_load_file: out is NULL");
    *out = NULL;
    if (!path)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_load_file: path is NULL");
    size_t n = 0;
    void *buf = util_read_file(path, &n);
    if (!buf)
        return api_fail(errno == ENOENT   ? SPVJIT_ERROR_NOT_FOUND
                        : errno == ENOMEM ? SPVJIT_ERROR_OUT_OF_MEMORY
                                          : SPVJIT_ERROR_IO,
                        "%s: cannot read: %s", path, strerror(errno));
    spvjit_status s = spvjit_module_load(ctx, buf, n, path, out);
    free(buf);
    return s;
}

/* --- reflection ------------------------------------------------------------------------ */

const api_entry_info *api_module_entry(const spvjit_module *m, const char *name, spvjit_status *st)
{
    const spv_entry_point *e = spv_find_entry(m->m, name);
    if (!e) {
        char list[1024] = "";
        size_t k = 0;
        for (uint32_t i = 0; i < m->m->nentries && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s\"%s\"", i ? ", " : "", m->m->entries[i].name);
        *st = name ? api_fail(SPVJIT_ERROR_NOT_FOUND, "%s: no entry point \"%s\"; the module has %s", m->m->source,
                              name, *list ? list : "none")
                   : api_fail(SPVJIT_ERROR_NOT_FOUND, "%s: no GLCompute or Kernel entry point; the module has %s",
                              m->m->source, *list ? list : "none");
        return NULL;
    }
    if (e->model != SpvExecutionModelGLCompute && e->model != SpvExecutionModelKernel) {
        *st = api_fail(SPVJIT_ERROR_UNSUPPORTED,
                       "%s: entry point \"%s\" is not a compute (GLCompute) or "
                       "Kernel entry point",
                       m->m->source, e->name);
        return NULL;
    }
    *st = SPVJIT_OK;
    return &m->entries[e - m->m->entries];
}

SPVJIT_API spvjit_flavour spvjit_module_flavour(const spvjit_module *m)
{
    return m && m->m->is_kernel ? SPVJIT_FLAVOUR_KERNEL : SPVJIT_FLAVOUR_SHADER;
}

SPVJIT_API spvjit_status spvjit_module_info_get(const spvjit_module *m, spvjit_module_info *out)
{
    if (!m || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_info_get: NULL argument");
    const spv_module *s = m->m;
    *out = (spvjit_module_info){ .flavour = spvjit_module_flavour(m),
                                 .spirv_major = (s->version >> 16) & 0xff,
                                 .spirv_minor = (s->version >> 8) & 0xff,
                                 .addressing_model = s->addressing,
                                 .addressing_model_name = enum_name(SPV_OPERAND_AddressingModel, s->addressing),
                                 .memory_model = s->memory_model,
                                 .memory_model_name = enum_name(SPV_OPERAND_MemoryModel, s->memory_model),
                                 .ncapabilities = s->ncaps };
    return SPVJIT_OK;
}

SPVJIT_API const char *spvjit_module_capability(const spvjit_module *m, unsigned i)
{
    return m && i < m->m->ncaps ? enum_name(SPV_OPERAND_Capability, m->m->caps[i]) : NULL;
}

/* The SpecId constant behind a work-group size operand, SPVJIT_NO_SPEC_ID if none. */
static uint32_t spec_id_of(const spv_module *m, uint32_t id)
{
    const spv_id *x = spv_id_get(m, id);
    return x && x->kind == SPV_ID_SPEC_CONSTANT && x->spec_id != SPV_NONE ? x->spec_id : SPVJIT_NO_SPEC_ID;
}

SPVJIT_API spvjit_status spvjit_module_entry_info(const spvjit_module *m, unsigned i, spvjit_entry_info *out)
{
    if (!m || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_entry_info: NULL argument");
    if (i >= m->m->nentries)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: entry point index %u out of range (the module has %u)",
                        m->m->source, i, m->m->nentries);
    const spv_module *s = m->m;
    const spv_entry_point *e = &s->entries[i], *ve = &m->view->entries[i];
    *out = (spvjit_entry_info){ .name = e->name,
                                .execution_model = e->model,
                                .execution_model_name = enum_name(SPV_OPERAND_ExecutionModel, e->model),
                                .is_compute =
                                    e->model == SpvExecutionModelGLCompute || e->model == SpvExecutionModelKernel,
                                .wg_memory_bytes = m->entries[i].wg_bytes };
    const spv_id *wg = spv_id_get(s, s->workgroup_size_id);
    for (int d = 0; d < 3; d++) {
        out->local_size_spec_id[d] = SPVJIT_NO_SPEC_ID;
        /* SPIR-V: the WorkgroupSize builtin takes precedence over LocalSize / LocalSizeId. */
        if (wg && wg->is_composite && (uint32_t)d < wg->nparts)
            out->local_size_spec_id[d] = spec_id_of(s, wg->parts[d]);
        else if (!wg && e->has_local_size_id)
            out->local_size_spec_id[d] = spec_id_of(s, e->local_size_id[d]);
    }
    /* Spec constants set the size only if the WorkgroupSize builtin or a
     * LocalSizeId operand is one (a specialized module keeps plain ones). */
    bool by_spec = wg && wg->kind == SPV_ID_SPEC_CONSTANT;
    for (int d = 0; !wg && e->has_local_size_id && d < 3; d++) {
        const spv_id *x = spv_id_get(s, e->local_size_id[d]);
        by_spec |= x && x->kind == SPV_ID_SPEC_CONSTANT;
    }
    if (wg || e->has_local_size_id) {
        out->local_size_kind = by_spec ? SPVJIT_LOCAL_SIZE_SPEC : SPVJIT_LOCAL_SIZE_FIXED;
        if (ve->has_local_size)
            memcpy(out->local_size, ve->local_size, sizeof out->local_size);
    } else if (e->has_local_size) {
        out->local_size_kind = SPVJIT_LOCAL_SIZE_FIXED;
        memcpy(out->local_size, e->local_size, sizeof out->local_size);
    } else {
        out->local_size_kind = SPVJIT_LOCAL_SIZE_DISPATCH;
        if (e->has_local_size_hint)
            memcpy(out->local_size, e->local_size_hint, sizeof out->local_size);
    }
    return SPVJIT_OK;
}

SPVJIT_API unsigned spvjit_module_entry_count(const spvjit_module *m)
{
    return m ? m->m->nentries : 0;
}

SPVJIT_API const char *spvjit_module_entry_name(const spvjit_module *m, unsigned i)
{
    return m && i < m->m->nentries ? m->m->entries[i].name : NULL;
}

SPVJIT_API unsigned spvjit_module_spec_count(const spvjit_module *m)
{
    return m ? (unsigned)m->nspecs : 0;
}

_Static_assert((int)SPVJIT_TYPE_BOOL == (int)SPV_VALUE_BOOL && (int)SPVJIT_TYPE_I8 == (int)SPV_VALUE_I8 &&
                   (int)SPVJIT_TYPE_U8 == (int)SPV_VALUE_U8 && (int)SPVJIT_TYPE_F64 == (int)SPV_VALUE_F64,
               "spvjit_type and spv_value_type share their numbering");

SPVJIT_API spvjit_status spvjit_module_spec_info(const spvjit_module *m, unsigned i, spvjit_spec_info *out)
{
    if (!m || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_spec_info: NULL argument");
    if (i >= m->nspecs)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                        "%s: spec constant index %u out of range (the module "
                        "has %zu)",
                        m->m->source, i, m->nspecs);
    const spv_spec_constant *c = &m->specs[i];
    *out = (spvjit_spec_info){ .spec_id = c->spec_id,
                               .name = c->name,
                               .type = (spvjit_type)c->type,
                               .default_bits = c->default_bits,
                               .sets = m->spec_sets[i] };
    return SPVJIT_OK;
}

SPVJIT_API unsigned spvjit_module_resource_count(const spvjit_module *m, const char *entry)
{
    spvjit_status st;
    const api_entry_info *ei = m ? api_module_entry(m, entry, &st) : NULL;
    return ei ? ei->npub : 0;
}

SPVJIT_API spvjit_status spvjit_module_resource_info(const spvjit_module *m, const char *entry, unsigned i,
                                                     spvjit_resource_info *out)
{
    if (!m || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_resource_info: NULL argument");
    spvjit_status st;
    const api_entry_info *ei = api_module_entry(m, entry, &st);
    if (!ei)
        return st;
    if (i >= ei->npub)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: resource index %u out of range (entry \"%s\" has %u)",
                        m->m->source, i, ei->e->name, ei->npub);
    *out = ei->pub[i];
    return SPVJIT_OK;
}
