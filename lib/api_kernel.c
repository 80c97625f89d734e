/* lib/api_kernel.c — building kernels: specialize, compile, cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "lib/disk_cache.h"
#include "lib/threadpool.h"
#include "util/timer.h"

/* --- compiling: the build plan, the disk cache, the tiers ------------------------- */

void api_plan_free(api_build_plan *p)
{
    free(p->entry);
    free(p->shapes);
    free(p->disk_dir);
    free(p->key);
    memset(p, 0, sizeof *p);
}

/* A plan for kernel k at local size ls, taking over shapes; -1 out of memory. */
static int plan_init(api_build_plan *p, const spvjit_kernel *k, spvjit_shape_value *shapes, const uint32_t ls[3],
                     const kcache_key *key)
{
    memset(p, 0, sizeof *p);
    const char *dir = k->module->ctx->options.disk_dir;
    p->shapes = shapes;
    p->o.shape_values = shapes;
    p->o.nshape_values = k->module->nspecs;
    api_build_options_to_jit(&k->opts, &p->o);
    memcpy(p->o.local_size, ls, sizeof p->o.local_size);
    p->entry = strdup(k->entry->e->name);
    p->disk_dir = dir ? strdup(dir) : NULL;
    p->alen = key->alen;
    p->blen = key->blen;
    p->key = malloc(key->alen + key->blen);
    if (!p->entry || (dir && !p->disk_dir) || !p->key) {
        api_plan_free(p);
        return -1;
    }
    memcpy(p->key, key->a, key->alen);
    memcpy(p->key + key->alen, key->b, key->blen);
    return 0;
}

jit_kernel *api_plan_compile(const api_build_plan *p, const spv_module *sm, jit_tier tier, const atomic_bool *cancel,
                             spv_diag *diag)
{
    spvjit_options o = p->o;
    o.tier = tier;
    o.cancel = cancel;
    o.keep_object = p->disk_dir && tier == JIT_TIER_OPT; /* the disk cache holds optimized code only */
    jit_kernel *jk = spvjit_compile(sm, p->entry, &o, diag);
    if (jk && o.keep_object) {
        size_t n = 0;
        void *blob = spvjit_kernel_take_object(jk, &n);
        spv_diag sd;
        if (blob) /* a failed store (read-only or full disk) only costs the next run a compile */
            (void)disk_cache_store(p->disk_dir, p->key, p->alen, p->key + p->alen, p->blen, blob, n, &sd);
        free(blob);
    }
    return jk;
}

/* The optimized code the disk cache holds for the plan, or NULL.  A stored
 * object the JIT refuses (other facts, damaged) is simply compiled over. */
