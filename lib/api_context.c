/* lib/api_context.c — contexts: thread count, the kernel caches, their background compiles. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "lib/threadpool.h"

SPVJIT_API spvjit_status spvjit_context_create(const spvjit_context_options *opts, spvjit_context **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_context_create: out is NULL");
    *out = NULL;
    /* Every option, the environment's included, is read and checked here, once. */
    api_context_options o;
    spvjit_status st = api_context_options_resolve(opts, &o);
    if (st != SPVJIT_OK) {
        api_context_options_free(&o);
        return st;
    }
    spvjit_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        api_context_options_free(&o);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_context_create: out of memory");
    }
    atomic_init(&ctx->refs, 1);
    ctx->options = o;
    ctx->cache = kcache_create(o.cache_bytes, api_compiled_retain, api_compiled_release);
    if (!ctx->cache) {
        api_context_release(ctx);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_context_create: out of memory");
    }
    spvjit_pool_start_workers(o.threads); /* up before the first dispatch: threadpool.h */
    *out = ctx;
    return SPVJIT_OK;
}

void api_context_retain(spvjit_context *ctx)
{
    atomic_fetch_add(&ctx->refs, 1);
}

void api_context_release(spvjit_context *ctx)
{
    if (!ctx || atomic_fetch_sub(&ctx->refs, 1) != 1)
        return;
    /* no compile outlives its context (a process may exit right after) */
    api_opt_jobs_cancel_all(ctx);
    kcache_destroy(ctx->cache);
    api_context_options_free(&ctx->options);
    free(ctx);
}

SPVJIT_API void spvjit_context_destroy(spvjit_context *ctx)
{
    api_context_release(ctx);
}

SPVJIT_API spvjit_status spvjit_limits_get(spvjit_limits *out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_limits_get: out is NULL");
    memset(out, 0, sizeof *out);
    out->max_workgroup_invocations = JIT_MAX_WORKGROUP_INVOCATIONS;
    for (int i = 0; i < 3; i++) {
        out->max_workgroup_size[i] = JIT_MAX_WORKGROUP_INVOCATIONS;
        out->max_workgroup_count[i] = UINT32_MAX;
    }
    out->max_workgroup_memory = JIT_MAX_WORKGROUP_MEMORY;
    out->max_private_memory = JIT_MAX_PRIVATE_MEMORY;
    return SPVJIT_OK;
}
