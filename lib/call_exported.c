/* lib/call_exported.c — exported SPIR-V functions: their reflection and libffi calls. */
#include "lib/call_exported.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/rt_check.h"
#include "lib/api_internal.h"
#include "spirv/interface.h"
#include "spirv/spec_value.h"
#include "spirv_grammar.h"
#include "util/array.h"

/* --- signatures: what host C passes ------------------------------------------------- */

#define HOST_C_TYPES "bool, 8- to 64-bit integers, float, double and pointers only"

/* One SPIR-V type as host C passes it, into *v (its name and type_name left
 * to the caller); returns its libffi type, or NULL when host C cannot pass it. */
static ffi_type *describe(const spv_module *m, uint32_t type_id, spvjit_export_value *v)
{
    const spv_type *t = spv_type_get(m, type_id);
    v->kind = SPVJIT_VALUE_OTHER;
    if (!t)
        return NULL;
    switch (t->kind) {
    case SPV_TYPE_VOID:
        v->kind = SPVJIT_VALUE_VOID;
        return &ffi_type_void;
    case SPV_TYPE_BOOL:
        v->kind = SPVJIT_VALUE_SCALAR;
        v->type = SPVJIT_TYPE_BOOL;
        v->size = 1;
        return &ffi_type_uint8;
    case SPV_TYPE_INT: {
        if (t->width != 8 && t->width != 16 && t->width != 32 && t->width != 64)
            return NULL;
        /* Kernel modules have no signedness: their ints pass as unsigned bits. */
        bool s = t->is_signed && !m->is_kernel;
        v->kind = SPVJIT_VALUE_SCALAR;
        v->type = (spvjit_type)spv_value_type_of(m, type_id);
        v->size = t->width / 8;
        switch (t->width) {
        case 8:
            return s ? &ffi_type_sint8 : &ffi_type_uint8;
        case 16:
            return s ? &ffi_type_sint16 : &ffi_type_uint16;
        case 32:
            return s ? &ffi_type_sint32 : &ffi_type_uint32;
        default:
            return s ? &ffi_type_sint64 : &ffi_type_uint64;
        }
    }
    case SPV_TYPE_FLOAT:
        if (t->width != 16 && t->width != 32 && t->width != 64)
            return NULL;
        v->kind = SPVJIT_VALUE_SCALAR;
        v->type = (spvjit_type)spv_value_type_of(m, type_id);
        v->size = t->width / 8;
        /* half: a scalar of the API's vocabulary, but no C type of libffi's */
        return t->width == 32 ? &ffi_type_float : t->width == 64 ? &ffi_type_double : NULL;
    case SPV_TYPE_POINTER: {
        const char *sc = spv_enum_name(SPV_OPERAND_StorageClass, t->storage);
        v->kind = SPVJIT_VALUE_POINTER;
        v->size = sizeof(void *);
        v->storage_class = sc ? sc : "?";
        v->elem_type = (spvjit_type)spv_value_type_of(m, spv_uniform_scalar_type(m, t->elem));
        return &ffi_type_pointer;
    }
    default:
        return NULL;
    }
}

/* Describes the result and parameters of OpTypeFunction `fn_type` into
 * result and params[nmembers] (type names left to the caller; parameter names
 * from f, when given) and, when host C can pass them all, prepares sig.
 * Returns 0, or -1 with the reason in why (the descriptions are complete
 * either way). */
