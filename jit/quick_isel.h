/* jit/quick_isel.h — the integer intrinsics and one-bit selects FastISel
 * cannot select, expanded for the quick tier.
 *
 * The quick tier's code generator is FastISel, which gives up on an
 * instruction it has no pattern for and hands that instruction and the rest
 * of its block above it to SelectionDAG.  On x86 it has none for the integer
 * min/max intrinsics (GLSL's min, max, clamp; OpenCL's) and the saturating
 * subtraction lower_bounds.c computes a buffer's last valid offset with,
 * which sit in the big entry blocks of the group functions: code generation
 * took up to half again as long (reduce: 3.6 against 2.4 ms, llc -O0).  Each
 * becomes the compare and select it means, the same integer result, so the
 * tiers still agree bit for bit.  Nor has it one for a select of one bit,
 * the form LLVM's passes give `a && b` and `a || b` (`a ? b : false`):
 * those become the ands and ors they mean (mm's quick build 2-7% shorter).
 * The optimized tier keeps both (SelectionDAG selects them well, and its
 * passes recognize them).
 */
#ifndef SPVJIT_JIT_QUICK_ISEL_H
#define SPVJIT_JIT_QUICK_ISEL_H

#include <llvm-c/Core.h>

/* Replaces in mod every scalar call of llvm.{u,s}{min,max} and
 * llvm.u{add,sub}.sat by compares and selects, and every select of an i1 by
 * ands and ors; returns how many. */
int jit_quick_isel_expand(LLVMModuleRef mod);

#endif
