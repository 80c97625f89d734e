/* lib/api_kernel.c — building kernels: specialize, compile, cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "lib/disk_cache.h"
#include "util/timer.h"

/* --- compiled objects ------------------------------------------------------- */

void api_compiled_retain(void *p)
{
    api_compiled *c = p;
    atomic_fetch_add(&c->refs, 1);
}

api_compiled *api_compiled_new(spv_module *sm, jit_kernel *jk)
{
    api_compiled *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    atomic_init(&c->refs, 1);
    c->module = sm;
    c->jk = jk;
    c->facts = spvjit_kernel_facts_of(jk);
    return c;
}

void api_compiled_release(void *p)
{
    api_compiled *c = p;
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    if (c->jk)
        spvjit_kernel_free(c->jk);
    spv_module_free(c->module);
    free(c);
}

/* What a build needs besides the kernel: the local size asked for, the
 * cache key (for the disk cache) and, back, whether the disk had it. */
typedef struct build_req {
    spvjit_kernel *k;
    uint32_t ls[3]; /* all 0: the module's own */
    const kcache_key *key;
    bool disk_hit;
    spvjit_status st;
} build_req;

/* Rough bytes of a compile (LLVM's code and data are not measurable through
 * the JIT's API): a base plus a multiple of the SPIR-V size. */
static size_t estimate_bytes(const spv_module *m)
{
    return ((size_t)32 << 10) + m->nwords * 4 * 32;
}

/* The disk cache's side of a build: a stored object for the key if there is a
 * usable one, else a compile whose object is stored for next time.  A stored
 * object the JIT refuses (other facts, damaged) is simply compiled over. */
static jit_kernel *load_or_compile(build_req *r, const spv_module *sm, const spvjit_options *o, spv_diag *d)
{
    const char *dir = r->k->module->ctx->options.disk_dir;
    const char *entry = r->k->entry->e->name;
    const kcache_key *key = r->key;
    if (dir) {
        void *payload = NULL;
        size_t n = 0;
        if (disk_cache_load(dir, key->a, key->alen, key->b, key->blen, &payload, &n) == 1) {
            spv_diag ld;
            ld.msg[0] = 0;
            jit_kernel *jk = spvjit_load_object(sm, entry, o, payload, n, &ld);
            free(payload);
            if (jk) {
                r->disk_hit = true;
                return jk;
            }
        }
    }
    spvjit_options co = *o;
    co.keep_object = dir != NULL;
    jit_kernel *jk = spvjit_compile(sm, entry, &co, d);
    if (jk && dir) {
        size_t n = 0;
        void *blob = spvjit_kernel_take_object(jk, &n);
        spv_diag sd;
        if (blob) /* a failed store (read-only or full disk) only costs the next run a compile */
            (void)disk_cache_store(dir, key->a, key->alen, key->b, key->blen, blob, n, &sd);
        free(blob);
    }
    return jk;
}

/* The cache's build callback: specialize (unless unspecialized), load or compile. */
static void *build_compiled(void *user, size_t *est)
{
    build_req *r = user;
    const spvjit_kernel *k = r->k;
    const spvjit_module *mod = k->module;
    spv_diag d;
    d.msg[0] = 0;
    double t0 = util_now_ms();

    /* The JIT compiles its own copy of the module: its facts point into it. */
    spvjit_shape_value *shapes = NULL;
    spv_module *sm = api_module_for_values(mod, k->values, k->opts.unspecialized, &shapes, &r->st);
    if (!sm)
        return NULL;

    spvjit_options o = { .shape_values = shapes, .nshape_values = mod->nspecs };
    api_build_options_to_jit(&k->opts, &o);
    memcpy(o.local_size, r->ls, sizeof o.local_size);
    jit_kernel *jk = load_or_compile(r, sm, &o, &d);
    free(shapes);
    if (!jk) {
        spv_module_free(sm);
        r->st = api_fail(SPVJIT_ERROR_UNSUPPORTED, "%s", d.msg);
        return NULL;
    }
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(jk);
    api_compiled *c = f->local_size_known ? api_compiled_new(sm, jk) : NULL;
    if (!c) {
        r->st = f->local_size_known ? api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory")
                                    : api_fail(SPVJIT_ERROR_UNSUPPORTED,
                                               "%s: entry point \"%s\": the JIT did not settle the work-group size",
                                               mod->m->source, k->entry->e->name);
        spvjit_kernel_free(jk);
        spv_module_free(sm);
        return NULL;
    }
    c->exec.wg_range = spvjit_kernel_wg_range_fn(jk);
    c->exec.item_fn = spvjit_kernel_item_fn(jk);
    memcpy(c->exec.local_size, f->local_size, sizeof c->exec.local_size);
    c->exec.wg_memory_size = f->wg_mem_size;
    c->exec.wg_memory_align = f->wg_mem_align;
    c->exec.wg_memory_init = spvjit_kernel_wg_init_fn(jk);
    c->exec.stack_size = f->stack_estimate;
    c->exec.nbarrier_sites = f->nbarrier_sites;
    c->total_ms = util_now_ms() - t0;
    *est = estimate_bytes(sm);
    return c;
}

