/* lib/api_module.c — loading modules and reflecting their interface. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

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
            free(m->entries[i].res);
            free(m->entries[i].pub);
        }
    free(m->entries);
    api_ffi_cache_free(m);
    pthread_mutex_destroy(&m->ffi_lock);
    free(m->specs);
    free(m->spec_shapes);
    spv_module_free(m->m);
    api_context_release(m->ctx);
    free(m);
}

SPVJIT_API void spvjit_module_destroy(spvjit_module *m)
{
    api_module_release(m);
}

/* --- which spec constants shape types or the local size ---------------------
 * An unspecialized build reads spec values at run time, except those that
 * size the work-group or an array: those are compiled in, so only they go
 * into its cache key.  Marks every SpecId constant reachable from a
 * LocalSizeId operand, the WorkgroupSize builtin or an array length through
 * OpSpecConstantOp / OpSpecConstantComposite operands (literal operands read
 * as ids can only add harmless extra key entries). */

static void mark_shapes(const spvjit_module *mod, uint32_t id, bool *seen)
{
    const spv_module *m = mod->m;
    const spv_id *x = spv_id_get(m, id);
    if (!x || x->kind != SPV_ID_SPEC_CONSTANT || seen[id])
        return;
    seen[id] = true;
    if (x->spec_id != SPV_NONE)
        for (size_t i = 0; i < mod->nspecs; i++)
            if (mod->specs[i].spec_id == x->spec_id)
                mod->spec_shapes[i] = true;
    if (x->is_composite)
        for (uint32_t i = 0; i < x->nparts; i++)
            mark_shapes(mod, x->parts[i], seen);
    const spv_inst *in = spv_def(m, id);
    if (in && in->opcode == SpvOpSpecConstantOp)
        for (uint32_t i = 1; i < spv_inst_nops(in); i++)
            mark_shapes(mod, spv_inst_op(in, i), seen);
}

static int find_shapes(spvjit_module *mod)
{
    const spv_module *m = mod->m;
    mod->spec_shapes = calloc(mod->nspecs ? mod->nspecs : 1, sizeof *mod->spec_shapes);
    bool *seen = calloc(m->bound ? m->bound : 1, sizeof *seen);
    if (!mod->spec_shapes || !seen) {
        free(seen);
        return -1;
    }
    for (uint32_t i = 0; i < m->nentries; i++)
        if (m->entries[i].has_local_size_id)
            for (int d = 0; d < 3; d++)
                mark_shapes(mod, m->entries[i].local_size_id[d], seen);
    if (m->workgroup_size_id)
        mark_shapes(mod, m->workgroup_size_id, seen);
    for (uint32_t id = 1; id < m->bound; id++) {
        const spv_id *x = &m->ids[id];
        if (x->kind == SPV_ID_TYPE && x->type.kind == SPV_TYPE_ARRAY && x->type.count == 0)
            mark_shapes(mod, x->type.length_id, seen);
    }
    free(seen);
    return 0;
}

/* --- the public view of an entry's interface ----------------------------------- */

static int make_public_view(const spv_module *m, api_entry_info *ei)
{
    ei->pub = calloc((size_t)(ei->nres > 0 ? ei->nres : 1), sizeof *ei->pub);
    if (!ei->pub)
        return -1;
    for (int i = 0; i < ei->nres; i++) {
        const spv_resource *r = &ei->res[i];
        spvjit_resource_info p = { .name = r->name,
                                   .index = r->index,
                                   .set = r->set,
                                   .binding = r->binding,
                                   .size = r->size,
                                   .stride = r->stride };
        switch (r->kind) {
        case SPV_RES_KERNEL_ARG:
            if (!r->is_pointer) {
                p.kind = SPVJIT_RES_ARG_VALUE;
            } else {
                /* A buffer is an array of the pointee: report its size as the stride. */
                p.kind = r->storage == SpvStorageClassWorkgroup ? SPVJIT_RES_ARG_LOCAL : SPVJIT_RES_ARG_POINTER;
                p.stride = r->size;
                p.size = 0;
            }
            break;
        case SPV_RES_STORAGE_BUFFER:
            p.kind = SPVJIT_RES_STORAGE_BUFFER;
            break;
        case SPV_RES_UNIFORM_BUFFER:
            p.kind = SPVJIT_RES_UNIFORM_BUFFER;
            break;
        case SPV_RES_PUSH_CONSTANT:
            p.kind = SPVJIT_RES_PUSH_CONSTANTS;
            break;
        default:
            continue; /* work-group variables and opaque handles are not bound by the host */
        }
        (void)m;
        ei->pub[ei->npub++] = p;
    }
    return 0;
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
    pthread_mutex_init(&mod->ffi_lock, NULL);
    api_context_retain(ctx);
    mod->ctx = ctx;
    mod->m = m;
    mod->nspecs = mod->nspec_slots = spv_spec_constants(m, &mod->specs);
    /* One entry per SpecId: setting an id sets every constant that carries it. */
    size_t u = 0;
    for (size_t i = 0; i < mod->nspecs; i++)
        if (u == 0 || mod->specs[u - 1].spec_id != mod->specs[i].spec_id)
            mod->specs[u++] = mod->specs[i];
    mod->nspecs = u;
    mod->entries = calloc(m->nentries ? m->nentries : 1, sizeof *mod->entries);
    if (!mod->entries || find_shapes(mod) != 0) {
        api_module_release(mod);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_module_load: out of memory");
    }
    for (uint32_t i = 0; i < m->nentries; i++) {
        api_entry_info *ei = &mod->entries[i];
        ei->e = &m->entries[i];
        ei->nres = spv_entry_resources(m, ei->e, &ei->res, &d);
        if (ei->nres < 0) {
            api_module_release(mod);
            return api_fail(SPVJIT_ERROR_INVALID_MODULE, "%s", d.msg);
        }
        if (make_public_view(m, ei) != 0) {
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
    FILE *f = fopen(path, "rb");
    if (!f)
        return api_fail(errno == ENOENT ? SPVJIT_ERROR_NOT_FOUND : SPVJIT_ERROR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    size_t cap = 1 << 16, n = 0, r;
    unsigned char *buf = malloc(cap);
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *p = realloc(buf, cap *= 2);
            if (!p)
                free(buf);
            buf = p;
        }
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "%s: out of memory reading the file", path);
    if (err) {
        free(buf);
        return api_fail(SPVJIT_ERROR_IO, "%s: read error", path);
    }
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
    *out = (spvjit_spec_info){
        .spec_id = c->spec_id, .name = c->name, .type = (spvjit_type)c->type, .default_bits = c->default_bits
    };
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