static int signature(const spv_module *m, uint32_t fn_type, const spv_function *f, spvjit_export_value *result,
                     spvjit_export_value *params, api_ffi_sig *sig, char *why, size_t len)
{
    const spv_type *ft = spv_type_get(m, fn_type);
    char tn[256];
    memset(sig, 0, sizeof *sig);
    if (!ft || ft->kind != SPV_TYPE_FUNCTION) {
        snprintf(why, len, "%%%u is not an OpTypeFunction", fn_type);
        return -1;
    }
    why[0] = 0;
    if (!(sig->ret = describe(m, ft->elem, result))) {
        spv_type_name(m, ft->elem, tn, sizeof tn);
        snprintf(why, len, "the result has type %s, which host C cannot pass (" HOST_C_TYPES ")", tn);
    }
    sig->ret_size = result->size;
    for (uint32_t i = 0; i < ft->nmembers; i++) {
        ffi_type *t = describe(m, ft->members[i], &params[i]);
        params[i].name = f && i < f->nparams ? m->ids[f->params[i]].name : NULL;
        if ((!t || params[i].kind == SPVJIT_VALUE_VOID) && !why[0]) {
            spv_type_name(m, ft->members[i], tn, sizeof tn);
            snprintf(why, len, "parameter %u%s%s%s has type %s, which host C cannot pass (" HOST_C_TYPES ")", i,
                     params[i].name ? " (" : "", params[i].name ? params[i].name : "", params[i].name ? ")" : "", tn);
        }
        if (i < API_FFI_MAX_ARGS) {
            sig->args[i] = t;
            sig->arg_sizes[i] = params[i].size;
        }
    }
    if (!why[0] && ft->nmembers > API_FFI_MAX_ARGS)
        snprintf(why, len, "%u parameters; at most %u can be passed", ft->nmembers, API_FFI_MAX_ARGS);
    sig->nargs = ft->nmembers;
    if (!why[0] && ffi_prep_cif(&sig->cif, FFI_DEFAULT_ABI, sig->nargs, sig->ret, sig->args) != FFI_OK)
        snprintf(why, len, "libffi cannot prepare a call of this signature");
    return why[0] ? -1 : 0;
}

int api_ffi_sig_make(const spv_module *m, uint32_t fn_type, api_ffi_sig *sig, spv_diag *diag)
{
    const spv_type *ft = spv_type_get(m, fn_type);
    uint32_t n = ft && ft->kind == SPV_TYPE_FUNCTION ? ft->nmembers : 0;
    spvjit_export_value result = { 0 }, *params = calloc(n ? n : 1, sizeof *params);
    char why[512];
    if (!params)
        return spv_fail(diag, "out of memory");
    int r = signature(m, fn_type, NULL, &result, params, sig, why, sizeof why);
    free(params);
    return r ? spv_fail(diag, "%s: %s", m->source, why) : 0;
}

/* --- calls ----------------------------------------------------------------------- */

/* libffi widens integer results to ffi_arg; their low bytes come first on the
 * little-endian hosts the project assumes, so the first ret_size bytes are the
 * result at its own width. */
static void store_result(const api_ffi_sig *sig, const void *raw, void *dst)
{
    memcpy(dst, raw, sig->ret_size);
}

unsigned api_ffi_call_lanes(const api_ffi_sig *sig, void (*fn)(void), unsigned lanes, const spvjit_call_arg *args,
                            void *results, bool (*stop)(void *user, unsigned lane), void *user)
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
        if (stop && stop(user, lane))
            return lane + 1;
    }
    return lanes;
}

/* The name a decoration exports a function under (LinkageAttributes ... Export), or NULL. */
static const char *exported_name(const spv_module *m, const spv_decoration *d)
{
    if (d->decoration != SpvDecorationLinkageAttributes || d->member != -1 || d->nargs < 2 ||
        d->args[d->nargs - 1] != SpvLinkageTypeExport)
        return NULL;
    const spv_id *x = spv_id_get(m, d->target);
    return x && x->kind == SPV_ID_FUNCTION ? spv_literal_string(d->args, d->nargs - 1) : NULL;
}

uint32_t api_find_export(const spv_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->ndecs; i++) {
        const char *n = exported_name(m, &m->decs[i]);
        if (n && !strcmp(n, name))
            return m->decs[i].target;
    }
    return 0;
}

/* --- the module's exported functions ---------------------------------------------------- */

static void export_clear(api_export *x)
{
    for (unsigned i = 0; x->params && i < x->pub.nparams; i++)
        free((char *)x->params[i].type_name);
    free(x->params);
    free((char *)x->pub.result.type_name);
    free((char *)x->pub.unsupported);
    free(x->sig);
}

void api_exports_free(spvjit_module *mod)
{
    for (unsigned i = 0; i < mod->nexports; i++)
        export_clear(&mod->exports[i]);
    free(mod->exports);
    mod->exports = NULL;
    mod->nexports = 0;
}

static char *type_name_dup(const spv_module *m, uint32_t type_id)
{
    char tn[512];
    spv_type_name(m, type_id, tn, sizeof tn);
    return strdup(tn);
}

