/* lib/call_exported.c — spvjit_call_exported: libffi calls of exported SPIR-V functions. */
#include "lib/call_exported.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

/* --- signatures ------------------------------------------------------------- */

static int ffi_type_of(const spv_module *m, uint32_t type_id, ffi_type **t, api_ffi_class *cls, size_t *size,
                       spv_diag *diag)
{
    const spv_type *ty = spv_type_get(m, type_id);
    char name[256];
    if (!ty)
        return spv_fail(diag, "%s: %%%u is not a type", m->source, type_id);
    switch (ty->kind) {
    case SPV_TYPE_VOID:
        *t = &ffi_type_void;
        *cls = API_FFI_VOID;
        *size = 0;
        return 0;
    case SPV_TYPE_BOOL:
        *t = &ffi_type_uint8;
        *cls = API_FFI_UINT;
        *size = 1;
        return 0;
    case SPV_TYPE_INT: {
        /* Kernel modules have no signedness: their ints pass as unsigned bits. */
        bool s = ty->is_signed && !m->is_kernel;
        *cls = s ? API_FFI_SINT : API_FFI_UINT;
        *size = ty->width / 8;
        switch (ty->width) {
        case 8:
            *t = s ? &ffi_type_sint8 : &ffi_type_uint8;
            return 0;
        case 16:
            *t = s ? &ffi_type_sint16 : &ffi_type_uint16;
            return 0;
        case 32:
            *t = s ? &ffi_type_sint32 : &ffi_type_uint32;
            return 0;
        case 64:
            *t = s ? &ffi_type_sint64 : &ffi_type_uint64;
            return 0;
        }
        break;
    }
    case SPV_TYPE_FLOAT:
        *cls = API_FFI_FLOAT;
        *size = ty->width / 8;
        if (ty->width == 32) {
            *t = &ffi_type_float;
            return 0;
        }
        if (ty->width == 64) {
            *t = &ffi_type_double;
            return 0;
        }
        break;
    case SPV_TYPE_POINTER:
        *t = &ffi_type_pointer;
        *cls = API_FFI_PTR;
        *size = sizeof(void *);
        return 0;
    default:
        break;
    }
    spv_type_name(m, type_id, name, sizeof name);
    return spv_fail(diag,
                    "%s: exported functions taking or returning %s cannot be called from host C yet "
                    "(scalars and pointers only)",
                    m->source, name);
}

int api_ffi_sig_make(const spv_module *m, uint32_t fn_type, api_ffi_sig *sig, spv_diag *diag)
{
    const spv_type *ft = spv_type_get(m, fn_type);
    memset(sig, 0, sizeof *sig);
    if (!ft || ft->kind != SPV_TYPE_FUNCTION)
        return spv_fail(diag, "%s: %%%u is not an OpTypeFunction", m->source, fn_type);
    if (ft->nmembers > API_FFI_MAX_ARGS)
        return spv_fail(diag, "%s: %u parameters, at most %u can be passed", m->source, ft->nmembers, API_FFI_MAX_ARGS);
    if (ffi_type_of(m, ft->elem, &sig->ret, &sig->ret_class, &sig->ret_size, diag) != 0)
        return -1;
    sig->nargs = ft->nmembers;
    for (uint32_t i = 0; i < ft->nmembers; i++) {
        api_ffi_class cls;
        if (ffi_type_of(m, ft->members[i], &sig->args[i], &cls, &sig->arg_sizes[i], diag) != 0)
            return -1;
        if (cls == API_FFI_VOID)
            return spv_fail(diag, "%s: parameter %u has type void", m->source, i);
    }
    if (ffi_prep_cif(&sig->cif, FFI_DEFAULT_ABI, sig->nargs, sig->ret, sig->args) != FFI_OK)
        return spv_fail(diag, "%s: libffi cannot prepare a call of this signature", m->source);
    return 0;
}

/* --- calls ----------------------------------------------------------------------- */

/* libffi widens integer results to ffi_arg; their low bytes come first on the
 * little-endian hosts the project assumes, so the first ret_size bytes are the
 * result at its own width. */
