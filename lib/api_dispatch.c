/* lib/api_dispatch.c — checking bindings, snapshotting them, running dispatches.
 *
 * A dispatch copies the kernel's bindings (pointer values, by-value bytes,
 * push constants) under the kernel's lock, so the kernel can be rebound
 * while an asynchronous dispatch still runs.  Buffers themselves are used in
 * place.  While it runs, its stop flag is on the kernel's hub, where
 * spvjit_dispatch_cancel finds it; a time limit, a cancel or a memory=check
 * report ends it with its own status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"

typedef struct dispatch_rec {
    api_compiled *c; /* a reference, held until the dispatch ends */
    api_code *code;  /* the tier it runs, held likewise (api_tier.c) */
    spvjit_exec_kernel exec;
    spvjit_exec_range range;
    spvjit_exec_data data;
    unsigned char *mem; /* the snapshot: args, sizes, values, push constants, spec values */
    spvjit_exec_control control;
    api_stop_hub *hub; /* a reference: where spvjit_dispatch_cancel finds control */
    double timeout_s;
    char entry[128]; /* for messages: the kernel may be gone by then */
} dispatch_rec;

static void rec_free(dispatch_rec *r)
{
    api_code_release(r->code);
    api_compiled_release(r->c);
    api_stop_hub_release(r->hub);
    free(r->mem);
    r->code = NULL;
    r->c = NULL;
    r->hub = NULL;
    r->mem = NULL;
}

/* --- running dispatches: the hub ------------------------------------------------- */