/* Describes exported function f as x (zeroed); -1 when out of memory. */
static int export_make(const spv_module *m, const spv_function *f, const char *name, api_export *x)
{
    const spv_type *ft = spv_type_get(m, f->fn_type);
    unsigned n = ft && ft->kind == SPV_TYPE_FUNCTION ? ft->nmembers : 0;
    char why[512];
    x->func_id = f->id;
    x->pub.name = name;
    x->pub.nparams = n;
    x->pub.params = x->params = calloc(n ? n : 1, sizeof *x->params);
    x->sig = calloc(1, sizeof *x->sig);
    if (!x->params || !x->sig)
        return -1;
    int r = signature(m, f->fn_type, f, &x->pub.result, x->params, x->sig, why, sizeof why);
    if (!(x->pub.result.type_name = type_name_dup(m, f->type_id)))
        return -1;
    for (unsigned i = 0; i < n; i++) {
        uint32_t id = i < f->nparams ? f->params[i] : 0;
        spvjit_export_value *p = &x->params[i];
        p->readonly = id && p->kind == SPVJIT_VALUE_POINTER && spv_pointer_param_readonly(m, id);
        if (!(p->type_name = type_name_dup(m, ft->members[i])))
            return -1;
    }
    /* what makes the whole function uncallable comes before its types */
    if (!m->is_kernel || m->is_shader)
        snprintf(why, sizeof why, "only functions of Kernel-flavour (OpenCL / SYCL) modules can be called from host C");
    else if (f->is_declaration)
        snprintf(why, sizeof why, "it is a declaration without a body");
    else if (r == 0)
        return 0;
    free(x->sig);
    x->sig = NULL;
    return (x->pub.unsupported = strdup(why)) ? 0 : -1;
}

int api_exports_make(spvjit_module *mod)
{
    const spv_module *m = mod->m;
    util_array list = { 0 };
    int r = 0;
    for (uint32_t i = 0; i < m->ndecs && r == 0; i++) {
        const char *name = exported_name(m, &m->decs[i]);
        uint32_t fidx = name ? spv_function_index(m, m->decs[i].target) : SPV_NONE;
        if (fidx == SPV_NONE)
            continue;
        api_export *x = util_array_grow(&list, sizeof *x);
        r = x ? export_make(m, &m->funcs[fidx], name, x) : -1;
    }
    mod->exports = list.data;
    mod->nexports = (unsigned)UTIL_ARRAY_COUNT(&list, api_export);
    return r;
}

static const api_export *export_named(const spvjit_module *mod, const char *name)
{
    for (unsigned i = 0; i < mod->nexports; i++)
        if (!strcmp(mod->exports[i].pub.name, name))
            return &mod->exports[i];
    return NULL;
}

SPVJIT_API unsigned spvjit_module_export_count(const spvjit_module *m)
{
    return m ? m->nexports : 0;
}

