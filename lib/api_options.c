/* lib/api_options.c — option defaults, the environment and validation (see api_options.h). */
#include "lib/api_options.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/api_internal.h"
#include "lib/threadpool.h"

#define DEFAULT_CACHE_BYTES ((size_t)256 << 20)
#define DEFAULT_OPT_LEVEL 3

_Static_assert(sizeof(api_build_options) == 3 * 4 + 4 + 6 + 2,
               "api_build_options has no padding: its bytes are the kernel caches' key");

/* --- the enumerated options: one table for the API fields, the variables and
 * the JIT's values (a public value is the JIT's plus one: 0 means "not given") --- */

typedef struct enum_option {
    const char *field;    /* the spvjit_build_options field */
    const char *env;      /* its environment variable */
    const char *names[4]; /* the JIT's values 0, 1, ... by name (NULL-terminated) */
    size_t given;         /* offsetof(spvjit_build_options, field) */
    size_t resolved;      /* offsetof(api_build_options, field) */
} enum_option;

/* One row per option: the field (in both structs), its variable, its values by name. */
/* clang-format off */
#define ENUM_OPTION(field, env, ...) \
    { #field, env, { __VA_ARGS__ }, offsetof(spvjit_build_options, field), offsetof(api_build_options, field) }
/* clang-format on */
static const enum_option enum_options[] = {
    ENUM_OPTION(barriers, "SPVJIT_BARRIERS", "auto", "regions", "fibers"),
    ENUM_OPTION(simd, "SPVJIT_SIMD", "auto", "off"),
    ENUM_OPTION(memory, "SPVJIT_MEMORY", "robust", "check", "unchecked"),
    ENUM_OPTION(tier, "SPVJIT_TIER", "auto", "quick", "opt"),
};
#undef ENUM_OPTION
#define NENUMS (sizeof enum_options / sizeof enum_options[0])

_Static_assert(sizeof(spvjit_barriers) == sizeof(int) && sizeof(spvjit_simd) == sizeof(int) &&
                   sizeof(spvjit_memory) == sizeof(int) && sizeof(spvjit_tier) == sizeof(int),
               "the table reads the public enum fields as int");
_Static_assert(SPVJIT_BARRIERS_AUTO == JIT_BARRIER_MODE_AUTO + 1 &&
                   SPVJIT_BARRIERS_REGIONS == JIT_BARRIER_MODE_REGIONS + 1 &&
                   SPVJIT_BARRIERS_FIBERS == JIT_BARRIER_MODE_FIBERS + 1,
               "barriers: public = JIT + 1");
_Static_assert(SPVJIT_SIMD_AUTO == JIT_SIMD_AUTO + 1 && SPVJIT_SIMD_OFF == JIT_SIMD_OFF + 1, "simd: public = JIT + 1");
_Static_assert(SPVJIT_MEMORY_ROBUST == JIT_MEMORY_ROBUST + 1 && SPVJIT_MEMORY_CHECK == JIT_MEMORY_CHECK + 1 &&
                   SPVJIT_MEMORY_UNCHECKED == JIT_MEMORY_UNCHECKED + 1,
               "memory: public = JIT + 1");
_Static_assert(SPVJIT_TIER_AUTO == JIT_TIER_AUTO + 1 && SPVJIT_TIER_QUICK == JIT_TIER_QUICK + 1 &&
                   SPVJIT_TIER_OPT == JIT_TIER_OPT + 1,
               "tier: public = JIT + 1");

static unsigned count_names(const enum_option *e)
{
    unsigned n = 0;
    while (n < 4 && e->names[n])
        n++;
    return n;
}

/* "auto, regions or fibers" */
static const char *name_list(const enum_option *e, char *buf, size_t len)
{
    unsigned n = count_names(e);
    size_t k = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < n && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", e->names[i]);
    return buf;
}

static const unsigned subgroup_sizes[] = { 1, 4, 8, 16, 32, 64 };

static bool subgroup_size_ok(uint64_t v)
{
    for (size_t i = 0; i < sizeof subgroup_sizes / sizeof subgroup_sizes[0]; i++)
        if (v == subgroup_sizes[i])
            return true;
    return false;
}

/* --- the environment ----------------------------------------------------------------- */

/* A variable's value, NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A whole decimal number, or -1. */
static long long env_number(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return (errno || *end || end == s || v < 0) ? -1 : v;
}

/* The built-in defaults overridden by the environment. */
static spvjit_status build_from_env(api_build_options *o)
{
    memset(o, 0, sizeof *o);
    o->opt_level = DEFAULT_OPT_LEVEL;
    char list[128];
    for (size_t i = 0; i < NENUMS; i++) {
        const enum_option *e = &enum_options[i];
        const char *v = env(e->env);
        if (!v)
            continue;
        unsigned k = 0, n = count_names(e);
        while (k < n && strcasecmp(v, e->names[k]))
            k++;
        if (k == n)
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s=\"%s\" is not %s", e->env, v,
                            name_list(e, list, sizeof list));
        ((uint8_t *)o)[e->resolved] = (uint8_t)k;
    }
    const char *sg = env("SPVJIT_SUBGROUP_SIZE");
    if (sg) {
        long long v = strcasecmp(sg, "native") ? env_number(sg) : 0;
        if (v != 0 && !subgroup_size_ok((uint64_t)v))
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                            "SPVJIT_SUBGROUP_SIZE=\"%s\" is not native (or 0), 1, 4, 8, 16, 32 or 64", sg);
        o->subgroup_size = (uint32_t)v;
    }
    return SPVJIT_OK;
}