static void store_result(const api_ffi_sig *sig, const void *raw, void *dst)
{
    memcpy(dst, raw, sig->ret_size);
}

void api_ffi_call_lanes(const api_ffi_sig *sig, void (*fn)(void), unsigned lanes, const spvjit_call_arg *args,
                        void *results)
{
    void *values[API_FFI_MAX_ARGS];
    union {
        ffi_arg a;
        double d;
        uint64_t u;
        void *p;
        unsigned char bytes[16];
    } raw;
    for (unsigned lane = 0; lane < lanes; lane++) {
        for (unsigned i = 0; i < sig->nargs; i++)
            values[i] = (void *)((const unsigned char *)args[i].data +
                                 (args[i].varying ? (size_t)lane * sig->arg_sizes[i] : 0));
        memset(&raw, 0, sizeof raw);
        ffi_call((ffi_cif *)&sig->cif, fn, &raw, values);
        if (sig->ret_size)
            store_result(sig, &raw, (unsigned char *)results + (size_t)lane * sig->ret_size);
    }
}

uint32_t api_find_export(const spv_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->ndecs; i++) {
        const spv_decoration *d = &m->decs[i];
        if (d->decoration != SpvDecorationLinkageAttributes || d->member != -1 || d->nargs < 2)
            continue;
        const spv_id *x = spv_id_get(m, d->target);
        if (!x || x->kind != SPV_ID_FUNCTION || d->args[d->nargs - 1] != SpvLinkageTypeExport)
            continue;
        if (!strcmp(spv_literal_string(d->args, d->nargs - 1), name))
            return d->target;
    }
    return 0;
}

/* Lists the exported function names into buf (for error messages). */
static void list_exports(const spv_module *m, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < m->ndecs && n < len; i++) {
        const spv_decoration *d = &m->decs[i];
        const spv_id *x = spv_id_get(m, d->target);
        if (d->decoration == SpvDecorationLinkageAttributes && d->nargs >= 2 && x && x->kind == SPV_ID_FUNCTION &&
            d->args[d->nargs - 1] == SpvLinkageTypeExport)
            n += (size_t)snprintf(buf + n, len - n, "%s\"%s\"", n ? ", " : "",
                                  spv_literal_string(d->args, d->nargs - 1));
    }
}

/* --- prepared signatures, one per exported function of a module ----------------------- */

typedef struct api_ffi_cached {
    struct api_ffi_cached *next;
    uint32_t func_id;
    api_ffi_sig sig; /* the cif points into it: never moved */
} api_ffi_cached;

void api_ffi_cache_free(spvjit_module *m)
{
    while (m->ffi) {
        api_ffi_cached *n = m->ffi->next;
        free(m->ffi);
        m->ffi = n;
    }
}

/* The prepared signature of function f, made on first use. */
static const api_ffi_sig *module_sig(spvjit_module *mod, const spv_function *f, spv_diag *d)
{
    pthread_mutex_lock(&mod->ffi_lock);
    api_ffi_cached *c = mod->ffi;
    while (c && c->func_id != f->id)
        c = c->next;
    if (!c && (c = calloc(1, sizeof *c))) {
        if (api_ffi_sig_make(mod->m, f->fn_type, &c->sig, d) != 0) {
            free(c);
            pthread_mutex_unlock(&mod->ffi_lock);
            return NULL;
        }
        c->func_id = f->id;
        c->next = mod->ffi;
        mod->ffi = c;
    } else if (!c) {
        spv_fail(d, "out of memory");
    }
    pthread_mutex_unlock(&mod->ffi_lock);
    return c ? &c->sig : NULL;
}

/* --- the JIT side ---------------------------------------------------------------------
 * The function is compiled by the JIT (spvjit_compile_function) from the module
 * specialized with the call's values, once per (module, function, values):
 * the compiled code goes through the context's kernel cache like kernels do,
 * under a key of its own kind (api_cache_key). */

typedef struct export_build {
    const spvjit_module *mod;
    const char *name;
    const uint64_t *values;
    spvjit_status st;
} export_build;