/* --- cache keys ------------------------------------------------------------- */

unsigned char *api_cache_key(const spvjit_module *mod, api_code_kind kind, const char *name, const api_build_options *o,
                             const uint64_t *values, kcache_key *key)
{
    size_t nlen = strlen(name) + 1;
    unsigned char *b = malloc(1 + nlen + sizeof *o + 4 + mod->nspecs * 12), *p = b;
    if (!b)
        return NULL;
    *p++ = (unsigned char)kind;
    memcpy(p, name, nlen);
    p += nlen;
    memcpy(p, o, sizeof *o); /* the whole value: no option can be left out */
    p += sizeof *o;
    uint32_t count = 0;
    unsigned char *countp = p;
    p += 4;
    for (size_t i = 0; i < mod->nspecs; i++) {
        if (o->unspecialized && !mod->spec_sets[i])
            continue; /* read at run time */
        memcpy(p, &mod->specs[i].spec_id, 4);
        memcpy(p + 4, &values[i], 8);
        p += 12;
        count++;
    }
    memcpy(countp, &count, 4);
    *key = (kcache_key){ .a = mod->m->words, .alen = mod->m->nwords * 4, .b = b, .blen = (size_t)(p - b) };
    key->hash = kcache_key_hash(key->a, key->alen, key->b, key->blen);
    return b;
}

