/* jit/poll.h — the stop flag in compiled code (jit/abi.h: ctx->stop).
 *
 * The range loop tests the flag before each work-group (group_range.c).
 * After the optimization passes, every edge that closes a cycle of the
 * control-flow graph (a retreating edge in reverse post-order: a loop's back
 * edge, and whatever closes an irreducible cycle) of the functions the
 * executor calls, and of the out-of-line functions of one group they call,
 * gets a test of the flag that returns from the function when it is set: in
 * the edge's branch when that is unconditional, else in a block of its own
 * on the edge.  Inserted after the passes, the polls cannot stop LLVM from
 * unrolling or vectorizing a loop: a fully unrolled loop has no back edge
 * left, a vectorized one polls once per vector iteration.  Straight-line code
 * needs no poll: it ends; nor does an innermost loop that counts from a
 * constant by a constant to a constant bound in at most 4096 trips (a k loop
 * over a tile, the loop over a region's work-items): the loop around it polls,
 * and the quick tier's loop body stays one block.
 */
#ifndef SPVJIT_JIT_POLL_H
#define SPVJIT_JIT_POLL_H

#include <llvm-c/Core.h>

/* Out-of-line functions of one group, (ctx, ...), are named with this prefix. */
#define JIT_SYM_GROUP_PREFIX "spvjit.group."

/* The value of ctx->stop (the flag's address), loaded at b where the polls
 * find it after the passes: a volatile load, marked, that the passes neither
 * drop nor move, and that keeps an internal function's ctx argument what it
 * is (argument promotion would otherwise pass the fields it reads instead).
 * Every out-of-line function of one group loads it at its entry. */
LLVMValueRef jit_stop_field(LLVMBuilderRef b, LLVMValueRef ctx);
/* The flag's address from the value of ctx->stop: a constant zero of mod's
 * when it is NULL (never stopped). */
LLVMValueRef jit_stop_flag(LLVMBuilderRef b, LLVMModuleRef mod, LLVMValueRef stop_field);
/* Whether the flag at `flag` is set (i1): a relaxed atomic load, another
 * thread sets it. */
LLVMValueRef jit_stop_requested(LLVMBuilderRef b, LLVMValueRef flag);

/* Polls in the functions of mod the executor calls (and theirs).  Returns the
 * number of polls inserted, or -1 when out of memory or an out-of-line group
 * function has no jit_stop_field (an internal error). */
int jit_insert_polls(LLVMModuleRef mod);

#endif
