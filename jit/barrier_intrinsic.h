/* jit/barrier_intrinsic.h — a work-group barrier as a call to one named function.
 *
 * The lowering emits every work-group barrier (OpControlBarrier at Workgroup
 * scope or wider, each barrier of a work-group collective, OpGroupWaitEvents)
 * as
 *     call void @spvjit.barrier(ptr %ctx, i32 <site>)
 * where site is the 0-based barrier site (jit/abi.h).  Passes find barriers by
 * this callee, not by the shape of the code around them.  The declaration is
 * `convergent nounwind` and has no memory attribute and no `nosync`, `willreturn`
 * or `nocallback`: LLVM must then assume a call reads and writes any memory
 * not provably private to the function (work-group memory, buffers, whatever
 * ctx leads to) and synchronizes with other threads, so no load or store of
 * such memory moves across it, as a full fence for work-group and global
 * memory requires (a test checks this against LLVM's O3); `convergent` keeps
 * LLVM from making it depend on more control flow (no unswitching, no
 * duplication into one side of a branch), which the SIMD model needs.
 *
 * Then exactly one of two things happens before the optimizer runs: the
 * barrier regions (jit/regions.h) cut the work-item function at these calls
 * and drop them, or jit_barriers_to_fibers() turns each into the fiber
 * path's indirect call ctx->barrier(ctx, site).
 */
#ifndef SPVJIT_JIT_BARRIER_INTRINSIC_H
#define SPVJIT_JIT_BARRIER_INTRINSIC_H

#include <stdint.h>
#include <llvm-c/Core.h>

#include "lower_ctx.h"

#define JIT_BARRIER_FN "spvjit.barrier"

/* Emits a barrier at site `site` at c->b (ctx: c->arg_ctx). */
void jit_build_barrier(lower_ctx *c, uint32_t site);

/* The module's barrier declaration, made on first use. */
LLVMValueRef jit_barrier_declare(LLVMModuleRef mod);
/* The module's barrier declaration, or NULL when no barrier was emitted. */
LLVMValueRef jit_barrier_function(LLVMModuleRef mod);
/* The site of `call` when it calls the barrier declaration `barrier_fn`;
 * -1 for any other instruction, -2 for a barrier call whose site is not a
 * constant (never emitted). */
long long jit_barrier_site(LLVMValueRef barrier_fn, LLVMValueRef call);

/* The fiber path: every barrier call becomes ctx->barrier(ctx, site) and the
 * declaration goes away. */
void jit_barriers_to_fibers(lower_ctx *c);

#endif
