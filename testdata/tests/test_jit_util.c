/* testdata/tests/test_jit_util.c — see test_jit_util.h. */
#include "test_jit_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/executor.h"
#include "lib/threadpool.h"

char tj_last_error[2048];

spv_module *tj_load(const char *rel)
{
    spv_diag d = { { 0 } };
    spv_module *m = spv_module_load_file(test_data_path(rel), NULL, &d);
    if (!m)
        fprintf(stderr, "tj_load %s: %s\n", rel, d.msg);
    return m;
}

spv_module *tj_specialize(const spv_module *m, const uint32_t *ids, const uint64_t *bits, unsigned n)
{
    spv_spec_value v[32];
    spv_diag d = { { 0 } };
    spv_spec_constant *sc = NULL;
    size_t nsc = spv_spec_constants(m, &sc);
    for (unsigned i = 0; i < n && i < 32; i++) {
        v[i] = (spv_spec_value){ .spec_id = ids[i], .type = SPV_VALUE_AUTO, .bits = bits[i] };
        for (size_t j = 0; j < nsc; j++)
            if (sc[j].spec_id == ids[i])
                v[i].type = sc[j].type;
    }
    free(sc);
    uint32_t *w = NULL;
    size_t nw = 0;
    if (spv_specialize(m, v, n, &w, &nw, &d)) {
        fprintf(stderr, "tj_specialize: %s\n", d.msg);
        return NULL;
    }
    spv_module *s = spv_module_load(w, nw * 4, m->source, NULL, &d);
    free(w);
    if (!s)
        fprintf(stderr, "tj_specialize (reload): %s\n", d.msg);
    return s;
}

bool tj_simd_forced_off(void)
{
    const char *force = getenv("SPVJIT_TEST_SIMD");
    return force && !strcmp(force, "off");
}

/* SPVJIT_TEST_MEMORY=check|unchecked: the memory mode of every kernel that
 * asks for the default (robust); check mode then runs every dispatch through
 * the executor, which reports. */
static jit_memory test_memory(void)
{
    const char *v = getenv("SPVJIT_TEST_MEMORY");
    return !v                        ? JIT_MEMORY_ROBUST
           : !strcmp(v, "check")     ? JIT_MEMORY_CHECK
           : !strcmp(v, "unchecked") ? JIT_MEMORY_UNCHECKED
                                     : JIT_MEMORY_ROBUST;
}

/* --- the fallback code for groups a kernel hands back (jit/abi.h) ---------------------------------
 * What tj_compile compiled each recent kernel from, so that tj_run can
 * compile the quick tier's checked code for the groups the optimized code
 * hands back, as lib/api_tier.c does. */

static struct made {
    const jit_kernel *k;
    const spv_module *m;
    char entry[256];
    bool has_entry;
    spvjit_options o; /* without hooks; its shape values: */
    spvjit_shape_value shapes[64];
} made[64];
static unsigned made_next;

static void remember(const jit_kernel *k, const spv_module *m, const char *entry, const spvjit_options *o)
{
    struct made *r = &made[made_next++ % 64];
    *r = (struct made){ .k = k, .m = m, .has_entry = entry != NULL, .o = *o };
    snprintf(r->entry, sizeof r->entry, "%s", entry ? entry : "");
    r->o.cancel = NULL;
    r->o.emit = NULL;
    r->o.keep_object = false;
    if (r->o.nshape_values > 64)
        r->k = NULL; /* (no test has so many) */
    else if (r->o.nshape_values)
        memcpy(r->shapes, o->shape_values, r->o.nshape_values * sizeof *r->shapes);
    r->o.shape_values = r->shapes;
}

/* The quick tier's code of k (the caller frees it), or NULL with a message. */
static jit_kernel *fallback_of(const jit_kernel *k, spv_diag *d)
{
    for (unsigned n = 0; n < 64; n++) { /* the newest record: an address freed kernels had is reused */
        struct made *r = &made[(made_next - 1 - n) % 64];
        if (r->k == k) {
            spvjit_options o = r->o;
            o.tier = JIT_TIER_QUICK;
            return spvjit_compile(r->m, r->has_entry ? r->entry : NULL, &o, d);
        }
    }
    snprintf(d->msg, sizeof d->msg, "tj_run: a handed-back group, and no record of the kernel's compile");
    return NULL;
}