static jit_kernel *plan_load(const api_build_plan *p, const spv_module *sm)
{
    if (!p->disk_dir)
        return NULL;
    void *payload = NULL;
    size_t n = 0;
    if (disk_cache_load(p->disk_dir, p->key, p->alen, p->key + p->alen, p->blen, &payload, &n) != 1)
        return NULL;
    spvjit_options o = p->o;
    o.tier = JIT_TIER_OPT;
    spv_diag d;
    d.msg[0] = 0;
    jit_kernel *jk = spvjit_load_object(sm, p->entry, &o, payload, n, &d);
    free(payload);
    return jk;
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

/* The tier a build compiles first: auto starts quick (the optimized code
 * follows in the background), unless there is nothing to optimize (-O0). */
static jit_tier first_tier(const api_build_options *o)
{
    jit_tier t = (jit_tier)o->tier;
    if (o->opt_level == 0 || t == JIT_TIER_OPT)
        return JIT_TIER_OPT;
    return JIT_TIER_QUICK;
}

/* The cache's build callback: specialize (unless unspecialized), then load
 * the optimized code from the disk cache or compile the first tier. */
static void *build_compiled(void *user, size_t *est)
{
    build_req *r = user;
    spvjit_kernel *k = r->k;
    const spvjit_module *mod = k->module;
    spv_diag d;
    d.msg[0] = 0;
    double t0 = util_now_ms();

    /* The JIT compiles its own copy of the module: its facts point into it. */
    spvjit_shape_value *shapes = NULL;
    bool unspec = k->opts.unspecialized;
    spv_module *sm = api_module_for_values(mod, k->values, unspec, false, &shapes, &r->st);
    if (!sm)
        return NULL;
    api_build_plan plan;
    if (plan_init(&plan, k, shapes, r->ls, r->key)) {
        spv_module_free(sm);
        r->st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    jit_tier tier = first_tier(&k->opts);
    bool optimized_wanted = tier == JIT_TIER_OPT || k->opts.tier == JIT_TIER_AUTO; /* quick builds never load */
    jit_kernel *jk = optimized_wanted ? plan_load(&plan, sm) : NULL;
    r->disk_hit = jk != NULL;
    if (jk)
        tier = JIT_TIER_OPT; /* a second process starts optimized */
    else if (unspec || (r->st = api_module_validate_specialized(mod, sm)) == SPVJIT_OK)
        jk = api_plan_compile(&plan, sm, tier, NULL, &d);
    if (!jk) {
        api_plan_free(&plan);
        spv_module_free(sm);
        if (r->st == SPVJIT_OK) {
            size_t n = strlen(d.msg), t = strlen(JIT_LIMIT_TAG);
            bool limit = n >= t && !strcmp(d.msg + n - t, JIT_LIMIT_TAG);
            r->st = api_fail(limit ? SPVJIT_ERROR_LIMIT : SPVJIT_ERROR_UNSUPPORTED, "%s", d.msg);
        }
        return NULL;
    }
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(jk);
    api_compiled *c = f->local_size_known ? api_compiled_new(sm, jk, tier, &plan) : NULL;
    if (!c) {
        r->st = f->local_size_known ? api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory")
                                    : api_fail(SPVJIT_ERROR_UNSUPPORTED,
                                               "%s: entry point \"%s\": the JIT did not settle the work-group size",
                                               mod->m->source, k->entry->e->name);
        api_plan_free(&plan);
        spvjit_kernel_free(jk);
        spv_module_free(sm);
        return NULL;
    }
    c->t_start = t0;
    c->total_ms = util_now_ms() - t0;
    if (tier == JIT_TIER_QUICK && k->opts.tier == JIT_TIER_AUTO)
        api_compiled_start_opt(c, mod->ctx);
    else if (tier == JIT_TIER_OPT)
        c->opt_ready_ms = c->total_ms;
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
    api_build_options code = *o;
    if (code.tier != JIT_TIER_QUICK)
        code.tier = JIT_TIER_OPT;  /* auto ends with the optimized code: opt's */
    memcpy(p, &code, sizeof code); /* the whole value: no option can be left out */
    p += sizeof code;
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
    *key = (kcache_key){ .a = mod->digest, .alen = sizeof mod->digest, .b = b, .blen = (size_t)(p - b) };
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
    if (!c) {
        *st = req.st != SPVJIT_OK ? req.st : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory (kernel cache)");
        return NULL;
    }
    /* an optimized build may find what an auto build left compiling */
    *st = k->opts.tier == JIT_TIER_OPT ? api_compiled_wait_opt(c) : SPVJIT_OK;
    if (*st != SPVJIT_OK) {
        api_compiled_release(c);
        return NULL;
    }
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
    api_stop_hub_release(k->hub);
    pthread_mutex_destroy(&k->lock);
    api_module_release(k->module);
    free(k);
}

/* A kernel for entry `entry` with the values and options resolved, not yet
 * compiled (cheap, and every argument checked: what an asynchronous build
 * reports at once). */
static spvjit_status kernel_new(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                const spvjit_build_options *opts, const char *who, spvjit_kernel **out)
{
    *out = NULL;
    if (!m)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: the module is NULL", who);
    spvjit_status st;
    const api_entry_info *ei = api_module_entry(m, entry, &st);
    if (!ei)
        return st;
    api_build_options o;
    if ((st = api_build_options_resolve(&m->ctx->options, opts, who, &o)) != SPVJIT_OK)
        return st;
    bool ls_given = o.local_size[0] || o.local_size[1] || o.local_size[2];
    if (!has_fixed_local_size(m->m, ei->e) && !ls_given && !m->m->is_kernel)
        return api_fail(SPVJIT_ERROR_UNSUPPORTED,
                        "%s: entry point \"%s\" declares no work-group size "
                        "(LocalSize / LocalSizeId / WorkgroupSize); give spvjit_build_options.local_size",
                        m->m->source, ei->e->name);
    spvjit_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "%s: out of memory", who);
    pthread_mutex_init(&k->lock, NULL);
    api_module_retain(m);
    k->module = m;
    k->entry = ei;
    k->opts = o;
    st = (k->hub = api_stop_hub_new()) ? SPVJIT_OK : api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    if (st == SPVJIT_OK)
        st = api_resolve_specs(m, specs, &k->values);
    if (st != SPVJIT_OK) {
        spvjit_kernel_destroy(k);
        return st;
    }
    *out = k;
    return SPVJIT_OK;
}

/* Compiles k (unless its local size is chosen at dispatch) and sets up its
 * bindings.  On failure the caller destroys k. */
static spvjit_status kernel_compile(spvjit_kernel *k)
{
    spvjit_module *m = k->module;
    spvjit_status st = SPVJIT_OK;
    const api_build_options *o = &k->opts;
    if (has_fixed_local_size(m->m, k->entry->e) || o->local_size[0] || o->local_size[1] || o->local_size[2])
        k->compiled = api_kernel_compiled_for(k, o->local_size, &k->from_cache, &st);
    if (st == SPVJIT_OK && m->m->is_kernel)
        st = setup_args(k);
    if (st == SPVJIT_OK && !m->m->is_kernel) {
        const spvjit_kernel_facts *f = k->compiled->facts;
        k->nslots = f->nslots;
        k->slots = calloc(f->nslots ? f->nslots : 1, sizeof *k->slots);
        if (!k->slots)
            st = api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_kernel_build: out of memory");
    }
    return st;
}

SPVJIT_API spvjit_status spvjit_kernel_build(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                             const spvjit_build_options *opts, spvjit_kernel **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_build: out is NULL");
    spvjit_kernel *k;
    spvjit_status st = kernel_new(m, entry, specs, opts, "spvjit_kernel_build", &k);
    if (st == SPVJIT_OK && (st = kernel_compile(k)) != SPVJIT_OK)
        spvjit_kernel_destroy(k);
    else
        *out = k;
    return st;
}

/* --- asynchronous builds: a task on the thread pool each -------------------------------- */

struct spvjit_build_event {
    spvjit_pool_task task; /* first: the pool hands this back */
    spvjit_kernel *k;      /* NULL once a build failed */
    spvjit_status st;
    char err[2048];
    pthread_mutex_t lock;
    pthread_cond_t done;
    bool finished;
};

static void run_build(spvjit_pool_task *t)
{
    spvjit_build_event *ev = (spvjit_build_event *)t;
    spvjit_status st = kernel_compile(ev->k);
    if (st != SPVJIT_OK) {
        snprintf(ev->err, sizeof ev->err, "%s", spvjit_last_error()); /* this thread's: the waiter's gets it */
        spvjit_kernel_destroy(ev->k);
        ev->k = NULL;
    }
    pthread_mutex_lock(&ev->lock);
    ev->st = st;
    ev->finished = true;
    pthread_cond_signal(&ev->done);
    pthread_mutex_unlock(&ev->lock);
}

SPVJIT_API spvjit_status spvjit_kernel_build_async(spvjit_module *m, const char *entry, const spvjit_specs *specs,
                                                   const spvjit_build_options *opts, spvjit_build_event **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_build_async: ev is NULL");
    *out = NULL;
    spvjit_build_event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_kernel_build_async: out of memory");
    spvjit_status st = kernel_new(m, entry, specs, opts, "spvjit_kernel_build_async", &ev->k);
    if (st != SPVJIT_OK) {
        free(ev);
        return st;
    }
    pthread_mutex_init(&ev->lock, NULL);
    pthread_cond_init(&ev->done, NULL);
    ev->task.run = run_build;
    spvjit_pool_submit(&ev->task, 0);
    *out = ev;
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_build_wait(spvjit_build_event *ev, spvjit_kernel **out)
{
    if (out)
        *out = NULL;
    if (!ev)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_build_wait: the event is NULL");
    if (spvjit_pool_claim(&ev->task))
        run_build(&ev->task); /* no worker has begun it: build here */
    pthread_mutex_lock(&ev->lock);
    while (!ev->finished)
        pthread_cond_wait(&ev->done, &ev->lock);
    pthread_mutex_unlock(&ev->lock);
    spvjit_status st = ev->st;
    if (st != SPVJIT_OK)
        api_set_error(ev->err);
    if (out)
        *out = ev->k;
    else
        spvjit_kernel_destroy(ev->k);
    pthread_cond_destroy(&ev->done);
    pthread_mutex_destroy(&ev->lock);
    free(ev);
    return st;
}

/* --- tiers and stats ------------------------------------------------------------------- */

/* The compiled objects of k (references): its one, or those its dispatches chose. */
static unsigned kernel_compiles(spvjit_kernel *k, api_compiled **cs)
{
    unsigned n = 0;
    pthread_mutex_lock(&k->lock);
    if (k->compiled)
        cs[n++] = k->compiled;
    for (unsigned i = 0; !k->compiled && i < k->nmemo; i++)
        cs[n++] = k->memo[i].c;
    for (unsigned i = 0; i < n; i++)
        api_compiled_retain(cs[i]);
    pthread_mutex_unlock(&k->lock);
    return n;
}

SPVJIT_API spvjit_status spvjit_kernel_wait_optimized(spvjit_kernel *k)
{
    if (!k)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_wait_optimized: the kernel is NULL");
    api_compiled *cs[API_LOCAL_SIZE_MEMO + 1];
    unsigned n = kernel_compiles(k, cs);
    spvjit_status st = SPVJIT_OK;
    for (unsigned i = 0; i < n; i++) {
        spvjit_status s = api_compiled_wait_opt(cs[i]);
        if (st == SPVJIT_OK)
            st = s;
        api_compiled_release(cs[i]);
    }
    return st;
}

SPVJIT_API spvjit_status spvjit_kernel_stats_get(const spvjit_kernel *k, spvjit_kernel_stats *out)
{
    if (!k || !out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_kernel_stats_get: NULL argument");
    memset(out, 0, sizeof *out);
    out->from_cache = k->from_cache;
    spvjit_kernel *mk = (spvjit_kernel *)k; /* for the memo's lock and counters only */
    out->quick_dispatches = atomic_load(&mk->dispatches[0]);
    out->opt_dispatches = atomic_load(&mk->dispatches[1]);
    out->dispatch_tier = (spvjit_tier)atomic_load(&mk->last_tier);
    api_compiled *c = k->compiled;
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
    pthread_mutex_lock(&c->lock);
    const spvjit_kernel_facts *now = spvjit_kernel_facts_of(c->code->jk); /* the current code's timings */
    out->lower_ms = now->ms_lower;
    out->passes_ms = now->ms_passes;
    out->codegen_ms = now->ms_codegen;
    out->tier = (spvjit_tier)(c->code->tier + 1);
    out->opt_pending = c->opt == API_OPT_PENDING;
    out->opt_ready_ms = c->opt_ready_ms;
    out->subgroup_size = now->subgroup_size; /* the quick code may run one work-item at a time */
    memcpy(out->local_size, c->code->exec.local_size, sizeof out->local_size);
    pthread_mutex_unlock(&c->lock);
    out->total_ms = c->total_ms;
    out->wg_memory_bytes = c->facts->wg_mem_size;
    out->fallback_groups = atomic_load(&c->fallback_groups);
    out->uses_barriers = c->facts->uses_barriers;
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
