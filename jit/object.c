/* jit/object.c — compiled kernels as bytes (for the on-disk cache) and back.
 *
 * A blob is a header followed by the relocatable object file that the JIT
 * linked (host byte order; the caller's cache key fixes the host):
 *   "SPVJITO1"  u32 format  u32 header_bytes  u32 flags (BLOB_*)
 *   the facts the module gives (checked on load, see check_facts)
 *   u64 object_len  u64 object_hash          object bytes
 * Loading recomputes the facts from the module with the analysis the compile
 * used (jit/analyze.c) — no lowering, no passes, no code generation — and
 * refuses a blob whose recorded facts differ: code compiled for another
 * work-group memory layout, parameter list or resource numbering must never
 * run.  What only code generation decides (barriers compiled into regions,
 * which functions exist, the sub-group size) is taken from the flags and the
 * header.
 */
#include "kernel_internal.h"
#include "util/hash.h"
#include "util/timer.h"

#include <stdlib.h>
#include <string.h>

#define BLOB_MAGIC "SPVJITO1"
/* 2: XXH3 hashes (util/hash.h); 3: spvjit_wg_range; 4: the sub-group size;
 * 5: code that needs padded work-group memory (abi.h) */
#define BLOB_FORMAT 5u

enum {
    BLOB_WG = JIT_HAS_WG_RANGE,
    BLOB_ITEM = JIT_HAS_ITEM,
    BLOB_WG_INIT = JIT_HAS_WG_INIT,
    BLOB_REGIONS = 8, /* barriers compiled into regions */
    BLOB_KERNEL = 16,
    BLOB_LS_KNOWN = 32,
    BLOB_BARRIERS = 64,
};

typedef struct blob_header {
    char magic[8];
    uint32_t format, header_bytes;
    uint32_t flags;
    uint32_t nbarrier_sites;
    uint32_t local_size[3];
    uint32_t nparams, nresources, nslots, nspec;
    uint32_t wg_mem_align;
    uint32_t subgroup_size; /* decided by code generation, like BLOB_REGIONS */
    uint64_t wg_mem_size, push_constant_size, stack_estimate;
    uint64_t facts_hash; /* parameters, resources, spec-constant slots */
    uint64_t object_len, object_hash;
} blob_header;

static uint64_t hash_u64(uint64_t h, uint64_t v)
{
    return util_hash_bytes(&v, sizeof v, h);
}

/* The fields of the parameter, resource and spec-slot lists (not their names). */
static uint64_t facts_hash(const spvjit_kernel_facts *f)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < f->nparams; i++) {
        const spvjit_param *p = &f->params[i];
        h = hash_u64(h, p->index);
        h = hash_u64(h, p->type_id);
        h = hash_u64(h, p->kind);
        h = hash_u64(h, p->storage);
        h = hash_u64(h, p->size);
        h = hash_u64(h, p->align);
        h = hash_u64(h, (uint64_t)p->noalias << 1 | p->readonly);
    }
    for (uint32_t i = 0; i < f->nresources; i++) {
        const spvjit_resource *r = &f->resources[i];
        h = hash_u64(h, r->var_id);
        h = hash_u64(h, (uint64_t)r->set << 32 | r->binding);
        h = hash_u64(h, (uint64_t)r->slot << 32 | r->array_count);
        h = hash_u64(h, r->storage);
        h = hash_u64(h, r->size);
        h = hash_u64(h, r->runtime_stride);
        h = hash_u64(h, r->readonly);
    }
    for (uint32_t i = 0; i < f->nspec; i++)
        h = hash_u64(h, f->spec_ids[i]);
    return h;
}

/* The header's record of facts (everything but magic, format and object). */
static void record_facts(blob_header *h, const spvjit_kernel_facts *f, unsigned syms)
{
    h->flags = syms | (f->barrier_regions ? BLOB_REGIONS : 0) | (f->is_kernel ? BLOB_KERNEL : 0) |
               (f->local_size_known ? BLOB_LS_KNOWN : 0) | (f->uses_barriers ? BLOB_BARRIERS : 0);
    h->nbarrier_sites = f->nbarrier_sites;
    memcpy(h->local_size, f->local_size, sizeof h->local_size);
    h->nparams = f->nparams;
    h->nresources = f->nresources;
    h->nslots = f->nslots;
    h->nspec = f->nspec;
    h->wg_mem_align = f->wg_mem_align;
    h->wg_mem_size = f->wg_mem_size;
    h->push_constant_size = f->push_constant_size;
    h->stack_estimate = f->stack_estimate;
    h->facts_hash = facts_hash(f);
}

int jit_keep_object(jit_kernel *k, unsigned syms, const void *obj, size_t len)
{
    blob_header h;
    memset(&h, 0, sizeof h); /* no stray padding bytes in the blob */
    memcpy(h.magic, BLOB_MAGIC, 8);
    h.format = BLOB_FORMAT;
    h.header_bytes = sizeof h;
    record_facts(&h, &k->facts, syms);
    h.subgroup_size = k->facts.subgroup_size;
    h.object_len = len;
    h.object_hash = util_hash_bytes(obj, len, 0);
    k->blob = malloc(sizeof h + len);
    if (!k->blob)
        return -1;
    memcpy(k->blob, &h, sizeof h);
    memcpy(k->blob + sizeof h, obj, len);
    k->blob_len = sizeof h + len;
    return 0;
}

void *spvjit_kernel_take_object(jit_kernel *k, size_t *len)
{
    void *b = k->blob;
    *len = k->blob_len;
    k->blob = NULL;
    k->blob_len = 0;
    return b;
}

/* --- loading ------------------------------------------------------------------------------- */

