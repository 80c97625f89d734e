/* jit/inline_once.h — always-inline functions with one call, inlined by
 * moving their blocks.
 *
 * LLVM's inliner clones the callee's body into the caller (every value
 * remapped, its metadata too) and then deletes the callee: for the quick
 * tier, whose region functions each have the one call from their group
 * function, that was a fifth of a build (mm: about 2 of its 10 ms).  A
 * function called once needs no copy: its blocks move into the caller at
 * the call, its arguments are replaced by the call's operands, its returns
 * branch to the rest of the calling block (a phi of the returned values),
 * and its fixed-size allocas join the caller's entry block.  The code is
 * the inliner's (no attributes or metadata to carry: the JIT's functions
 * have none that inlining would translate), so the quick tier runs it; the
 * optimized tier keeps LLVM's inliner and its alias scopes.  Left to the
 * inliner: functions called more than once or from themselves, variadic
 * ones, byval/inalloca/preallocated parameters, calls with operand bundles.
 */
#ifndef SPVJIT_JIT_INLINE_ONCE_H
#define SPVJIT_JIT_INLINE_ONCE_H

#include <llvm-c/Core.h>

/* Inlines, in every defined function of mod, the calls of internal
 * always-inline functions that have no other use, and deletes those
 * functions; returns how many, or -1 when out of memory. */
int jit_inline_once(LLVMModuleRef mod);

#endif
