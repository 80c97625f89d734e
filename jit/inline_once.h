/* jit/inline_once.h — always-inline functions with one call, inlined by
 * moving their blocks.
 *
 * LLVM's inliner clones the callee's body into the caller (every value
 * remapped, its metadata too) and then deletes the callee: for the quick
 * tier, whose region functions each have the one call from their group
 * function, that was a fifth of a build (mm: about 2 of its 10 ms), and
 * for the kernel's own functions, inlined into the item function before
 * its barrier regions are found (regions.c), about a tenth.  A function
 * called once needs no copy: its blocks move into the caller at the call,
 * its arguments are replaced by the call's operands, its returns branch to
 * the rest of the calling block (a phi of the returned values), and its
 * fixed-size allocas join the caller's entry block.  Then, as the inliner
 * folds the blocks it copies, a block reached by an unconditional branch
 * alone joins the block before it: the callee's entry joins the calling
 * block, a single return the rest of it.  What the inliner does besides
 * (each copied instruction simplified, lifetime markers, alias scopes for
 * noalias parameters) is left out, so only the quick tier runs this; the
 * optimized tier keeps LLVM's inliner.  Left to the inliner: functions
 * called more than once or from themselves, variadic ones,
 * byval/inalloca/preallocated parameters, calls with operand bundles.
 */
#ifndef SPVJIT_JIT_INLINE_ONCE_H
#define SPVJIT_JIT_INLINE_ONCE_H

#include <llvm-c/Core.h>

/* Inlines, in every defined function of mod, the calls of internal
 * always-inline functions that have no other use, and deletes those
 * functions; returns how many, or -1 when out of memory. */
int jit_inline_once(LLVMModuleRef mod);

#endif
