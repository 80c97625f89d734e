/* lib/api_options.h — every option of a context and of a build, resolved in one place.
 *
 * api_options.c is the one owner of option defaults, of the environment (read
 * once, when a context is created: nothing else in the library reads it) and of
 * validation.  Precedence, field by field: a build's spvjit_build_options >
 * the context's defaults (spvjit_context_options.defaults) > the environment
 * > the built-in default.
 *
 * Variables: SPVJIT_THREADS, SPVJIT_BARRIERS, SPVJIT_SUBGROUP_SIZE, SPVJIT_SIMD,
 * SPVJIT_MEMORY, SPVJIT_TIER, and XDG_CACHE_HOME / HOME for the disk cache.
 */
#ifndef SPVJIT_LIB_API_OPTIONS_H
#define SPVJIT_LIB_API_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/api_jit.h"
#include "lib/spvjit.h"

/* A build's options, resolved: everything a compile depends on besides the
 * module, the entry point and the spec values.  Plain bytes, no padding (a
 * static assertion checks): the kernel caches key on the whole value
 * (api_cache_key), so a field added here is in both caches' keys with no
 * further step, and test_api_options walks every field. */
typedef struct api_build_options {
    uint32_t local_size[3]; /* 0,0,0: the module's, or chosen at dispatch */
    uint32_t subgroup_size; /* 0: native; else 1, 4, 8, 16, 32, 64 */
    uint8_t unspecialized;  /* 0 or 1 */
    uint8_t opt_level;      /* 0..3 */
    uint8_t barriers;       /* jit_barrier_mode */
    uint8_t simd;           /* jit_simd */
    uint8_t memory;         /* jit_memory */
    uint8_t tier;           /* jit_tier */
    uint8_t reserved[2];    /* 0 */
} api_build_options;

/* A context's options, resolved. */
typedef struct api_context_options {
    uint32_t threads;        /* worker threads, caller included: >= 1 */
    size_t cache_bytes;      /* the memory cache's bound */
    char *disk_dir;          /* malloc'd; NULL: no disk cache */
    api_build_options build; /* what a build takes for the fields it leaves 0 */
} api_context_options;

/* Resolves `given` (NULL: all defaults) against the environment, read now.
 * On failure the error names the field or the variable and what it takes. */
spvjit_status api_context_options_resolve(const spvjit_context_options *given, api_context_options *out);
void api_context_options_free(api_context_options *o);

/* A build's options: `given`'s fields (NULL: none) over the context's.  `who`
 * names the API call in messages. */
spvjit_status api_build_options_resolve(const api_context_options *ctx, const spvjit_build_options *given,
                                        const char *who, api_build_options *out);

/* The JIT's view of resolved options (the per-call fields — shape values,
 * emit hooks, keep_object — are the caller's). */
void api_build_options_to_jit(const api_build_options *o, spvjit_options *jo);

#endif
