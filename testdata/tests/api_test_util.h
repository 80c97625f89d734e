/* testdata/tests/api_test_util.h — helpers shared by the test_api*.c files. */
#ifndef SPVJIT_TEST_API_UTIL_H
#define SPVJIT_TEST_API_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/spvjit.h"

/* The tier the suite runs on (test_quick_tier), for builds that name it. */
static inline spvjit_tier api_suite_tier(void)
{
    return test_quick_tier() ? SPVJIT_TIER_QUICK : SPVJIT_TIER_OPT;
}

/* A context with the disk cache off (tests that want it say so). */
static inline spvjit_context *api_ctx(size_t cache_bytes)
{
    spvjit_context *ctx = NULL;
    spvjit_context_options o = { .cache_bytes = cache_bytes, .disk_cache_dir = "" };
    if (spvjit_context_create(&o, &ctx) != SPVJIT_OK)
        return NULL;
    return ctx;
}

static inline spvjit_module *api_load(spvjit_context *ctx, const char *rel)
{
    spvjit_module *m = NULL;
    if (spvjit_module_load_file(ctx, test_data_path(rel), &m) != SPVJIT_OK)
        return NULL;
    return m;
}

/* A fresh context (api_ctx(0)) with module `rel` loaded in it; NULL (nothing
 * left behind) when either fails. */
static inline spvjit_module *api_ctx_load(const char *rel, spvjit_context **ctx)
{
    spvjit_module *m = (*ctx = api_ctx(0)) ? api_load(*ctx, rel) : NULL;
    if (!m) {
        spvjit_context_destroy(*ctx);
        *ctx = NULL;
    }
    return m;
}

static inline float *api_rand_floats(uint64_t *seed, size_t n, float lo, float hi)
{
    float *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = test_rand_float(seed, lo, hi);
    return p;
}

/* Index of the first element differing by more than rel (relative to the
 * larger magnitude, at least `floor_abs` absolute), or -1. */
static inline long api_first_mismatch(const float *got, const float *want, size_t n, float rel, float floor_abs)
{
    for (size_t i = 0; i < n; i++) {
        float d = fabsf(got[i] - want[i]);
        float m = fmaxf(fabsf(got[i]), fabsf(want[i]));
        if (!(d <= fmaxf(rel * m, floor_abs)))
            return (long)i;
    }
    return -1;
}

#endif