api_stop_hub *api_stop_hub_new(void)
{
    api_stop_hub *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    atomic_init(&h->refs, 1);
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

static void hub_retain(api_stop_hub *h)
{
    atomic_fetch_add(&h->refs, 1);
}

void api_stop_hub_release(api_stop_hub *h)
{
    if (!h || atomic_fetch_sub(&h->refs, 1) != 1)
        return;
    util_array_fini(&h->running);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* Puts (on) or takes (!on) r's control on its hub; false when out of memory. */
static bool hub_enter(dispatch_rec *r, bool on)
{
    api_stop_hub *h = r->hub;
    spvjit_exec_control *c = &r->control;
    pthread_mutex_lock(&h->lock);
    bool ok = true;
    if (on) {
        ok = UTIL_ARRAY_PUSH(&h->running, spvjit_exec_control *, c);
    } else {
        size_t n = UTIL_ARRAY_COUNT(&h->running, spvjit_exec_control *);
        for (size_t i = 0; i < n; i++)
            if (UTIL_ARRAY_AT(&h->running, spvjit_exec_control *, i) == c) {
                UTIL_ARRAY_AT(&h->running, spvjit_exec_control *, i) =
                    UTIL_ARRAY_AT(&h->running, spvjit_exec_control *, n - 1);
                h->running.size -= sizeof c;
                break;
            }
    }
    pthread_mutex_unlock(&h->lock);
    return ok;
}

SPVJIT_API spvjit_status spvjit_dispatch_cancel(spvjit_kernel *k)
{
    if (!k)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_dispatch_cancel: the kernel is NULL");
    api_stop_hub *h = k->hub;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < UTIL_ARRAY_COUNT(&h->running, spvjit_exec_control *); i++) {
        uint32_t none = SPVJIT_STOP_NONE;
        atomic_compare_exchange_strong(&UTIL_ARRAY_AT(&h->running, spvjit_exec_control *, i)->stop, &none,
                                       SPVJIT_STOP_CANCELLED);
    }
    pthread_mutex_unlock(&h->lock);
    return SPVJIT_OK;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

static const char *src(const spvjit_kernel *k)
{
    return k->module->m->source;
}

/* --- checking and copying the bindings ------------------------------------------ */

/* Snapshot pointers into r->mem. */
typedef struct snapshot {
    void **args;
    uint64_t *sizes;
    void **ptrs;       /* Kernel: pointer-argument values (args[i] points here) */
    uint64_t *offsets; /* Kernel: local-argument offsets */
    uint64_t *spec;    /* unspecialized: one slot per spec constant */
    unsigned char *push;
} snapshot;

/* Where a by-value argument's bytes go: aligned to its size's power of two
 * (up to 128), the alignment OpenCL gives a vector of that size and at least
 * the one the compiled code loads it with (a float8 is read with 32-byte
 * aligned vector loads). */
static size_t value_align(uint64_t size)
{
    size_t a = 16;
    while (a < size && a < 128)
        a *= 2;
    return a;
}

static spvjit_status snapshot_kernel_args(spvjit_kernel *k, dispatch_rec *r, snapshot *s)
{
    uint32_t n = k->nargs;
    size_t values = 0;
    for (uint32_t i = 0; i < n; i++)
        if (k->args[i].kind == API_ARG_VALUE)
            values += round_up(k->args[i].size, value_align(k->args[i].size)) + value_align(k->args[i].size);
    size_t nspec = k->module->nslots;
    r->mem = malloc(n * (sizeof(void *) * 2 + 16) + nspec * 8 + values + 128);
    if (!r->mem)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    s->spec = (uint64_t *)r->mem;
    s->sizes = s->spec + nspec;
    s->offsets = s->sizes + n;
    s->args = (void **)(s->offsets + n);
    s->ptrs = s->args + n;
    unsigned char *val = (unsigned char *)round_up((size_t)(s->ptrs + n), 128);
    for (uint32_t i = 0; i < n; i++) {
        const api_kernel_arg *a = &k->args[i];
        const char *name = a->name ? a->name : "unnamed";
        if (!a->set)
            return api_fail(SPVJIT_ERROR_BINDING, "%s: kernel \"%s\" argument %u (%s, a %s) is not set", src(k),
                            k->entry->e->name, i, name,
                            a->kind == API_ARG_POINTER ? "global pointer"
                            : a->kind == API_ARG_LOCAL ? "local pointer"
                                                       : "by-value argument");
        switch (a->kind) {
        case API_ARG_POINTER:
            s->ptrs[i] = a->ptr;
            s->args[i] = &s->ptrs[i];
            s->sizes[i] = a->bytes;
            break;
        case API_ARG_LOCAL:
            s->offsets[i] = 0; /* placed once the static size is known */
            s->args[i] = &s->offsets[i];
            s->sizes[i] = a->bytes;
            break;
        case API_ARG_VALUE:
            val = (unsigned char *)round_up((size_t)val, value_align(a->size));
            memcpy(val, a->value, a->size);
            s->args[i] = val;
            s->sizes[i] = a->size;
            val += a->size;
            break;
        }
    }
    return SPVJIT_OK;
}

static spvjit_status snapshot_shader(spvjit_kernel *k, dispatch_rec *r, snapshot *s)
{
    const spvjit_kernel_facts *f = k->compiled->facts;
    const char *entry = k->entry->e->name;
    for (uint32_t i = 0; i < f->nresources; i++) {
        const spvjit_resource *res = &f->resources[i];
        const char *name = api_resource_name(k, res->set, res->binding, res->name);
        for (uint32_t e = 0; e < res->array_count; e++) {
            const api_slot *sl = &k->slots[res->slot + e];
            char elem[32] = "";
            if (res->array_count > 1)
                snprintf(elem, sizeof elem, " element %u", e);
            if (!sl->bound)
                return api_fail(SPVJIT_ERROR_BINDING,
                                "%s: entry point \"%s\": set %u binding %u%s (%s) is not "
                                "bound",
                                src(k), entry, res->set, res->binding, elem, name);
            /* Vulkan lets a descriptor's range be smaller than the block; only
             * unchecked code would read past it */
            if (sl->bytes < res->size && !api_small_buffers_ok(k))
                return api_fail(SPVJIT_ERROR_BINDING,
                                "%s: entry point \"%s\": set %u binding %u%s (%s): the "
                                "buffer is %llu bytes; its layout needs at least %llu%s",
                                src(k), entry, res->set, res->binding, elem, name, (unsigned long long)sl->bytes,
                                (unsigned long long)res->size,
                                res->runtime_stride ? " (the part before its runtime array)" : "");
        }
    }
    if (k->push_bytes < f->push_constant_size)
        return api_fail(SPVJIT_ERROR_BINDING,
                        "%s: entry point \"%s\": push constants: %zu bytes set, the block "
                        "needs %llu",
                        src(k), entry, k->push_bytes, (unsigned long long)f->push_constant_size);
    uint32_t n = k->nslots;
    size_t nspec = k->module->nslots;
    r->mem = malloc(nspec * 8 + n * (8 + sizeof(void *)) + k->push_bytes + 16);
    if (!r->mem)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    s->spec = (uint64_t *)r->mem;
    s->sizes = s->spec + nspec;
    s->args = (void **)(s->sizes + n);
    s->push = (unsigned char *)(s->args + n);
    for (uint32_t i = 0; i < n; i++) {
        s->args[i] = k->slots[i].ptr;
        s->sizes[i] = k->slots[i].bytes;
    }
    if (k->push_bytes)
        memcpy(s->push, k->push, k->push_bytes);
    r->data.push_constants = k->push_bytes ? s->push : NULL;
    return SPVJIT_OK;
}

/* --- the compiled kernel for this dispatch ------------------------------------------ */

/* Local size chosen at dispatch: the memo of compiles, else the cache. */
static api_compiled *compiled_for_dispatch(spvjit_kernel *k, const spvjit_dispatch_info *d, spvjit_status *st)
{
    if (k->compiled) {
        api_compiled_retain(k->compiled);
        return k->compiled;
    }
    if (d->work_dim == 0) {
        *st = api_fail(SPVJIT_ERROR_DISPATCH,
                       "%s: kernel \"%s\" has no fixed work-group size: dispatch it "
                       "OpenCL style (work_dim, global_size, optionally local_size) or build it with "
                       "spvjit_build_options.local_size",
                       src(k), k->entry->e->name);
        return NULL;
    }
    uint32_t ls[3] = { 1, 1, 1 };
    bool given = false;
    for (uint32_t i = 0; i < d->work_dim; i++)
        given |= d->local_size[i] != 0;
    if (given) {
        for (uint32_t i = 0; i < d->work_dim; i++)
            ls[i] = d->local_size[i] ? d->local_size[i] : 1;
    } else {
        spvjit_exec_pick_local_size(d->work_dim, d->global_size, ls);
    }

    pthread_mutex_lock(&k->lock);
    for (unsigned i = 0; i < k->nmemo; i++)
        if (!memcmp(k->memo[i].ls, ls, sizeof ls)) {
            api_compiled *c = k->memo[i].c;
            api_compiled_retain(c);
            pthread_mutex_unlock(&k->lock);
            return c;
        }
    pthread_mutex_unlock(&k->lock);

    bool hit;
    api_compiled *c = api_kernel_compiled_for(k, ls, &hit, st);
    if (!c)
        return NULL;
    pthread_mutex_lock(&k->lock);
    unsigned slot = k->nmemo < API_LOCAL_SIZE_MEMO ? k->nmemo++ : k->memo_next++ % API_LOCAL_SIZE_MEMO;
    if (slot < k->nmemo && k->memo[slot].c)
        api_compiled_release(k->memo[slot].c);
    memcpy(k->memo[slot].ls, ls, sizeof ls);
    k->memo[slot].c = c;
    k->memo[slot].hit = hit;
    k->memo_last = slot;
    api_compiled_retain(c);
    pthread_mutex_unlock(&k->lock);
    return c;
}

/* --- preparing a dispatch ------------------------------------------------------------ */

/* Work-items in the dispatch (saturating): what decides whether an auto
 * kernel still compiling its optimized tier runs the quick one. */
static uint64_t dispatch_items(const spvjit_dispatch_info *d, const uint32_t local_size[3])
{
    uint64_t n = 1;
    for (int i = 0; i < 3; i++) {
        uint64_t f =
            d->work_dim ? (i < (int)d->work_dim ? d->global_size[i] : 1) : (uint64_t)d->groups[i] * local_size[i];
        n = f && n > UINT64_MAX / f ? UINT64_MAX : n * f;
    }
    return n;
}

static spvjit_status prepare(spvjit_kernel *k, const spvjit_dispatch_info *d, dispatch_rec *r)
{
    memset(r, 0, sizeof *r);
    if (!k || !d)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_dispatch: %s is NULL",
                        !k ? "the kernel"
                           : "the "
                             "dispatch info");
    if (d->work_dim > 3)
        return api_fail(SPVJIT_ERROR_DISPATCH, "%s: work_dim %u is not 0 (group counts), 1, 2 or 3", src(k),
                        d->work_dim);

    snapshot s;
    memset(&s, 0, sizeof s);
    spvjit_status st;
    pthread_mutex_lock(&k->lock);
    st = k->module->m->is_kernel ? snapshot_kernel_args(k, r, &s) : snapshot_shader(k, r, &s);
    pthread_mutex_unlock(&k->lock);
    if (st == SPVJIT_OK && !(r->c = compiled_for_dispatch(k, d, &st)))
        st = st != SPVJIT_OK ? st : api_fail(SPVJIT_ERROR_DISPATCH, "no kernel");
    if (st != SPVJIT_OK) {
        rec_free(r);
        return st;
    }

    const spvjit_kernel_facts *f = r->c->facts;
    r->code = api_compiled_code(r->c, dispatch_items(d, r->c->facts->local_size));
    api_compiled_exec(r->c, r->code, &r->exec);
    atomic_fetch_add(&k->dispatches[r->code->tier == JIT_TIER_OPT], 1);
    atomic_store(&k->last_tier, (int)r->code->tier + 1);
    if (!(d->timeout_seconds >= 0) || d->timeout_seconds > 1e9) {
        rec_free(r);
        return api_fail(SPVJIT_ERROR_DISPATCH, "%s: a time limit of %g s is not 0 (none) or a number of seconds",
                        src(k), d->timeout_seconds);
    }
    spvjit_exec_control_init(&r->control);
    r->control.timeout_ns = (uint64_t)(d->timeout_seconds * 1e9);
    r->timeout_s = d->timeout_seconds;
    r->data.control = &r->control;
    hub_retain(k->hub);
    r->hub = k->hub;
    snprintf(r->entry, sizeof r->entry, "%s", k->entry->e->name);
    if (k->module->m->is_kernel) {
        /* Local-argument blocks follow the static work-group variables. */
        if (f->nparams != k->nargs) {
            rec_free(r);
            return api_fail(SPVJIT_ERROR_DISPATCH,
                            "%s: kernel \"%s\": the JIT reports %u parameters, the module "
                            "%u",
                            src(k), k->entry->e->name, f->nparams, k->nargs);
        }
        size_t top = (size_t)r->exec.wg_memory_size;
        bool any_local = false;
        for (uint32_t i = 0; i < k->nargs; i++) {
            if (k->args[i].kind != API_ARG_LOCAL)
                continue;
            top = round_up(top, SPVJIT_LOCAL_ARG_ALIGN);
            s.offsets[i] = top;
            top += (size_t)s.sizes[i];
            any_local = true;
        }
        r->exec.wg_memory_size = top;
        if (any_local && r->exec.wg_memory_align < SPVJIT_LOCAL_ARG_ALIGN)
            r->exec.wg_memory_align = SPVJIT_LOCAL_ARG_ALIGN;
        if (top > JIT_MAX_WORKGROUP_MEMORY) {
            rec_free(r);
            return api_fail(SPVJIT_ERROR_LIMIT,
                            "%s: kernel \"%s\": its work-group memory with the local-memory arguments is %zu bytes; "
                            "spvjit gives a work-group at most %llu (spvjit_limits_get)",
                            src(k), k->entry->e->name, top, (unsigned long long)JIT_MAX_WORKGROUP_MEMORY);
        }
    }
    if (k->opts.unspecialized) {
        if (f->nspec > k->module->nslots) {
            rec_free(r);
            return api_fail(SPVJIT_ERROR_DISPATCH,
                            "%s: kernel \"%s\": the JIT reads %u spec constant slots, the "
                            "module has %zu",
                            src(k), k->entry->e->name, f->nspec, k->module->nslots);
        }
        /* The JIT's slot order (facts->spec_ids) with this kernel's values. */
        for (uint32_t i = 0; i < f->nspec; i++) {
            s.spec[i] = 0;
            for (size_t j = 0; j < k->module->nspecs; j++)
                if (k->module->specs[j].spec_id == f->spec_ids[i])
                    s.spec[i] = k->values[j];
        }
        r->data.spec_values = s.spec;
    }
    r->data.args = s.args;
    r->data.arg_sizes = s.sizes;
    r->data.nthreads = k->module->ctx->options.threads;

    if (d->work_dim) {
        r->range.kind = SPVJIT_RANGE_NDRANGE;
        r->range.work_dim = d->work_dim;
        for (int i = 0; i < 3; i++) {
            r->range.global_size[i] = d->global_size[i];
            r->range.global_offset[i] = d->global_offset[i];
            /* The size compiled for (chosen at dispatch) or the one asked for (checked by the executor). */
            r->range.local_size[i] = k->compiled ? d->local_size[i] : r->exec.local_size[i];
        }
    } else {
        r->range.kind = SPVJIT_RANGE_GROUPS;
        memcpy(r->range.group_count, d->groups, sizeof d->groups);
        memcpy(r->range.base_group, d->base_group, sizeof d->base_group);
    }
    return SPVJIT_OK;
}

static spvjit_status run(dispatch_rec *r, char *err, size_t errlen)
{
    spv_diag diag;
    diag.msg[0] = 0;
    if (!hub_enter(r, true)) {
        snprintf(err, errlen, "out of memory");
        return SPVJIT_ERROR_OUT_OF_MEMORY;
    }
    int rc = spvjit_exec_dispatch(&r->exec, &r->range, &r->data, &diag);
    hub_enter(r, false);
    atomic_fetch_add(&r->c->fallback_groups, atomic_load(&r->control.groups_fallback));
    if (rc == 0)
        return SPVJIT_OK;
    const spvjit_exec_control *c = &r->control;
    const char *source = r->c->module->source ? r->c->module->source : "<memory>";
    uint32_t why = atomic_load(&c->stop);
    unsigned long long done = atomic_load(&c->groups_done), total = c->groups_total;
    if (why == SPVJIT_STOP_TIMEOUT) {
        snprintf(err, errlen,
                 "%s: kernel \"%s\": timed out: stopped after %.3f s (the limit is %g s) with at least %llu of "
                 "%llu work-groups completed",
                 source, r->entry, c->elapsed_ms / 1e3, r->timeout_s, done, total);
        return SPVJIT_ERROR_TIMEOUT;
    }
    if (why == SPVJIT_STOP_CANCELLED) {
        snprintf(err, errlen,
                 "%s: kernel \"%s\": cancelled: stopped after %.3f s with at least %llu of %llu work-groups completed",
                 source, r->entry, c->elapsed_ms / 1e3, done, total);
        return SPVJIT_ERROR_CANCELLED;
    }
    if (c->fault.kind != SPVJIT_FAULT_NONE) {
        api_format_fault(r->c, r->entry, &c->fault, err, errlen);
        return SPVJIT_ERROR_MEMORY_CHECK;
    }
    snprintf(err, errlen, "%s", diag.msg);
    return SPVJIT_ERROR_DISPATCH;
}

SPVJIT_API spvjit_status spvjit_dispatch(spvjit_kernel *k, const spvjit_dispatch_info *d)
{
    dispatch_rec r;
    spvjit_status st = prepare(k, d, &r);
    if (st != SPVJIT_OK)
        return st;
    char err[2048];
    st = run(&r, err, sizeof err);
    rec_free(&r);
    if (st != SPVJIT_OK)
        api_set_error(err);
    return st;
}

/* --- asynchronous dispatches: one host thread each ------------------------------------ */

struct spvjit_event {
    pthread_t thread;
    dispatch_rec rec;
    spvjit_status st;
    char err[2048];
};

static void *async_main(void *p)
{
    spvjit_event *ev = p;
    ev->st = run(&ev->rec, ev->err, sizeof ev->err);
    spvjit_exec_release_thread(); /* this thread's stacks and work-group memory */
    return NULL;
}

SPVJIT_API spvjit_status spvjit_dispatch_async(spvjit_kernel *k, const spvjit_dispatch_info *d, spvjit_event **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_dispatch_async: ev is NULL");
    *out = NULL;
    spvjit_event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "out of memory");
    spvjit_status st = prepare(k, d, &ev->rec);
    if (st != SPVJIT_OK) {
        free(ev);
        return st;
    }
    if (pthread_create(&ev->thread, NULL, async_main, ev) != 0) {
        rec_free(&ev->rec);
        free(ev);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_dispatch_async: cannot start a thread");
    }
    *out = ev;
    return SPVJIT_OK;
}

SPVJIT_API spvjit_status spvjit_event_wait(spvjit_event *ev)
{
    if (!ev)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_event_wait: the event is NULL");
    pthread_join(ev->thread, NULL);
    spvjit_status st = ev->st;
    if (st != SPVJIT_OK)
        api_set_error(ev->err);
    rec_free(&ev->rec);
    free(ev);
    return st;
}
