/* jit/rt_check.h — the runtime functions compiled code calls in memory=check.
 *
 * The code calls them directly (a call through a ctx field would be an
 * indirect call, which the barrier regions do not take); they hand the
 * report to the executor's hooks in the context (jit/abi.h: report_oob,
 * wg_access), which may be NULL outside a dispatch.  The JIT defines both
 * symbols for the code it links (emit.c).
 */
#ifndef SPVJIT_JIT_RT_CHECK_H
#define SPVJIT_JIT_RT_CHECK_H

#include <stdint.h>

#include "abi.h"

#define JIT_RT_OOB "spvjit_rt_oob"
#define JIT_RT_WG_ACCESS "spvjit_rt_wg_access"

__attribute__((visibility("default"))) void spvjit_rt_oob(const spvjit_wg_ctx *ctx, const spvjit_check_site *site,
                                                          uint64_t offset, uint64_t bytes, uint64_t bound,
                                                          uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);
__attribute__((visibility("default"))) void spvjit_rt_wg_access(const spvjit_wg_ctx *ctx, const spvjit_check_site *site,
                                                                const void *addr, uint64_t bytes, uint64_t offset,
                                                                uint32_t epoch, uint32_t lx, uint32_t ly, uint32_t lz);

#endif