/* Compares the recomputed facts with the blob's record; names the first difference. */
static int check_facts(const blob_header *h, const spvjit_kernel_facts *f, unsigned syms, const char *what,
                       spv_diag *diag)
{
    blob_header now;
    memset(&now, 0, sizeof now);
    record_facts(&now, f, syms);
    const unsigned facts_flags = BLOB_KERNEL | BLOB_LS_KNOWN | BLOB_BARRIERS | BLOB_WG_INIT;
#define DIFF(field, label)                                                                                             \
    if (h->field != now.field)                                                                                         \
    return spv_fail(diag, "%s: the cached object was made for other facts: %s %llu, the module gives %llu", what,      \
                    label, (unsigned long long)h->field, (unsigned long long)now.field)
    DIFF(nbarrier_sites, "barrier sites");
    DIFF(local_size[0], "local size x");
    DIFF(local_size[1], "local size y");
    DIFF(local_size[2], "local size z");
    DIFF(nparams, "parameters");
    DIFF(nresources, "resources");
    DIFF(nslots, "resource slots");
    DIFF(nspec, "spec-constant slots");
    DIFF(wg_mem_align, "work-group memory alignment");
    DIFF(wg_mem_size, "work-group memory bytes");
    DIFF(push_constant_size, "push-constant bytes");
    DIFF(stack_estimate, "per-item state bytes");
    DIFF(facts_hash, "parameter/resource record");
#undef DIFF
    if ((h->flags & facts_flags) != (now.flags & facts_flags))
        return spv_fail(diag, "%s: the cached object was made for other facts: flags %#x, the module gives %#x", what,
                        h->flags & facts_flags, now.flags & facts_flags);
    return 0;
}

/* The functions a blob must define, from its flags. */
static bool symbols_consistent(unsigned flags)
{
    bool regions = flags & BLOB_REGIONS, barriers = flags & BLOB_BARRIERS;
    bool wg = flags & BLOB_WG, item = flags & BLOB_ITEM;
    if (regions && !barriers)
        return false;
    return wg == (!barriers || regions) && item == !wg;
}

static int analyze_entry(lower_ctx *c, void *options)
{
    return jit_settle_entry(c, options) || jit_analyze(c, c->ep->func, true) ? -1 : 0;
}

jit_kernel *spvjit_load_object(const spv_module *m, const char *entry, const spvjit_options *opts, const void *blob,
                               size_t len, spv_diag *diag)
{
    static const spvjit_options defaults = { .opt_level = 3 };
    const spvjit_options *o = opts ? opts : &defaults;
    const char *src = m->source ? m->source : "<memory>";
    const spv_entry_point *ep = jit_find_entry(m, entry, diag);
    if (!ep)
        return NULL;
    double t0 = util_now_ms();

    blob_header h;
    const unsigned char *bytes = blob;
    bool ok = blob && len >= sizeof h;
    if (ok)
        memcpy(&h, blob, sizeof h);
    ok = ok && !memcmp(h.magic, BLOB_MAGIC, 8) && h.format == BLOB_FORMAT && h.header_bytes == sizeof h &&
         h.object_len == len - sizeof h && symbols_consistent(h.flags) &&
         util_hash_bytes(bytes + sizeof h, (size_t)h.object_len, 0) == h.object_hash;
    if (!ok) {
        spv_fail(diag, "%s: entry point %s: the cached object is damaged or of another format", src, ep->name);
        return NULL;
    }
    if ((h.flags & BLOB_REGIONS) && o->barriers == JIT_BARRIER_MODE_FIBERS) {
        spv_fail(diag, "%s: entry point %s: the cached object runs barriers as regions; fibers were asked for", src,
                 ep->name);
        return NULL;
    }
    if ((h.flags & BLOB_BARRIERS) && !(h.flags & BLOB_REGIONS) && o->barriers == JIT_BARRIER_MODE_REGIONS) {
        spv_fail(diag, "%s: entry point %s: the cached object runs barriers on fibers; regions were asked for", src,
                 ep->name);
        return NULL;
    }

    /* The facts, from the module alone. */
    jit_build b = { 0 };
    jit_kernel *k = calloc(1, sizeof *k);
    if (!k)
        spv_fail(diag, "out of memory");
    ok = k && !jit_build_begin(&b, m, ep, o, false, ep->name, diag) && !jit_run_guarded(&b.c, analyze_entry, (void *)o);
    ok = ok && !jit_fill_facts(k, &b.c);
    if (ok) {
        k->facts.barrier_regions = (h.flags & BLOB_REGIONS) != 0;
        k->facts.subgroup_size = h.subgroup_size;
    }
    unsigned syms = h.flags & (BLOB_WG | BLOB_ITEM);
    if (ok && b.c.has_wg_init)
        syms |= BLOB_WG_INIT;
    jit_build_end(&b);
    if (!ok || check_facts(&h, &k->facts, syms, src, diag)) {
        spvjit_kernel_free(k);
        return NULL;
    }
    double t1 = util_now_ms();

    LLVMMemoryBufferRef obj =
        LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)bytes + sizeof h, (size_t)h.object_len, ep->name);
    if (jit_kernel_link(k, obj, h.flags & (BLOB_WG | BLOB_ITEM | BLOB_WG_INIT), diag)) {
        spvjit_kernel_free(k);
        return NULL;
    }
    /* nothing was lowered or optimized: the analysis counts as lowering, linking as code generation */
    k->facts.ms_lower = t1 - t0;
    k->facts.ms_codegen = util_now_ms() - t1;
    if (o->keep_object && (k->blob = malloc(len))) {
        memcpy(k->blob, blob, len);
        k->blob_len = len;
    }
    return k;
}