static spvjit_status threads_from(unsigned given, uint32_t *out)
{
    if (given > SPVJIT_POOL_MAX_THREADS)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_context_create: %u threads asked for, at most %u", given,
                        SPVJIT_POOL_MAX_THREADS);
    *out = given;
    const char *v = given ? NULL : env("SPVJIT_THREADS");
    if (v) {
        long long n = env_number(v);
        if (n < 1 || n > SPVJIT_POOL_MAX_THREADS)
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                            "SPVJIT_THREADS=\"%s\" is not a thread count (a whole number from 1 to %u)", v,
                            SPVJIT_POOL_MAX_THREADS);
        *out = (uint32_t)n;
    }
    if (!*out)
        *out = spvjit_pool_default_threads();
    return SPVJIT_OK;
}

/* NULL: $XDG_CACHE_HOME/spvjit, else $HOME/.cache/spvjit; "": none. */
static spvjit_status disk_dir_from(const char *given, char **out)
{
    char buf[4096];
    const char *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
    *out = NULL;
    if (given)
        snprintf(buf, sizeof buf, "%s", given);
    else if (xdg)
        snprintf(buf, sizeof buf, "%s/spvjit", xdg);
    else if (home)
        snprintf(buf, sizeof buf, "%s/.cache/spvjit", home);
    else
        return SPVJIT_OK;
    if (*buf && !(*out = strdup(buf)))
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_context_create: out of memory");
    return SPVJIT_OK;
}

/* --- API values ---------------------------------------------------------------------- */

/* The fields `g` gives (non-zero), validated, over `o`. */
static spvjit_status merge(api_build_options *o, const spvjit_build_options *g, const char *who)
{
    if (g->local_size[0] || g->local_size[1] || g->local_size[2])
        for (int d = 0; d < 3; d++)
            o->local_size[d] = g->local_size[d] ? g->local_size[d] : 1;
    if (g->unspecialized)
        o->unspecialized = 1;
    if (g->opt_level < 0 || g->opt_level > 3)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "%s: opt_level %d is not 0..3", who, g->opt_level);
    if (g->no_opt)
        o->opt_level = 0;
    else if (g->opt_level)
        o->opt_level = (uint8_t)g->opt_level;
    char list[128];
    for (size_t i = 0; i < NENUMS; i++) {
        const enum_option *e = &enum_options[i];
        int v;
        memcpy(&v, (const char *)g + e->given, sizeof v);
        if (v == 0)
            continue;
        if (v < 0 || (unsigned)v > count_names(e))
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                            "%s: %s %d is not a spvjit_%s value (%s, or 0 for the default)", who, e->field, v, e->field,
                            name_list(e, list, sizeof list));
        ((uint8_t *)o)[e->resolved] = (uint8_t)(v - 1);
    }
    if (g->subgroup_size == SPVJIT_SUBGROUP_SIZE_NATIVE)
        o->subgroup_size = 0;
    else if (g->subgroup_size && !subgroup_size_ok(g->subgroup_size))
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                        "%s: subgroup_size %u is not 1, 4, 8, 16, 32, 64 or SPVJIT_SUBGROUP_SIZE_NATIVE", who,
                        g->subgroup_size);
    else if (g->subgroup_size)
        o->subgroup_size = g->subgroup_size;
    return SPVJIT_OK;
}

/* Values that are valid but that the JIT does not honour yet would give
 * silently wrong answers are refused: sub-groups of W lanes need the SIMD
 * path. */
static spvjit_status check_implemented(const api_build_options *o, const char *who)
{
    if (o->subgroup_size > 1 && o->simd == JIT_SIMD_OFF)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                        "%s: sub-groups of %u work-items need the SIMD path, and simd is off (SPVJIT_SIMD)", who,
                        o->subgroup_size);
    return SPVJIT_OK;
}

spvjit_status api_context_options_resolve(const spvjit_context_options *given, api_context_options *out)
{
    static const spvjit_context_options none;
    if (!given)
        given = &none;
    memset(out, 0, sizeof *out);
    out->cache_bytes = given->cache_bytes ? given->cache_bytes : DEFAULT_CACHE_BYTES;
    spvjit_status st = threads_from(given->threads, &out->threads);
    if (st == SPVJIT_OK)
        st = build_from_env(&out->build);
    if (st == SPVJIT_OK)
        st = merge(&out->build, &given->defaults, "spvjit_context_options.defaults");
    if (st == SPVJIT_OK)
        st = disk_dir_from(given->disk_cache_dir, &out->disk_dir);
    return st;
}

void api_context_options_free(api_context_options *o)
{
    free(o->disk_dir);
    o->disk_dir = NULL;
}

spvjit_status api_build_options_resolve(const api_context_options *ctx, const spvjit_build_options *given,
                                        const char *who, api_build_options *out)
{
    *out = ctx->build;
    spvjit_status st = given ? merge(out, given, who) : SPVJIT_OK;
    return st == SPVJIT_OK ? check_implemented(out, who) : st;
}

void api_build_options_to_jit(const api_build_options *o, spvjit_options *jo)
{
    memcpy(jo->local_size, o->local_size, sizeof jo->local_size);
    jo->unspecialized = o->unspecialized;
    jo->opt_level = o->opt_level;
    jo->barriers = (jit_barrier_mode)o->barriers;
    jo->subgroup_size = o->subgroup_size;
    jo->simd = (jit_simd)o->simd;
    jo->memory = (jit_memory)o->memory;
    jo->tier = (jit_tier)o->tier;
}
