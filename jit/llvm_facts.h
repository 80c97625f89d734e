/* jit/llvm_facts.h — what an LLVM instruction does, as the barrier passes ask it.
 *
 * Small questions about single instructions that the uniformity analysis
 * (uniformity.c), the slot plan (slots.c) and the region loops (region_loops.c)
 * must answer alike: which opcodes compute their result from their operands
 * alone, which calls touch no memory, which stack slots are plain variables;
 * the integer predicates swapped and negated; the pass runner they share with
 * the vectorizer's preparation, and the phi edit of the block splits after
 * the passes (polls, unmasked accesses); the metadata and spare bytes of
 * the rewrites after the passes.
 */
#ifndef SPVJIT_JIT_LLVM_FACTS_H
#define SPVJIT_JIT_LLVM_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <llvm-c/Core.h>

/* p with its operands swapped: x p y is y jit_icmp_swapped(p) x. */
LLVMIntPredicate jit_icmp_swapped(LLVMIntPredicate p);
/* p negated: x p y is !(x jit_icmp_inverse(p) y). */
LLVMIntPredicate jit_icmp_inverse(LLVMIntPredicate p);

/* An opcode whose result depends on its operands alone: no memory, no side
 * effect (arithmetic, comparisons, casts, GEP, select, vector and aggregate
 * element operations, freeze).  Integer division and remainder are included:
 * they may trap, see jit_inst_never_traps. */
bool jit_opcode_pure(LLVMOpcode op);

/* A direct call to a function that reads and writes no memory (memory(none)). */
bool jit_call_pure(LLVMValueRef call);
/* Whether `in` computes its value from its operands alone and cannot trap, so
 * that it may run where the original did not: a jit_opcode_pure opcode but
 * integer division and remainder, or a call of a pure, speculatable LLVM
 * intrinsic (llvm.usub.sat, llvm.umin, ...). */
bool jit_inst_never_traps(LLVMValueRef in);
/* Whether a call may write memory: unless its callee's memory attribute says
 * it reads at most. */
bool jit_call_may_write(LLVMValueRef call);
/* The intrinsic of a call of llvm.smin, llvm.smax, llvm.umin or llvm.umax
 * (any type), without its type suffix ("llvm.smax"); else NULL. */
const char *jit_call_int_minmax(LLVMValueRef call);
/* A call with no effect on memory the program can see (llvm.lifetime.*,
 * llvm.assume, llvm.dbg.*, the sub-group markers of sg_marker.h). */
bool jit_call_harmless(LLVMValueRef call);

/* Whether `in` may write memory other than the function's own stack slots, or
 * synchronize: a store not into an alloca, a call that is neither harmless nor
 * jit_inst_never_traps, a fence, an atomic read-modify-write or
 * compare-exchange. */
bool jit_inst_may_write_shared(LLVMValueRef in);

/* i1 spvjit.group.proven(): memory=robust's flag in kernels with barriers
 * (spvjit.item.in.group's body call, workgroup.c): whether the group's
 * bounds checks were proven, a call no pass can fold until the barrier path
 * gives it its value (true in the regions' full machine, whose groups the
 * range loop proves; false elsewhere).  The group's value: hoisted, never a
 * per-item slot. */
#define JIT_GROUP_PROVEN "spvjit.group.proven"
/* Whether v is a call of JIT_GROUP_PROVEN. */
bool jit_is_group_proven(LLVMValueRef v);

/* Whether v is a mask: a vector of i1. */
bool jit_is_mask(LLVMValueRef v);

/* p without its GEPs: the pointer they are computed from. */
LLVMValueRef jit_strip_geps(LLVMValueRef p);

/* Whether alloca `a` is a plain variable: only loaded and stored as a whole
 * (no GEP into it, its address never stored or passed on, nothing volatile). */
bool jit_alloca_simple(LLVMValueRef a);
/* The store into alloca `a` when there is exactly one, else NULL. */
LLVMValueRef jit_alloca_single_store(LLVMValueRef a);

/* Replaces `from` by `to` among the incoming blocks of every phi of bb (one
 * entry for `to`, however many edges from `from` there were): the block
 * splits after the passes (polls, unmasked accesses) move edges. */
void jit_retarget_phis(LLVMBuilderRef b, LLVMBasicBlockRef bb, LLVMBasicBlockRef from, LLVMBasicBlockRef to);

/* Moves instruction i from its block to the builder's position with its name
 * (LLVMInsertIntoBuilder would leave it none: --emit readers, and tests,
 * find a kernel's variables by name). */
void jit_move_inst(LLVMBuilderRef b, LLVMValueRef i);
/* Moves `first` and the instructions after it in its block, names kept, to
 * the end of `to` (a block split after first's predecessor, or a block
 * merged into `to`); the phis of the moved terminator's successors then name
 * `to` where they named first's block. */
void jit_move_tail(LLVMBuilderRef b, LLVMValueRef first, LLVMBasicBlockRef to);
/* Splits first's block before first: first and what follows it move to a new
 * block `name` placed right after, which the old block now branches to;
 * returns the new block. */
LLVMBasicBlockRef jit_split_block(LLVMBuilderRef b, LLVMValueRef first, const char *name);
/* bb joins its predecessor when that is its only one and ends in an
 * unconditional branch to bb: bb's phis become their one value, its
 * instructions move to the predecessor's end, bb is deleted. */
void jit_join_predecessor(LLVMBuilderRef b, LLVMBasicBlockRef bb);

/* Which of LLVM's masked memory intrinsics instruction `in` calls, if any.
 * Its operands: the stored value (stores, scatters), the pointer or vector
 * of pointers (at jit_masked_ptr_at), the alignment, the lane mask. */
typedef enum {
    JIT_MASKED_NONE,
    JIT_MASKED_LOAD,
    JIT_MASKED_STORE,
    JIT_MASKED_GATHER,
    JIT_MASKED_SCATTER
} jit_masked_op;
jit_masked_op jit_masked_op_of(LLVMValueRef in);
static inline unsigned jit_masked_ptr_at(jit_masked_op k)
{
    return k == JIT_MASKED_STORE || k == JIT_MASKED_SCATTER;
}

/* The metadata of instruction `from` (an access's memory facts) set on `to`,
 * the access rebuilt after the passes (unmasked, redirected). */
void jit_copy_metadata(LLVMValueRef from, LLVMValueRef to);

/* The module's spare bytes, in address space 0, made on first use: the zeros
 * an access that must not touch the program's memory reads (a constant), or
 * the sink it writes instead (writable; nobody reads it, so threads may
 * race on it).  JIT_SPARE_BYTES long, JIT_SPARE_ALIGN aligned: the checks
 * made branchless (unbranch.c) and the lanes of a gather or scatter that are
 * off (lane_redirect.c) go there. */
#define JIT_SPARE_BYTES 256
#define JIT_SPARE_ALIGN 64
LLVMValueRef jit_spare(LLVMModuleRef mod, bool writable);

/* Runs the new pass manager's `pipeline` on mod (no target machine): 0, or -1
 * with "LLVM passes (<pipeline>) failed: <why>" in msg[len]. */
int jit_run_passes(LLVMModuleRef mod, const char *pipeline, char *msg, size_t len);

#endif