static spvjit_wg_range_fn fallback_range(void *user, spv_diag *d)
{
    tj_fallback *fb = user;
    pthread_mutex_lock(&fb->lock);
    if (!fb->quick && !fb->failed)
        fb->failed = !(fb->quick = fallback_of(fb->k, d));
    spvjit_wg_range_fn fn = fb->quick ? spvjit_kernel_wg_range_fn(fb->quick) : NULL;
    pthread_mutex_unlock(&fb->lock);
    return fn;
}

spvjit_exec_kernel tj_exec_kernel(const jit_kernel *k, uint64_t extra_wg_mem, tj_fallback *fb)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    *fb = (tj_fallback){ .k = k };
    pthread_mutex_init(&fb->lock, NULL);
    spvjit_exec_kernel ek = {
        .wg_range = spvjit_kernel_wg_range_fn(k),
        .item_fn = spvjit_kernel_item_fn(k),
        .wg_memory_size = f->wg_mem_size + extra_wg_mem,
        .wg_memory_align = f->wg_mem_align,
        .wg_memory_init = spvjit_kernel_wg_init_fn(k),
        .stack_size = f->stack_estimate,
        .nbarrier_sites = f->nbarrier_sites,
        .memory_check = f->memory_check,
        .fallback = fallback_range,
        .fallback_user = fb,
    };
    memcpy(ek.local_size, f->local_size, sizeof ek.local_size);
    return ek;
}

void tj_fallback_free(tj_fallback *fb)
{
    spvjit_kernel_free(fb->quick);
    pthread_mutex_destroy(&fb->lock);
    memset(fb, 0, sizeof *fb);
}

int tj_run_range(const jit_kernel *k, tj_fallback *fb, const spvjit_wg_ctx *c, uint64_t first, uint64_t count)
{
    spvjit_wg_range_fn fn = spvjit_kernel_wg_range_fn(k);
    spv_diag diag = { { 0 } };
    while (count) {
        uint64_t ran = fn(c, first, count);
        if (ran >= count || (c->stop && *c->stop))
            return 0;
        spvjit_wg_range_fn quick = fallback_range(fb, &diag);
        if (!quick) {
            fprintf(stderr, "tj_run_range: %s\n", diag.msg);
            return -1;
        }
        quick(c, first + ran, 1);
        first += ran + 1;
        count -= ran + 1;
    }
    return 0;
}

void tj_keep_text(void *user, const char *what, const char *text)
{
    tj_texts *t = user;
    char **slot = !strcmp(what, "ir") ? &t->ir : !strcmp(what, "opt-ir") ? &t->opt : &t->asm_;
    free(*slot);
    *slot = strdup(text);
}

/* The options a compile of the tests gets (tj_compile). */
static spvjit_options test_options(const spvjit_options *o)
{
    spvjit_options t = o ? *o : (spvjit_options){ .opt_level = 3 };
    if (tj_simd_forced_off() && t.simd == JIT_SIMD_AUTO && t.subgroup_size == 0)
        t.simd = JIT_SIMD_OFF;
    if (t.tier == JIT_TIER_AUTO) /* the suite runs once per tier (Makefile) */
        t.tier = test_quick_tier() ? JIT_TIER_QUICK : JIT_TIER_OPT;
    if (t.memory == JIT_MEMORY_ROBUST)
        t.memory = test_memory();
    return t;
}

/* A compile's result as the tests keep it (a failure's message in
 * tj_last_error); false on failure. */
static bool compiled(jit_kernel *k, const spv_module *m, const char *entry, const spvjit_options *t, const spv_diag *d)
{
    if (k) {
        remember(k, m, entry, t);
        return true;
    }
    snprintf(tj_last_error, sizeof tj_last_error, "%s", d->msg);
    fprintf(stderr, "tj_compile: %s\n", d->msg);
    return false;
}

