/* lib/api_internal.h — the objects behind the public handles of spvjit.h.
 *
 * Ownership:
 *   context  — reference counted: the user's handle plus one per live module,
 *              so destroying handles in any order is safe.  Owns the cache.
 *   module   — reference counted: the user's handle plus one per kernel
 *              (kernels whose local size is chosen at dispatch compile later).
 *   compiled — one entry point at one set of values and local size; shared
 *              by the cache and every kernel using it (reference counted).
 *              Owns the spv_module it was compiled from, since the JIT's
 *              facts point into it, and its code at one tier or, while the
 *              optimized tier compiles in the background, the quick one
 *              (api_tier.c).
 *   code     — one tier's native code, held by its compiled object and by
 *              each dispatch running it (reference counted).
 *   kernel   — a compiled entry point (or, for a local size chosen at
 *              dispatch, the recipe to compile one per local size) plus its
 *              bindings.
 */
#ifndef SPVJIT_LIB_API_INTERNAL_H
#define SPVJIT_LIB_API_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/api_jit.h"
#include "lib/api_options.h"
#include "lib/executor.h"
#include "lib/kernel_cache.h"
#include "lib/spvjit.h"
#include "spirv/interface.h"
#include "spirv/module.h"
#include "spirv/specialize.h"
#include "util/array.h"
#include "util/digest.h"

/* --- errors (api_error.c) ---------------------------------------------------- */