static void *build_export(void *user, size_t *est)
{
    export_build *b = user;
    spvjit_shape_value *shapes = NULL;
    spv_module *sm = api_module_for_values(b->mod, b->values, false, &shapes, &b->st);
    free(shapes);
    if (!sm)
        return NULL;
    spv_diag d;
    d.msg[0] = 0;
    jit_kernel *owner = NULL;
    uint32_t fid = api_find_export(sm, b->name);
    spvjit_options o = { 0 };
    api_build_options_to_jit(&b->mod->ctx->options.build, &o);
    spvjit_native_fn fn = fid ? spvjit_compile_function(sm, fid, &o, &owner, &d) : NULL;
    api_compiled *c = fn ? api_compiled_new(sm, owner) : NULL;
    if (!c) {
        b->st = !fid  ? api_fail(SPVJIT_ERROR_INVALID_MODULE,
                                 "%s: \"%s\" is no longer exported after "
                                  "specialization",
                                 b->mod->m->source, b->name)
                : !fn ? api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s", d.msg)
                      : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
        spvjit_kernel_free(owner);
        spv_module_free(sm);
        return NULL;
    }
    c->fn = fn;
    *est = ((size_t)16 << 10) + sm->nwords * 4 * 16;
    return c;
}

/* The compiled function (a reference), or NULL with the error set. */
static api_compiled *compiled_export(spvjit_module *mod, const char *name, const uint64_t *values, spvjit_status *st)
{
    api_build_options o = mod->ctx->options.build;
    o.unspecialized = 0; /* exported functions are compiled from the specialized module */
    kcache_key key;
    unsigned char *rest = api_cache_key(mod, API_CODE_FUNCTION, name, &o, values, &key);
    if (!rest) {
        *st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    export_build b = { .mod = mod, .name = name, .values = values, .st = SPVJIT_OK };
    bool hit;
    api_compiled *c = kcache_get(mod->ctx->cache, &key, build_export, &b, &hit);
    free(rest);
    if (!c)
        *st = b.st != SPVJIT_OK ? b.st : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory (kernel cache)");
    return c;
}

SPVJIT_API spvjit_status spvjit_call_exported(spvjit_module *mod, const char *name, const spvjit_specs *specs,
                                              unsigned lanes, const spvjit_call_arg *args, unsigned nargs,
                                              void *results)
{
    if (!mod || !name || (nargs && !args))
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_call_exported: NULL argument");
    const spv_module *m = mod->m;
    uint32_t fid = api_find_export(m, name);
    if (!fid) {
        char list[1024];
        list_exports(m, list, sizeof list);
        return api_fail(SPVJIT_ERROR_NOT_FOUND,
                        "%s: no function exported as \"%s\" (Linkage Export); the module "
                        "exports %s",
                        m->source, name, *list ? list : "none");
    }
    const spv_function *f = NULL;
    for (uint32_t i = 0; i < m->nfuncs && !f; i++)
        if (m->funcs[i].id == fid)
            f = &m->funcs[i];
    if (!f)
        return api_fail(SPVJIT_ERROR_INVALID_MODULE, "%s: exported \"%s\" has no function body", m->source, name);
    spv_diag d;
    d.msg[0] = 0;
    const api_ffi_sig *sig = module_sig(mod, f, &d);
    if (!sig)
        return api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s", d.msg);
    if (nargs != sig->nargs)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" takes %u argument%s; %u given", m->source, name,
                        sig->nargs, sig->nargs == 1 ? "" : "s", nargs);
    for (unsigned i = 0; i < nargs; i++)
        if (!args[i].data)
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" argument %u: data is NULL", m->source, name, i);
    if (lanes && sig->ret_size && !results)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" returns a value: results is NULL", m->source, name);
    uint64_t *values = NULL;
    spvjit_status st = api_resolve_specs(mod, specs, &values);
    if (st != SPVJIT_OK) {
        free(values);
        return st;
    }
    api_compiled *c = compiled_export(mod, name, values, &st);
    free(values);
    if (!c)
        return st;
    api_ffi_call_lanes(sig, c->fn, lanes, args, results);
    api_compiled_release(c);
    return SPVJIT_OK;
}