jit_kernel *tj_compile(const spv_module *m, const char *entry, const spvjit_options *o)
{
    spv_diag d = { { 0 } };
    spvjit_options t = test_options(o);
    jit_kernel *k = spvjit_compile(m, entry, &t, &d);
    tj_last_error[0] = 0;
    compiled(k, m, entry, &t, &d);
    return k;
}

struct compile_all {
    const tj_build *b;
    spvjit_options *t;
    spv_diag *d;
    jit_kernel **out;
};

static bool compile_range(void *user, uint64_t begin, uint64_t end)
{
    struct compile_all *a = user;
    for (uint64_t i = begin; i < end; i++)
        a->out[i] = spvjit_compile(a->b[i].m, a->b[i].entry, &a->t[i], &a->d[i]);
    return true;
}

bool tj_compile_all(const tj_build *b, unsigned n, jit_kernel **out)
{
    struct compile_all a = {
        .b = b, .t = calloc(n ? n : 1, sizeof *a.t), .d = calloc(n ? n : 1, sizeof *a.d), .out = out
    };
    if (!a.t || !a.d) {
        free(a.t);
        free(a.d);
        snprintf(tj_last_error, sizeof tj_last_error, "tj_compile_all: out of memory");
        return false;
    }
    for (unsigned i = 0; i < n; i++)
        a.t[i] = test_options(&b[i].o), out[i] = NULL;
    spvjit_pool_run(n, 0, compile_range, &a); /* the library's workers and this thread */
    bool ok = true;
    tj_last_error[0] = 0;
    for (unsigned i = 0; i < n; i++)
        ok &= compiled(out[i], b[i].m, b[i].entry, &a.t[i], &a.d[i]);
    free(a.t);
    free(a.d);
    return ok;
}

/* Sizes for the tests that give none: every range spans far past its base
 * (the tests that give sizes check out-of-bounds accesses). */
const uint64_t *tj_arg_sizes(const tj_dispatch *d)
{
    static uint64_t unbounded[256];
    if (d->arg_sizes)
        return d->arg_sizes;
    for (size_t i = 0; i < sizeof unbounded / sizeof unbounded[0]; i++)
        unbounded[i] = (uint64_t)1 << 60;
    return unbounded;
}

static void fill_ctx(spvjit_wg_ctx *c, const spvjit_kernel_facts *f, const tj_dispatch *d)
{
    static const uint32_t never_stop;
    memset(c, 0, sizeof *c);
    c->stop = &never_stop;
    for (int i = 0; i < 3; i++) {
        uint32_t ls = f->local_size[i];
        c->enqueued_local_size[i] = ls;
        if (f->is_kernel) {
            uint64_t g = i < (int)d->work_dim ? d->global_size[i] : 1;
            c->num_groups[i] = (uint32_t)((g + ls - 1) / ls);
            c->global_size[i] = g;
        } else {
            c->num_groups[i] = d->groups[i];
            c->global_size[i] = (uint64_t)d->groups[i] * ls;
        }
    }
    c->work_dim = f->is_kernel ? d->work_dim : 3;
    c->args = d->args;
    c->arg_sizes = tj_arg_sizes(d);
    c->push_constants = d->push;
    c->spec_values = d->spec_values;
    c->printf_stream = d->printf_stream;
}

void *tj_wg_block(uint64_t size, uint32_t align, void **alloc)
{
    if (align < SPVJIT_WG_MEMORY_ALIGN)
        align = SPVJIT_WG_MEMORY_ALIGN;
    uint64_t pad = (SPVJIT_WG_MEMORY_PAD + align - 1) / align * align;
    *alloc = NULL;
    if (posix_memalign(alloc, align, pad + size + pad))
        return NULL;
    memset(*alloc, 0xA5, pad + size + pad); /* garbage: work-group memory starts undefined */
    return (char *)*alloc + pad;
}

uint64_t tj_local_offset(const jit_kernel *k)
{
    uint64_t size = spvjit_kernel_facts_of(k)->wg_mem_size;
    return (size + SPVJIT_LOCAL_ARG_ALIGN - 1) / SPVJIT_LOCAL_ARG_ALIGN * SPVJIT_LOCAL_ARG_ALIGN;
}

uint64_t tj_local_extra(const jit_kernel *k, uint64_t bytes)
{
    return tj_local_offset(k) - spvjit_kernel_facts_of(k)->wg_mem_size + bytes;
}