SPVJIT_API spvjit_status spvjit_module_export_info(const spvjit_module *m, unsigned i, spvjit_export_info *out)
{
    if (!m || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_module_export_info: NULL argument");
    if (i >= m->nexports)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: export index %u out of range (the module exports %u)",
                        m->m->source, i, m->nexports);
    *out = m->exports[i].pub;
    return SPVJIT_OK;
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
    spv_module *sm = api_module_for_values(b->mod, b->values, false, true, &shapes, &b->st);
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
    api_compiled *c =
        fn ? api_compiled_new(sm, owner, o.tier == JIT_TIER_QUICK ? JIT_TIER_QUICK : JIT_TIER_OPT, NULL) : NULL;
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

/* "argument 1 (x: float)" */
static const char *arg_label(const spvjit_export_value *p, unsigned i, char *buf, size_t len)
{
    snprintf(buf, len, "argument %u (%s%s%s)", i, p->name ? p->name : "", p->name ? ": " : "", p->type_name);
    return buf;
}

/* The sizes the caller states against the signature. */
static spvjit_status check_sizes(const spvjit_module *mod, const api_export *x, unsigned lanes,
                                 const spvjit_call_arg *args, unsigned nargs, const void *results, size_t results_size)
{
    const char *src = mod->m->source, *name = x->pub.name;
    char label[512];
    if (nargs != x->pub.nparams)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" takes %u argument%s; %u given", src, name,
                        x->pub.nparams, x->pub.nparams == 1 ? "" : "s", nargs);
    for (unsigned i = 0; i < nargs; i++) {
        const spvjit_export_value *p = &x->params[i];
        uint64_t want = args[i].varying ? (uint64_t)lanes * p->size : p->size;
        if (args[i].size != want) {
            arg_label(p, i, label, sizeof label);
            if (args[i].varying)
                return api_fail(SPVJIT_ERROR_BINDING,
                                "%s: \"%s\" %s is varying: %u lanes of %zu bytes take %" PRIu64
                                " bytes, but size is %zu",
                                src, name, label, lanes, p->size, want, args[i].size);
            return api_fail(SPVJIT_ERROR_BINDING, "%s: \"%s\" %s is uniform: one value of %zu bytes, but size is %zu",
                            src, name, label, p->size, args[i].size);
        }
        if (!args[i].data && args[i].size)
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" %s: data is NULL", src, name,
                            arg_label(p, i, label, sizeof label));
    }
    const spvjit_export_value *r = &x->pub.result;
    uint64_t want = (uint64_t)lanes * r->size;
    if (results_size != want) {
        if (!r->size)
            return api_fail(SPVJIT_ERROR_BINDING, "%s: \"%s\" returns nothing, but results_size is %zu (0 expected)",
                            src, name, results_size);
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: \"%s\" returns %s: %u lanes of %zu bytes take %" PRIu64 " bytes, but results_size is %zu",
                        src, name, r->type_name, lanes, r->size, want, results_size);
    }
    if (want && !results)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: \"%s\" returns %s: results is NULL", src, name,
                        r->type_name);
    return SPVJIT_OK;
}

/* The lane whose call made an out-of-bounds report (memory=check). */
typedef struct lane_report {
    jit_rt_report r;
    unsigned lane;
} lane_report;

static bool took_report(void *user, unsigned lane)
{
    lane_report *l = user;
    l->r = jit_rt_take_report();
    l->lane = lane;
    return l->r.made;
}

SPVJIT_API spvjit_status spvjit_call_exported(spvjit_module *mod, const char *name, const spvjit_specs *specs,
                                              unsigned lanes, const spvjit_call_arg *args, unsigned nargs,
                                              void *results, size_t results_size)
{
    if (!mod || !name || (nargs && !args))
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_call_exported: NULL argument");
    const api_export *x = export_named(mod, name);
    if (!x) {
        char list[1024] = "";
        size_t k = 0;
        for (unsigned i = 0; i < mod->nexports && k < sizeof list; i++)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s\"%s\"", i ? ", " : "", mod->exports[i].pub.name);
        return api_fail(SPVJIT_ERROR_NOT_FOUND,
                        "%s: no function exported as \"%s\" (Linkage Export); the module exports %s", mod->m->source,
                        name, *list ? list : "none");
    }
    if (x->pub.unsupported)
        return api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s: \"%s\" cannot be called from host C: %s", mod->m->source, name,
                        x->pub.unsupported);
    spvjit_status st = check_sizes(mod, x, lanes, args, nargs, results, results_size);
    if (st != SPVJIT_OK)
        return st;
    uint64_t *values = NULL;
    st = api_resolve_specs(mod, specs, &values);
    if (st != SPVJIT_OK) {
        free(values);
        return st;
    }
    api_compiled *c = compiled_export(mod, name, values, &st);
    free(values);
    if (!c)
        return st;
    /* memory=check: the call stops at the first lane with an out-of-bounds access */
    jit_rt_take_report(); /* none left from an earlier call */
    lane_report lr = { 0 };
    api_ffi_call_lanes(x->sig, c->fn, lanes, args, results, took_report, &lr);
    st = SPVJIT_OK;
    if (lr.r.made) {
        spvjit_exec_fault f = {
            .kind = SPVJIT_FAULT_OOB, .site = lr.r.site, .offset = lr.r.offset, .bytes = lr.r.bytes, .bound = lr.r.bound
        };
        char msg[2048];
        api_format_call_fault(c, name, lr.lane, &f, msg, sizeof msg);
        st = api_fail(SPVJIT_ERROR_MEMORY_CHECK, "%s", msg);
    }
    api_compiled_release(c);
    return st;
}