api_compiled *api_kernel_compiled_for(spvjit_kernel *k, const uint32_t ls[3], bool *hit, spvjit_status *st)
{
    api_build_options o = k->opts;
    memcpy(o.local_size, ls, sizeof o.local_size); /* the local size of this compile */
    kcache_key key;
    unsigned char *rest = api_cache_key(k->module, API_CODE_KERNEL, k->entry->e->name, &o, k->values, &key);
    if (!rest) {
        *st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    build_req req = { .k = k, .key = &key, .st = SPVJIT_OK };
    memcpy(req.ls, ls, sizeof req.ls);
    api_compiled *c = kcache_get(k->module->ctx->cache, &key, build_compiled, &req, hit);
    *hit = *hit || req.disk_hit;
    free(rest);
    if (!c)
        *st = req.st != SPVJIT_OK ? req.st : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory (kernel cache)");
    else
        *st = SPVJIT_OK;
    return c;
}

/* --- kernels ----------------------------------------------------------------------- */

static bool has_fixed_local_size(const spv_module *m, const spv_entry_point *e)
{
    return e->has_local_size || e->has_local_size_id || m->workgroup_size_id != 0;
}

/* Kernel flavour: one binding record per entry parameter. */
static spvjit_status setup_args(spvjit_kernel *k)
{
    const api_entry_info *ei = k->entry;
    uint32_t n = k->module->m->funcs[ei->e->func].nparams;
    k->args = calloc(n ? n : 1, sizeof *k->args);
    if (!k->args)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    k->nargs = n;
    for (int i = 0; i < ei->nres; i++) {
        const spv_resource *r = &ei->res[i];
        if (r->kind != SPV_RES_KERNEL_ARG || r->index >= n)
            continue;
        api_kernel_arg *a = &k->args[r->index];
        a->name = r->name;
        a->size = r->size;
        a->kind = !r->is_pointer                           ? API_ARG_VALUE
                  : r->storage == SpvStorageClassWorkgroup ? API_ARG_LOCAL
                                                           : API_ARG_POINTER;
        if (a->kind == API_ARG_VALUE && !(a->value = calloc(1, r->size ? r->size : 1)))
            return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    return SPVJIT_OK;
}

SPVJIT_API void spvjit_kernel_destroy(spvjit_kernel *k)
{
    if (!k)
        return;
    api_compiled_release(k->compiled);
    for (unsigned i = 0; i < k->nmemo; i++)
        api_compiled_release(k->memo[i].c);
    for (uint32_t i = 0; i < k->nargs; i++)
        free(k->args[i].value);
    free(k->args);
    free(k->slots);
    free(k->push);
    free(k->values);
    pthread_mutex_destroy(&k->lock);
    api_module_release(k->module);
    free(k);
}

SPVJIT_API spvjit_status spvjit_kernel_build(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                             const spvjit_build_options *opts, spvjit_kernel **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_build: out is NULL");
    *out = NULL;
    if (!m)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_build: the module is NULL");
    spvjit_status st;
    const api_entry_info *ei = api_module_entry(m, entry, &st);
    if (!ei)
        return st;

    api_build_options o;
    if ((st = api_build_options_resolve(&m->ctx->options, opts, "spvjit_kernel_build", &o)) != SPVJIT_OK)
        return st;
    bool ls_given = o.local_size[0] || o.local_size[1] || o.local_size[2];
    bool fixed = has_fixed_local_size(m->m, ei->e);
    if (!fixed && !ls_given && !m->m->is_kernel)
        return api_fail(SPVJIT_ERROR_UNSUPPORTED,
                        "%s: entry point \"%s\" declares no work-group size "
                        "(LocalSize / LocalSizeId / WorkgroupSize); give spvjit_build_options.local_size",
                        m->m->source, ei->e->name);

    spvjit_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_kernel_build: out of memory");
    pthread_mutex_init(&k->lock, NULL);
    api_module_retain(m);
    k->module = m;
    k->entry = ei;
    k->opts = o;
    st = api_resolve_specs(m, specs, &k->values);
    if (st == SPVJIT_OK && (fixed || ls_given))
        k->compiled = api_kernel_compiled_for(k, o.local_size, &k->from_cache, &st);
    if (st == SPVJIT_OK && m->m->is_kernel)
        st = setup_args(k);
    if (st == SPVJIT_OK && !m->m->is_kernel) {
        const spvjit_kernel_facts *f = k->compiled->facts;
        k->nslots = f->nslots;
        k->slots = calloc(f->nslots ? f->nslots : 1, sizeof *k->slots);
        if (!k->slots)
            st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_kernel_build: out of memory");
    }
    if (st != SPVJIT_OK) {
        spvjit_kernel_destroy(k);
        return st;
    }
    *out = k;
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_kernel_stats_get(const spvjit_kernel *k, spvjit_kernel_stats *out)
{
    if (!k || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_stats_get: NULL argument");
    memset(out, 0, sizeof *out);
    out->from_cache = k->from_cache;
    api_compiled *c = k->compiled;
    spvjit_kernel *mk = (spvjit_kernel *)k; /* for the memo's lock only */
    pthread_mutex_lock(&mk->lock);
    if (!c && k->nmemo) {
        /* local size chosen at dispatch: the latest compile a dispatch made */
        c = k->memo[k->memo_last].c;
        out->from_cache = k->memo[k->memo_last].hit;
    }
    if (c)
        api_compiled_retain(c); /* a later dispatch may replace the memo entry */
    pthread_mutex_unlock(&mk->lock);
    if (!c)
        return SPVJIT_OK; /* nothing compiled yet */
    out->lower_ms = c->facts->ms_lower;
    out->passes_ms = c->facts->ms_passes;
    out->codegen_ms = c->facts->ms_codegen;
    out->total_ms = c->total_ms;
    out->wg_memory_bytes = c->facts->wg_mem_size;
    out->uses_barriers = c->facts->uses_barriers;
    memcpy(out->local_size, c->exec.local_size, sizeof out->local_size);
    out->subgroup_size = c->facts->subgroup_size;
    api_compiled_release(c);
    return SPVJIT_OK;
}

uint32_t spvjit_native_subgroup_size(void)
{
    return jit_host_lanes32();
}

uint32_t spvjit_context_subgroup_size(const spvjit_context *ctx)
{
    if (!ctx || ctx->options.build.simd == JIT_SIMD_OFF)
        return 1;
    return ctx->options.build.subgroup_size ? ctx->options.build.subgroup_size : jit_host_lanes32();
}