static int run_direct(const jit_kernel *k, const tj_dispatch *d)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    spvjit_wg_ctx c;
    fill_ctx(&c, f, d);
    void *wg;
    c.wg_memory = tj_wg_block(f->wg_mem_size + d->extra_wg_mem, f->wg_mem_align, &wg);
    tj_fallback fb;
    (void)tj_exec_kernel(k, 0, &fb);
    int rc = 0;
    /* ranges of 1, 2, 3, 5, 8, 13, 1, 2, ... groups: most start and end
     * inside a row or slice of the grid, some hold one group */
    static const uint64_t lengths[] = { 1, 2, 3, 5, 8, 13 };
    uint64_t total = (uint64_t)c.num_groups[0] * c.num_groups[1] * c.num_groups[2];
    for (uint64_t first = 0, i = 0; first < total && !rc; i++) {
        uint64_t n = lengths[i % 6] < total - first ? lengths[i % 6] : total - first;
        rc = tj_run_range(k, &fb, &c, first, n);
        first += n;
    }
    tj_fallback_free(&fb);
    free(wg);
    return rc;
}

static int run_executor(const jit_kernel *k, const tj_dispatch *d)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    tj_fallback fb;
    spvjit_exec_kernel ek = tj_exec_kernel(k, d->extra_wg_mem, &fb);
    spvjit_exec_range r = { 0 };
    if (f->is_kernel) {
        r.kind = SPVJIT_RANGE_NDRANGE;
        r.work_dim = d->work_dim;
        for (int i = 0; i < 3; i++) {
            r.global_size[i] = i < (int)d->work_dim ? d->global_size[i] : 1;
            r.local_size[i] = f->local_size[i];
        }
    } else {
        r.kind = SPVJIT_RANGE_GROUPS;
        memcpy(r.group_count, d->groups, sizeof r.group_count);
    }
    spvjit_exec_data data = { .args = d->args,
                              .arg_sizes = tj_arg_sizes(d),
                              .push_constants = d->push,
                              .spec_values = d->spec_values,
                              .printf_stream = d->printf_stream,
                              .nthreads = 2 };
    spv_diag diag = { { 0 } };
    int rc = spvjit_exec_dispatch(&ek, &r, &data, &diag);
    if (rc)
        fprintf(stderr, "tj_run: %s\n", diag.msg);
    tj_fallback_free(&fb);
    return rc ? -1 : 0;
}

int tj_run(const jit_kernel *k, const tj_dispatch *d)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    if (!f->local_size_known) {
        fprintf(stderr, "tj_run: local size unknown\n");
        return -1;
    }
    uint32_t want = f->is_kernel ? f->nparams : f->nslots;
    if (d->arg_sizes && d->nargs < want) { /* the JIT would read sizes past the array */
        fprintf(stderr, "tj_run: %u argument sizes given, the kernel has %u %s\n", d->nargs, want,
                f->is_kernel ? "parameters" : "resource slots");
        return -1;
    }
    return f->uses_barriers || test_memory() == JIT_MEMORY_CHECK ? run_executor(k, d) : run_direct(k, d);
}

uint64_t *tj_spec_slots(const spv_module *m, const jit_kernel *k, const uint32_t *ids, const uint64_t *bits, unsigned n)
{
    const spvjit_kernel_facts *f = spvjit_kernel_facts_of(k);
    uint64_t *s = calloc(f->nspec + 1, 8);
    spv_spec_constant *sc = NULL;
    size_t nsc = spv_spec_constants(m, &sc);
    for (uint32_t i = 0; i < f->nspec; i++) {
        for (size_t j = 0; j < nsc; j++)
            if (sc[j].spec_id == f->spec_ids[i])
                s[i] = sc[j].default_bits;
        for (unsigned j = 0; j < n; j++)
            if (ids[j] == f->spec_ids[i])
                s[i] = bits[j];
    }
    free(sc);
    return s;
}

bool tj_close(float a, float b, float rel)
{
    if (a == b)
        return true;
    float m = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
    return fabsf(a - b) <= rel * (m > 1e-6f ? m : 1e-6f);
}
