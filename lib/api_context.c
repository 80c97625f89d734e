/* lib/api_context.c — contexts: thread count, the kernel caches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/api_internal.h"
#include "lib/disk_cache.h"
#include "lib/threadpool.h"

#define DEFAULT_CACHE_BYTES ((size_t)256 << 20)

SPVJIT_API spvjit_status spvjit_context_create(const spvjit_context_options *opts, spvjit_context **out)
{
    if (!out)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_context_create: out is NULL");
    *out = NULL;
    static const spvjit_context_options defaults;
    if (!opts)
        opts = &defaults;

    uint32_t threads = opts->threads;
    if (threads > SPVJIT_POOL_MAX_THREADS)
        return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT, "spvjit_context_create: %u threads asked for, at most %u",
                        threads, SPVJIT_POOL_MAX_THREADS);
    if (threads == 0) {
        /* Check SPVJIT_THREADS now, so a bad value is reported here, once. */
        const char *bad = NULL;
        if (spvjit_pool_default_threads(&bad) == 0)
            return api_fail(SPVJIT_ERROR_INVALID_ARGUMENT,
                            "SPVJIT_THREADS=\"%s\" is not a thread count (a whole number from 1 to %u)", bad ? bad : "",
                            SPVJIT_POOL_MAX_THREADS);
    }

    spvjit_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_context_create: out of memory");
    atomic_init(&ctx->refs, 1);
    ctx->threads = threads;
    ctx->cache = kcache_create(opts->cache_bytes ? opts->cache_bytes : DEFAULT_CACHE_BYTES, api_compiled_retain,
                               api_compiled_release);
    ctx->disk_dir = disk_cache_dir(opts->disk_cache_dir);
    if (!ctx->cache) {
        api_context_release(ctx);
        return api_fail(SPVJIT_ERROR_OUT_OF_MEMORY, "spvjit_context_create: out of memory");
    }
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
    kcache_destroy(ctx->cache);
    free(ctx->disk_dir);
    free(ctx);
}

SPVJIT_API void spvjit_context_destroy(spvjit_context *ctx)
{
    api_context_release(ctx);
}
