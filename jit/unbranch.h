/* jit/unbranch.h — bounds checks that stayed scalar, made branchless.
 *
 * lower_bounds.c emits each check as a branch around the access (weighted
 * JIT_GUARD_WEIGHT : 1): the form LLVM's loop vectorizer turns into masked
 * loads and stores, and the SIMD vectorizer into masked lanes.  A check
 * that is still a branch after the passes guards scalar code, where the
 * branch, the phi and the load it keeps from folding into its use cost
 * more than the check itself.  There the access moves before the branch
 * and takes its address from select(in bounds, address, spare): a load out
 * of bounds reads a zero block, a store writes a sink nobody reads.  A join
 * left with the check's block for its only predecessor merges into it (the
 * next check in a row then ends that block too): the quick tier's code
 * generator keeps no value in a register from one block to the next.
 * memory=check's checks (a report on the failing side) are left alone.
 */
#ifndef SPVJIT_JIT_UNBRANCH_H
#define SPVJIT_JIT_UNBRANCH_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

/* Rewrites the checks of mod; returns how many. */
int jit_unbranch_guards(LLVMModuleRef mod, LLVMTargetDataRef td);

#endif