/* Sets this thread's last error and returns s. */
spvjit_status api_fail(spvjit_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies a message (e.g. from another thread) into this thread's last error. */
void api_set_error(const char *msg);

/* --- context ------------------------------------------------------------------ */

typedef struct api_opt_job api_opt_job; /* an optimized compile in the background (api_tier.c) */

struct spvjit_context {
    atomic_uint refs;
    api_context_options options; /* resolved once, the environment included (api_options.c) */
    kcache *cache;
};

void api_context_retain(spvjit_context *ctx);
void api_context_release(spvjit_context *ctx);

/* --- module ---------------------------------------------------------------------- */

typedef struct api_entry_info {
    const spv_entry_point *e;
    spv_resource *res; /* spv_entry_resources, workgroup/opaque included */
    int nres;
    spvjit_resource_info *pub; /* the public view (workgroup variables left out) */
    unsigned npub;
    uint64_t wg_bytes; /* static work-group variables */
} api_entry_info;

struct spvjit_module {
    atomic_uint refs;
    spvjit_context *ctx;
    spv_module *m;
    unsigned char digest[UTIL_DIGEST_BYTES]; /* of m's words, made at load: the caches' key part a */
    spv_spec_constant *slots;                /* every SpecId constant, sorted by SpecId (the JIT's
                                 unspecialized slots: glslang may put one id on several) */
    size_t nslots;
    spv_spec_constant *specs; /* one per SpecId: the first constant carrying it (named
                                 after the first named one) */
    size_t nspecs;
    unsigned *spec_sets;        /* [nspecs]: spvjit_spec_sets bits (what the value shapes) */
    spv_module *view;           /* m specialized with its defaults (reflection), or m */
    api_entry_info *entries;    /* [m->nentries] */
    struct api_export *exports; /* [nexports]: exported functions (call_exported.c) */
    unsigned nexports;
};

/* The module's exported functions, described and their calls prepared
 * (call_exported.c): 0, or -1 when out of memory (api_exports_free cleans up). */
int api_exports_make(spvjit_module *m);
void api_exports_free(spvjit_module *m);

void api_module_retain(spvjit_module *m);
void api_module_release(spvjit_module *m);
/* The entry by name (NULL: the only/first compute one), or NULL with the error set. */
const api_entry_info *api_module_entry(const spvjit_module *m, const char *name, spvjit_status *st);

/* --- specs --------------------------------------------------------------------------- */

typedef struct api_spec_value {
    uint32_t spec_id;
    spv_value_type type; /* SPV_VALUE_AUTO: text to parse as the constant's type */
    uint64_t bits;
    char *text;
    uint32_t size; /* SPV_VALUE_BYTES: how many */
} api_spec_value;

struct spvjit_specs {
    util_array values; /* of api_spec_value, one per SpecId */
};

/* The value of every spec constant of m (user's, else the default), in the
 * order of m->specs, checked against the constants' types.  *out malloc'd. */
spvjit_status api_resolve_specs(const spvjit_module *m, const spvjit_specs *s, uint64_t **out);

/* --- compiled kernels and their tiers (api_tier.c) ----------------------------------- */

/* One tier's native code. */
typedef struct api_code {
    atomic_uint refs;
    jit_kernel *jk;
    bool facts_owner;        /* jk holds the compiled object's facts: freeing the code keeps them */
    jit_tier tier;           /* JIT_TIER_QUICK or JIT_TIER_OPT */
    spvjit_exec_kernel exec; /* work-group memory: static part only */
} api_code;

/* Everything one compile of a kernel needs besides its module, owned (copies),
 * so that the optimized tier can be compiled later on a pool thread. */
typedef struct api_build_plan {
    char *entry;
    spvjit_options o;           /* shape_values point into shapes; tier set per compile */
    spvjit_shape_value *shapes; /* malloc'd */
    char *disk_dir;             /* NULL: no disk cache */
    unsigned char *key;         /* the disk cache's key: alen bytes of part a, then blen of part b */
    size_t alen, blen;
} api_build_plan;

typedef enum api_opt_state {
    API_OPT_FINAL = 0, /* the code is the tier the build asked for: nothing more comes */
    API_OPT_PENDING,   /* auto: the optimized compile is queued or running */
    API_OPT_READY,     /* auto: the optimized code replaced the quick code */
    API_OPT_FAILED,    /* auto: the optimized compile failed or was cancelled (opt_error); quick stays */
} api_opt_state;

typedef struct api_compiled {
    atomic_uint refs;
    spv_module *module;                   /* what the JIT compiled (facts point into it) */
    jit_kernel *jk;                       /* the first code's: owns the facts, the same for every tier */
    const spvjit_kernel_facts *facts;     /* jk's */
    const spvjit_kernel_facts *opt_facts; /* the optimized code's, once it is in place */
    spvjit_native_fn fn;                  /* an exported function (spvjit_call_exported), else NULL */
    double total_ms;                      /* specialize + the first compile, or + load from disk */
    double t_start;                       /* util_now_ms() when the build began */
    pthread_mutex_t lock;                 /* guards what follows */
    pthread_cond_t changed;               /* opt left API_OPT_PENDING */
    api_code *code;                       /* what a dispatch starting now runs */
    api_opt_state opt;
    api_opt_job *job;    /* while API_OPT_PENDING */
    double opt_ready_ms; /* ms after t_start at which optimized code was in place; 0: not */
    char *opt_error;     /* API_OPT_FAILED: why (malloc'd) */
    api_build_plan plan; /* how it is compiled: the optimized tier in the background, the fallback */
    /* The quick tier's code, every bounds check in place, for the work-groups
     * the optimized code hands back (jit/abi.h): an auto build's first code,
     * else compiled on first need (api_compiled_fallback). */
    pthread_mutex_t fallback_lock;
    _Atomic(api_code *) fallback;
    char *fallback_error;             /* why it could not be made (malloc'd) */
    _Atomic uint64_t fallback_groups; /* work-groups dispatches ran on it */
} api_compiled;

/* Compiles the plan's kernel at `tier` (QUICK or OPT) from sm; optimized code
 * is stored in the disk cache.  `cancel` may stop it (api_kernel.c).  NULL
 * with diag filled on failure. */
jit_kernel *api_plan_compile(const api_build_plan *p, const spv_module *sm, jit_tier tier, const atomic_bool *cancel,
                             spv_diag *diag);
void api_plan_free(api_build_plan *p);

/* The module the JIT compiles for these values (module->specs order): the
 * specialized module, or (unspecialized) a copy of the original; *shapes gets
 * the values as shape values (malloc'd, module->nspecs of them).  NULL with
 * the error set in *st.  validate: check the specialized module with
 * SPIRV-Tools (values can make a valid module invalid).  A build skips that
 * until it has to compile: optimized code in the disk cache was compiled from
 * the same words (the key holds the module's digest and the values), validated
 * then. */
spv_module *api_module_for_values(const spvjit_module *mod, const uint64_t *values, bool unspecialized, bool validate,
                                  spvjit_shape_value **shapes, spvjit_status *st);
/* The check api_module_for_values left out, on its module sm (specialized). */
spvjit_status api_module_validate_specialized(const spvjit_module *mod, const spv_module *sm);

/* A compiled object taking over sm, jk (code of `tier`: QUICK or OPT) and
 * the plan (NULL: none; it is then zeroed), with one reference; NULL
 * (nothing taken) when out of memory. */
api_compiled *api_compiled_new(spv_module *sm, jit_kernel *jk, jit_tier tier, api_build_plan *plan);
/* The executor's view of `code`, one of c's: the groups it hands back run on
 * c's fallback code. */
void api_compiled_exec(api_compiled *c, const api_code *code, spvjit_exec_kernel *out);
void api_compiled_retain(void *c);
void api_compiled_release(void *c);

/* A dispatch of this many work-items above which an auto kernel whose
 * optimized code is still compiling waits for it rather than running the
 * quick code (3-40x slower on the seed kernels; a waiting dispatch costs at
 * most the rest of one optimized compile, 10-60 ms). */
#define API_QUICK_MAX_ITEMS ((uint64_t)1 << 16)

/* The optimized compile of an auto build waits this long on the pool queue
 * before it starts (whoever needs it sooner runs it at once): a kernel whose
 * program ends within it — a test script, a one-shot run — never pays for
 * optimized code it would not use. */
#define API_OPT_DELAY_MS 10

/* The code a dispatch of `items` work-items runs (a reference: release it
 * with api_code_release when the dispatch ends): the current code, or for a
 * dispatch above API_QUICK_MAX_ITEMS the optimized code still compiling. */
api_code *api_compiled_code(api_compiled *c, uint64_t items);
void api_code_release(api_code *code);
/* Compiles c's optimized tier in the background from its plan (c runs its
 * quick code meanwhile).  On failure to start, c stays quick. */
void api_compiled_start_opt(api_compiled *c, spvjit_context *ctx);
/* Waits until c's optimized tier is no longer pending (running its compile on
 * this thread if no worker has started it): SPVJIT_OK, or the error of a
 * failed optimized compile (set). */
spvjit_status api_compiled_wait_opt(api_compiled *c);
/* Context teardown: cancels ctx's optimized compiles and waits for those
 * running (NULL: every context's, at the process's exit). */
void api_opt_jobs_cancel_all(spvjit_context *ctx);
/* Tests only: while held, optimized compiles wait before they begin (a
 * cancel still ends them), so a test sees the quick tier for as long as it
 * needs. */
void api_tier_hold_for_tests(bool hold);

/* What a cache entry holds: a kernel or an exported function. */
typedef enum api_code_kind { API_CODE_KERNEL = 'K', API_CODE_FUNCTION = 'F' } api_code_kind;

/* The kernel caches' key, memory and disk alike: part a the module's digest
 * (BLAKE2b of its words, made once at load); part b the kind, the entry /
 * function name, the resolved build options whole (every field, as bytes:
 * none can be left out; the tier as the code's tier — auto and opt builds
 * share the optimized code, quick builds have their own) and the spec values
 * the code depends on (all when specializing; unspecialized, only the ones
 * that shape the work-group size or an array, the rest being read at run
 * time).  Fills *key (hash included) and returns part b, malloc'd (NULL: no
 * memory). */
unsigned char *api_cache_key(const spvjit_module *mod, api_code_kind kind, const char *name, const api_build_options *o,
                             const uint64_t *values, kcache_key *key);

/* --- kernels --------------------------------------------------------------------------- */

/* A Kernel-flavour argument as the user set it. */
typedef enum api_arg_kind { API_ARG_POINTER, API_ARG_LOCAL, API_ARG_VALUE } api_arg_kind;

typedef struct api_kernel_arg {
    api_arg_kind kind;
    const char *name;
    uint64_t size; /* by-value: its size */
    bool set;
    void *ptr;            /* pointer args */
    uint64_t bytes;       /* buffer bytes, or local-memory bytes */
    unsigned char *value; /* by-value bytes [size] */
} api_kernel_arg;

/* A Shader-flavour slot as the user bound it. */
typedef struct api_slot {
    bool bound;
    void *ptr;
    uint64_t bytes;
} api_slot;

#define API_LOCAL_SIZE_MEMO 8

/* The dispatches of a kernel running now, for spvjit_dispatch_cancel; shared
 * (reference counted) by the kernel and its dispatches, which may outlive it. */
typedef struct api_stop_hub {
    atomic_uint refs;
    pthread_mutex_t lock;
    util_array running; /* spvjit_exec_control * */
} api_stop_hub;

api_stop_hub *api_stop_hub_new(void);
void api_stop_hub_release(api_stop_hub *h);

struct spvjit_kernel {
    spvjit_module *module;
    const api_entry_info *entry;
    api_build_options opts; /* resolved (api_options.c) */
    uint64_t *values;       /* resolved spec values, module->specs order */
    api_compiled *compiled; /* NULL: local size chosen at dispatch */
    bool from_cache;
    pthread_mutex_t lock; /* bindings, the local-size memo */
    /* local size chosen at dispatch: the compiles seen so far */
    struct {
        uint32_t ls[3];
        api_compiled *c;
        bool hit;
    } memo[API_LOCAL_SIZE_MEMO];
    unsigned nmemo, memo_next, memo_last; /* memo_last: the latest compile (for stats) */
    atomic_uint_fast64_t dispatches[2];   /* dispatches run on the quick [0] and optimized [1] code */
    atomic_int last_tier;                 /* the latest dispatch's jit_tier + 1; 0: none yet */
    /* bindings */
    api_kernel_arg *args;
    uint32_t nargs; /* Kernel flavour */
    api_slot *slots;
    uint32_t nslots; /* Shader flavour */
    unsigned char *push;
    size_t push_bytes;
    api_stop_hub *hub; /* its dispatches running now */
};

/* A Shader binding or Kernel argument may be smaller than its layout needs
 * (memory modes robust and check: every access is checked). */
static inline bool api_small_buffers_ok(const spvjit_kernel *k)
{
    return k->opts.memory != JIT_MEMORY_UNCHECKED;
}

/* memory=check's report as one line naming the kernel, the work-group and
 * work-item, the instruction with its source line, the range, the offset and
 * the bound (api_fault.c). */
void api_format_fault(const api_compiled *c, const char *entry, const spvjit_exec_fault *f, char *buf, size_t len);
/* The same for an out-of-bounds access of exported function fname in `lane` of a call. */
void api_format_call_fault(const api_compiled *c, const char *fname, unsigned lane, const spvjit_exec_fault *f,
                           char *buf, size_t len);

/* A readable name for the buffer at set/binding (the JIT's, else the reflection's). */
const char *api_resource_name(const spvjit_kernel *k, uint32_t set, uint32_t binding, const char *jit_name);

/* The compiled kernel for local size ls: from the memory cache, else the
 * disk cache (context's disk_dir), else compiled (and stored on disk).
 * Returns a reference, or NULL with the error set in *st.  *hit: from either
 * cache. */
api_compiled *api_kernel_compiled_for(spvjit_kernel *k, const uint32_t ls[3], bool *hit, spvjit_status *st);

#endif
