/* jit/rt_check.c — memory=check's runtime functions (see rt_check.h). */
#include "jit/rt_check.h"

static _Thread_local jit_rt_report orphan;

jit_rt_report jit_rt_take_report(void)
{
    jit_rt_report r = orphan;
    orphan.made = false;
    return r;
}

void spvjit_rt_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, uint64_t offset, uint64_t bytes,
                   uint64_t bound, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz)
{
    if (ctx->report_oob)
        ctx->report_oob(ctx, site, offset, bytes, bound, epoch, lx, ly, lz);
    else if (!orphan.made)
        orphan = (jit_rt_report){ true, site, offset, bytes, bound };
}

void spvjit_rt_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site, const void *addr, uint64_t bytes,
                         uint64_t offset, uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz)
{
    if (ctx->wg_access)
        ctx->wg_access(ctx, site, addr, bytes, offset, epoch, lx, ly, lz);
}
