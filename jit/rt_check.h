/* jit/rt_check.h — the runtime functions compiled code calls in memory=check.
 *
 * The code calls them directly (a call through a ctx field would be an
 * indirect call, which the barrier regions do not take); they hand the
 * report to the executor's hooks in the context (jit/abi.h: report_oob,
 * wg_access).  Outside a dispatch (an exported function called from host C,
 * whose ctx has no hooks) the first out-of-bounds report of the calling
 * thread is kept for the caller to take.  The JIT defines both symbols for
 * the code it links (emit.c).
 */
#ifndef SPVJIT_JIT_RT_CHECK_H
#define SPVJIT_JIT_RT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "abi.h"

/* An out-of-bounds report made outside a dispatch. */
typedef struct jit_rt_report {
    bool made;
    const spvjit_check_site *site;
    uint64_t offset, bytes, bound;
} jit_rt_report;

/* The calling thread's report since the last take (made false: none); clears it. */
jit_rt_report jit_rt_take_report(void);

#define JIT_RT_OOB "spvjit_rt_oob"
#define JIT_RT_WG_ACCESS "spvjit_rt_wg_access"

__attribute__((visibility("default"))) void spvjit_rt_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site,
                                                          uint64_t offset, uint64_t bytes, uint64_t bound,
                                                          uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);
__attribute__((visibility("default"))) void spvjit_rt_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site,
                                                                const void *addr, uint64_t bytes, uint64_t offset,
                                                                uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);

#endif
